#include "core/report/path_changes_text.h"

#include <cstdio>

#include "core/report/figure_text.h"

namespace th {

std::string ShareText(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", share * 100);
  return buf;
}

void WritePathChangesJson(JsonWriter& w, const PathChanges& c, const std::vector<Finding>& findings,
                          const std::vector<std::string>& ids) {
  w.BeginObject().Field("available", c.available);
  w.Field("ranked_by", c.available ? "critical_path_share" : "saving");
  w.Key("causes").BeginArray();
  for (const PathChange& x : c.changes) {
    w.BeginObject()
        .Field("group", x.group)
        .Field("finding", ids[static_cast<size_t>(x.finding - findings.data())])
        .Field("plugin", x.finding->plugin)
        .Field("title", x.finding->title);
    w.Key("categories").BeginArray();
    for (const std::string& cat : x.categories) w.String(cat);
    w.EndArray();
    w.Field("paths", x.paths)
        .Field("share_median", x.share_median)
        .Field("share_min", x.share_min)
        .Field("share_max", x.share_max)
        .Field("step", x.step)
        .Field("rank", x.rank)
        .Field("path_ns", x.path_ns)
        .Field("covered_ns", x.covered_ns)
        .Field("what_if_ns", x.what_if_ns)
        .Field("path_after_ns", x.path_after_ns)
        .Field("step_ns", x.step_ns)
        .Field("step_after_ns", x.step_after_ns)
        .Field("kind", "inferred")
        .Field("assumption", x.assumption)
        .Field("knob", x.knob)
        .EndObject();
  }
  w.EndArray().EndObject();
}

void WritePathChangesMarkdown(const PathChanges& c, std::ostream& out) {
  if (!c.available) return;
  if (c.changes.empty()) {
    out << "No cause maps to the critical path.\n\n";
    return;
  }
  out << "Ranked by the share of the critical path each cause covers (its time on a rank's path "
         "in a step / the path's length; median and range over the steps and ranks it reaches). "
         "Step time after: the critical-path what-if of the cause's category, scaled to the "
         "cause's share of that category on the path at the median share.\n\n"
         "| cause | path category | share of path (median, range) | step | step after "
         "(*inferred*) | assumption | try |\n| --- | --- | --- | --- | --- | --- | --- |\n";
  auto cell = [](std::string s) {
    for (char& ch : s)
      if (ch == '|' || ch == '\n') ch = ch == '|' ? '/' : ' ';
    return s;
  };
  for (const PathChange& x : c.changes) {
    std::string cats;
    for (const std::string& cat : x.categories) cats += (cats.empty() ? "" : ", ") + cat;
    out << "| " << x.finding->plugin << ": " << cell(x.finding->title) << " | " << cats << " | "
        << ShareText(x.share_median) << " (" << ShareText(x.share_min) << "–"
        << ShareText(x.share_max) << ", " << x.paths << (x.paths == 1 ? " path" : " paths")
        << ") | " << FigureText(static_cast<double>(x.step_ns), "ns") << " | "
        << FigureText(static_cast<double>(x.step_after_ns), "ns") << " | " << cell(x.assumption)
        << " | " << cell(x.knob) << " |\n";
  }
  out << "\n";
}

}  // namespace th
