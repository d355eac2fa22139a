#include "core/diff/diff_html.h"

#include <string_view>

#include "core/diff/diff_json.h"
#include "core/diff/diff_text.h"
#include "core/graph/text_escape.h"
#include "core/report/figure_text.h"

namespace th::diff {
namespace {

std::string Time(int64_t ns) { return FigureText(static_cast<double>(ns), "ns"); }

std::string Row(std::initializer_list<std::string> cells) {
  std::string out = "<tr>";
  for (const std::string& c : cells) out += "<td>" + HtmlText(c) + "</td>";
  return out + "</tr>\n";
}

std::string Head(std::initializer_list<const char*> cells) {
  std::string out = "<table>\n<tr>";
  for (const char* c : cells) out += std::string("<th>") + c + "</th>";
  return out + "</tr>\n";
}

void Aggregate(const DiffResult& r, size_t unchanged_rows, std::string* h) {
  *h += "<h2>Aggregate</h2>\n" + Head({"status", "class", "name", "A count", "A / step", "B count",
                                       "B / step", "Δ / step", "noise"});
  size_t unchanged = 0;
  for (const AggregateRow& row : r.aggregate) {
    if (row.status == RowStatus::kUnchanged && unchanged++ >= unchanged_rows) continue;
    *h +=
        Row({RowStatusName(row.status), EventClassName(row.cls), row.name,
             std::to_string(row.a.count), Time(row.a.time_per_step_ns), std::to_string(row.b.count),
             Time(row.b.time_per_step_ns), SignedTime(row.delta_ns), Time(row.noise_ns)});
  }
  *h += "</table>\n";
}

void Structure(const DiffResult& r, std::string* h) {
  *h += "<h2>Structure</h2>\n";
  for (const StepPair& p : r.structure) {
    *h += "<h3>A rank " + std::to_string(p.a_rank) + " step " + std::to_string(p.a_step) +
          " ↔ B rank " + std::to_string(p.b_rank) + " step " + std::to_string(p.b_step) +
          "</h3>\n<p>" + std::to_string(p.matched) + " aligned, " + std::to_string(p.a_unmatched) +
          " only in A, " + std::to_string(p.b_unmatched) + " only in B</p>\n" +
          Head({"kind", "level", "under", "A", "B", "A device", "B device", "Δ"});
    for (const StructuralRow& row : p.rows) {
      std::string under;
      for (const std::string& s : row.path) under += (under.empty() ? "" : " › ") + s;
      *h += Row({row.kind, row.level, under.empty() ? "(step)" : under, row.a_name, row.b_name,
                 Time(row.a_device_ns), Time(row.b_device_ns),
                 SignedTime(row.b_device_ns - row.a_device_ns)});
    }
    *h += "</table>\n";
  }
}

}  // namespace

std::string DiffHtml(const DiffResult& r, size_t unchanged_rows) {
  std::string h =
      "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>tracehound diff</title>\n"
      "<style>body{font:14px sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
      "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}</style></head><body>\n"
      "<h1>tracehound diff</h1>\n";
  h += Head({"", "A", "B"});
  h += Row({"ranks", std::to_string(r.a.ranks), std::to_string(r.b.ranks)});
  h += Row({"steps kept", std::to_string(r.a.steps), std::to_string(r.b.steps)});
  h += Row({"step source", r.a.step_source, r.b.step_source});
  h += Row({"device", r.a.device, r.b.device});
  h += "</table>\n<h2>Warnings</h2>\n<ul>\n";
  for (const std::string& w : r.warnings) h += "<li>" + HtmlText(w) + "</li>\n";
  h += "</ul>\n<h2>Step time</h2>\n";
  const Attribution& at = r.attribution;
  if (at.available) {
    h += "<p>A " + Time(at.a_step_ns) + ", B " + Time(at.b_step_ns) + ", Δ " +
         SignedTime(at.delta_ns) + "</p>\n" + Head({"category", "A / step", "B / step", "Δ"});
    for (const Contributor& c : at.contributors)
      h += Row({c.category, Time(c.a_ns), Time(c.b_ns), SignedTime(c.delta_ns)});
    h += "</table>\n";
  } else {
    h += "<p>Not available: a side has no step_breakdown rows.</p>\n";
  }
  Aggregate(r, unchanged_rows, &h);
  Structure(r, &h);
  h += "<script type=\"application/json\" id=\"diff-data\">" + ScriptSafeJson(DiffJson(r)) +
       "</script>\n</body></html>\n";
  return h;
}

}  // namespace th::diff
