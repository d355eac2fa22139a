#include "core/report/analysis_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/report/figure_text.h"
#include "core/report/finding_groups.h"
#include "core/report/finding_json.h"
#include "core/report/investigation.h"
#include "core/report/json_writer.h"
#include "core/report/path_changes.h"
#include "core/report/path_changes_text.h"
#include "core/report/trust_json.h"

namespace th {

namespace {

// Stable id of a finding: plugin and its position among that plugin's findings.

std::string SecondsText(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", seconds);
  return buf;
}

// (phase, "N.NNN s") in run order: import, facts, plugins, the outputs written.
std::vector<std::pair<std::string, std::string>> TimingRows(const AnalysisReport& r) {
  const PhaseTimes& t = r.timing;
  std::vector<std::pair<std::string, std::string>> rows = {
      {"import", SecondsText(t.import_seconds)},
      {"kernel classes and catalogs", SecondsText(t.facts_seconds)},
      {"plugins (" + std::to_string(r.plugins.size()) + ", " + SecondsText(PluginSecondsSummed(r)) +
           " summed)",
       SecondsText(t.plugins_seconds)}};
  for (const OutputTime& o : t.outputs)
    rows.push_back({o.type + " " + (o.path.empty() ? "output" : o.path), SecondsText(o.seconds)});
  return rows;
}

TrustTable AllTrust(const AnalysisReport& r) {
  TrustTable t;
  if (!r.traces) return t;
  t.Merge(r.traces->trust);
  for (const auto& trace : r.traces->traces) t.Merge(trace->trust);
  return t;
}

std::string Cell(const DerivedColumn& c, size_t row) {
  if (auto* i = std::get_if<std::vector<int64_t>>(&c.values))
    return FigureText(static_cast<double>((*i)[row]), c.unit);
  if (auto* d = std::get_if<std::vector<double>>(&c.values))  // NaN: no value (JSON null)
    return std::isfinite((*d)[row]) ? FigureText((*d)[row], c.unit) : "-";
  std::string s(std::get<TextColumn>(c.values)[row]);
  for (char& ch : s)
    if (ch == '|') ch = '/';
  return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

// Every check a report lists: the host's reconciliations that apply, then
// the plugins' checks. The terminal and the reports count the same ones.
struct CheckTally {
  size_t passed = 0, total = 0;
  std::vector<std::string> failed;  // "plugin: name"
};

CheckTally Tally(const AnalysisReport& r) {
  CheckTally t;
  if (r.traces) {
    for (const Reconciliation& c : ReconciliationOf(r)) {
      if (!c.applicable) continue;
      ++t.total;
      t.passed += c.passed;
      if (!c.passed) t.failed.push_back("host: " + c.name);
    }
  }
  for (const Check& c : r.results.checks) {
    ++t.total;
    t.passed += c.passed;
    if (!c.passed) t.failed.push_back(c.plugin + ": " + c.name);
  }
  return t;
}

// "3 findings below P1 and beyond the first 5 causes left out", or "".
std::string HiddenText(const GroupedFindings& g, const FindingFilter& filter) {
  if (g.hidden_findings == 0) return "";
  std::string why;
  if (IsProblem(filter.min_severity))
    why = "below " + std::string(SeverityLabel(filter.min_severity));
  if (filter.max_groups >= 0)
    why += (why.empty() ? "" : " or ") + std::string("beyond the first ") +
           std::to_string(filter.max_groups) + (filter.max_groups == 1 ? " cause" : " causes");
  return std::to_string(g.hidden_findings) + (g.hidden_findings == 1 ? " finding " : " findings ") +
         why + " left out of this output (every finding is in the JSON report without a filter)";
}

}  // namespace

std::vector<Reconciliation> ReconciliationOf(const AnalysisReport& r) {
  if (r.reconciliation) return *r.reconciliation;
  return r.traces ? Reconcile(*r.traces) : std::vector<Reconciliation>{};
}

std::vector<OpenQuestion> OpenQuestionsOf(const AnalysisReport& r) {
  if (r.open_questions) return *r.open_questions;
  return r.traces ? OpenQuestions(*r.traces) : std::vector<OpenQuestion>{};
}

double PluginSecondsSummed(const AnalysisReport& r) {
  double sum = 0;
  for (const PluginOutcome& p : r.plugins) sum += p.seconds;
  return sum;
}

void WriteTimingJson(JsonWriter& w, const AnalysisReport& r) {
  const PhaseTimes& t = r.timing;
  w.BeginObject()
      .Field("import_seconds", t.import_seconds)
      .Field("facts_seconds", t.facts_seconds)
      .Field("plugins_seconds", t.plugins_seconds)
      .Field("plugins_summed_seconds", PluginSecondsSummed(r));
  w.Key("outputs").BeginArray();
  for (const OutputTime& o : t.outputs)
    w.BeginObject()
        .Field("type", o.type)
        .Field("path", o.path)
        .Field("seconds", o.seconds)
        .EndObject();
  w.EndArray().EndObject();
}

std::vector<std::string> FindingIds(const AnalysisReport& r) {
  std::map<std::string, int> seen;
  std::vector<std::string> ids;
  for (const Finding& f : r.results.findings)
    ids.push_back(f.plugin + "/" + std::to_string(++seen[f.plugin]));
  return ids;
}

std::string_view Verdict(const AnalysisReport& r) {
  bool problem = std::any_of(r.results.findings.begin(), r.results.findings.end(),
                             [](const Finding& f) { return IsProblem(f.severity); });
  if (problem) return "NEEDS_ATTENTION";
  // Nothing found is only OPTIMAL when something was looked at: a plugin ran
  // and measured (a metric) or checked (a check). Info findings say what a
  // trace is; they are no problem.
  bool ran =
      std::any_of(r.plugins.begin(), r.plugins.end(), [](const PluginOutcome& p) { return p.ok; });
  bool assessed = !r.results.metrics.empty() || !r.results.checks.empty();
  return ran && assessed ? "OPTIMAL" : "NOT_ASSESSED";
}

std::vector<const Skip*> SkipsOf(const AnalysisReport& r, const std::string& plugin) {
  std::vector<const Skip*> out;
  for (const Skip& s : r.results.skips)
    if (s.plugin == plugin) out.push_back(&s);
  return out;
}

void WriteReportJson(const AnalysisReport& r, std::ostream& out, const FindingFilter& filter) {
  JsonWriter w(out);
  std::vector<std::string> ids = FindingIds(r);
  GroupedFindings grouped = GroupFindings(r.results.findings, filter);
  std::vector<const FindingGroup*> group_of(r.results.findings.size(), nullptr);
  for (const FindingGroup& g : grouped.groups)
    for (size_t m : g.members) group_of[m] = &g;
  w.BeginObject();
  w.Field("schema_version", kReportSchemaVersion);
  w.Field("verdict", Verdict(r));
  w.Field("pipeline", r.pipeline);
  // One entry per cause: the findings of one plugin and title, worst scope first.
  w.Key("groups").BeginArray();
  for (const FindingGroup& g : grouped.groups) {
    w.BeginObject()
        .Field("id", g.id)
        .Field("plugin", g.plugin)
        .Field("severity", SeverityLabel(g.severity))
        .Field("title", g.title)
        .Field("scopes", static_cast<int64_t>(g.members.size()));
    w.Key("summary");
    g.summary.empty() ? w.Null() : w.String(g.summary);
    w.Key("findings").BeginArray();
    for (size_t m : g.members) w.String(ids[m]);
    w.EndArray().EndObject();
  }
  w.EndArray();
  w.Field("findings_left_out", static_cast<int64_t>(grouped.hidden_findings));
  // Every finding of a shown group, every scope.
  w.Key("findings").BeginArray();
  for (size_t i = 0; i < r.results.findings.size(); ++i) {
    if (!group_of[i]) continue;
    WriteFindingJson(w, r.results.findings[i],
                     {.layout = kReportFindingJson, .leading = [&](JsonWriter& o) {
                        o.Field("id", ids[i]).Field("group", group_of[i]->id);
                      }});
  }
  w.EndArray();
  w.Key("checks").BeginArray();
  for (const Check& c : r.results.checks) {
    w.BeginObject()
        .Field("plugin", c.plugin)
        .Field("name", c.name)
        .Field("passed", c.passed)
        .Field("detail", c.detail)
        .EndObject();
  }
  w.EndArray();
  w.Key("notes").BeginArray();
  for (const Note& n : r.results.notes) {
    w.BeginObject()
        .Field("plugin", n.plugin)
        .Field("level", n.warning ? "warning" : "note")
        .Field("text", n.text)
        .EndObject();
  }
  w.EndArray();
  w.Key("metrics").BeginObject();
  std::map<std::string, std::vector<const Metric*>> by_plugin;
  for (const Metric& m : r.results.metrics) by_plugin[m.plugin].push_back(&m);
  for (const auto& [plugin, metrics] : by_plugin) {
    w.Key(plugin).BeginArray();
    for (const Metric* m : metrics) {
      w.BeginObject().Field("name", m->name).Field("value", m->value).Field("unit", m->unit);
      w.Field("kind", NumberKindName(m->kind));
      w.Key("scope");
      WriteScopeJson(w, m->scope);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
  w.Key("plugins").BeginObject();
  for (const PluginOutcome& p : r.plugins) {
    w.Key(p.id).BeginObject().Field("status", p.ok ? "ok" : "failed").Field("version", p.version);
    w.Key("error");
    p.ok ? w.Null() : w.String(p.error);
    w.Field("seconds", p.seconds);
    w.Key("skipped").BeginArray();
    for (const Skip* s : SkipsOf(r, p.id))
      w.BeginObject().Field("rank", s->rank).Field("reason", s->reason).EndObject();
    w.EndArray().EndObject();
  }
  w.EndObject();
  w.Key("timing");
  WriteTimingJson(w, r);
  w.Key("tables").BeginObject();
  for (const auto& [name, t] : r.results.tables) {
    w.Key(name).BeginObject().Field("plugin", t.plugin).Field("rows", static_cast<int64_t>(t.rows));
    w.Key("columns").BeginArray();
    for (const DerivedColumn& c : t.columns) w.String(c.name);
    w.EndArray().EndObject();
  }
  w.EndObject();
  if (r.traces) {
    w.Key("reconciliation").BeginArray();
    for (const Reconciliation& c : ReconciliationOf(r)) {
      w.BeginObject()
          .Field("name", c.name)
          .Field("applicable", c.applicable)
          .Field("passed", c.passed)
          .Field("detail", c.detail)
          .EndObject();
    }
    w.EndArray();
    w.Key("changes").BeginArray();
    auto ids = FindingIds(r);
    for (const Change& c : RankChanges(*r.traces, r.results)) {
      w.BeginObject()
          .Field("finding", ids[static_cast<size_t>(c.finding - r.results.findings.data())])
          .Field("saving_ns", c.saving_ns)
          .Field("kind", "inferred");
      if (c.steps) w.Field("median_step_ns", c.step_ns).Field("step_after_ns", c.step_after_ns);
      w.EndObject();
    }
    w.EndArray();
    w.Key("changes_by_path");
    WritePathChangesJson(w, RankChangesByPath(*r.traces, r.results), r.results.findings, ids);
    w.Key("open_questions").BeginArray();
    for (const OpenQuestion& q : OpenQuestionsOf(r))
      w.BeginObject().Field("question", q.question).Field("capture", q.capture).EndObject();
    w.EndArray();
  }
  w.Key("trust");
  WriteTrustJson(w, AllTrust(r).Entries());
  w.Key("traces").BeginArray();
  if (r.traces) {
    for (const auto& t : r.traces->traces) {
      w.BeginObject()
          .Field("path", t->info.path)
          .Field("rank", t->info.rank)
          .Field("events", static_cast<int64_t>(t->graph.events.size()))
          .EndObject();
    }
  }
  w.EndArray();
  w.EndObject();
}

void WriteReportMarkdown(const AnalysisReport& r, std::ostream& out, const FindingFilter& filter) {
  out << "# tracehound report\n\n";
  out << "**Verdict: " << Verdict(r) << "**";
  if (!r.pipeline.empty()) out << " · pipeline `" << r.pipeline << "`";
  if (r.traces)
    out << " · " << r.traces->traces.size()
        << (r.traces->traces.size() == 1 ? " trace" : " traces");
  GroupedFindings grouped = GroupFindings(r.results.findings, filter);
  std::vector<Change> changes =
      r.traces ? RankChanges(*r.traces, r.results) : std::vector<Change>{};
  const PathChanges by_path = r.traces ? RankChangesByPath(*r.traces, r.results) : PathChanges{};
  if (!grouped.groups.empty() && IsProblem(grouped.groups.front().severity)) {
    const Finding* cause = changes.empty()
                               ? &r.results.findings[grouped.groups.front().members.front()]
                               : changes.front().finding;
    if (!by_path.changes.empty() && by_path.changes.front().share_median > 0)
      cause = by_path.changes.front().finding;
    out << "\n\n**Cause:** " << SeverityLabel(cause->severity) << " · " << cause->plugin << " · "
        << cause->title;
  }
  out << "\n\n## Findings\n\n";
  if (grouped.groups.empty() && r.results.findings.empty()) out << "No finding.\n\n";
  std::string hidden = HiddenText(grouped, filter);
  if (!hidden.empty()) out << "_" << hidden << "._\n\n";
  for (const FindingGroup& g : grouped.groups) {
    const Finding* f = &r.results.findings[g.members.front()];  // the worst scope
    out << "### " << SeverityLabel(g.severity) << " · " << g.plugin << " · " << g.title;
    if (g.members.size() > 1) out << " (" << g.members.size() << " scopes)";
    out << "\n\n";
    if (!g.summary.empty()) out << "**" << g.summary << ".**\n\n";
    if (g.members.size() > 1) {
      out << "| scope | severity | what |\n| --- | --- | --- |\n";
      for (size_t m : g.members) {
        const Finding& x = r.results.findings[m];
        std::string what = x.what;
        for (char& ch : what)
          if (ch == '|' || ch == '\n') ch = ch == '|' ? '/' : ' ';
        out << "| " << ScopeText(x.scope) << " | " << SeverityLabel(x.severity) << " | " << what
            << " |\n";
      }
      out << "\nThe worst scope in full:\n\n";
    }
    if (!f->what.empty()) out << f->what << "\n\n";
    out << "Scope: " << ScopeText(f->scope) << ".";
    if (f->confidence < 1) out << " Confidence " << NumberText(f->confidence) << ".";
    out << "\n\n";
    if (!f->evidence.empty()) {
      out << "| evidence | value | kind |\n| --- | --- | --- |\n";
      for (const Evidence& e : f->evidence)
        out << "| " << e.name << " | " << FigureText(e.value, e.unit) << " | "
            << NumberKindName(e.kind) << " |\n";
      out << "\n";
    }
    if (!f->suggestion.empty()) out << "**Try:** " << f->suggestion << "\n\n";
  }
  out << "## Changes (*inferred*, not run)\n\n";
  WritePathChangesMarkdown(by_path, out);
  if (by_path.available) changes.clear();
  if (!by_path.available)
    out << "No critical path in this run (the `critical-path` plugin is not in the pipeline): "
           "the changes are ranked by saving, not by their share of the critical path.\n\n";
  if (changes.empty() && !by_path.available) out << "No finding carries an inferred saving.\n\n";
  if (!changes.empty())
    out << "Ranked by the saving each finding infers; step time after the change assumes the "
           "saving spreads evenly over the captured steps.\n\n| change | saving | median step "
           "| step after (*inferred*) |\n| --- | --- | --- | --- |\n";
  for (const Change& c : changes) {
    out << "| " << c.finding->plugin << ": " << c.finding->title << " | "
        << FigureText(c.saving_ns, "ns") << " | " << (c.steps ? FigureText(c.step_ns, "ns") : "-")
        << " | " << (c.steps ? FigureText(c.step_after_ns, "ns") : "-") << " |\n";
  }
  if (!changes.empty()) out << "\n";
  CheckTally tally = Tally(r);
  out << "## Checks\n\n" << tally.passed << " of " << tally.total << " checks passed.\n\n";
  if (r.traces) {
    for (const Reconciliation& c : ReconciliationOf(r))
      out << "- "
          << (!c.applicable ? "–"
              : c.passed    ? "✔"
                            : "✘ **failed**")
          << " host: " << c.name << " (" << c.detail << ")\n";
  }
  if (r.results.checks.empty()) out << "No plugin check was run.\n";
  for (const Check& c : r.results.checks)
    out << "- " << (c.passed ? "✔" : "✘ **failed**") << " " << c.plugin << ": " << c.name << " ("
        << c.detail << ")\n";
  out << "\n## Tables\n\n";
  for (const auto& [name, t] : r.results.tables) {
    out << "### " << name << " (" << t.plugin << ", " << t.rows << " rows";
    constexpr size_t kRows = 15;
    if (t.rows > kRows) out << ", first " << kRows << " shown";
    out << ")\n\n|";
    for (const DerivedColumn& c : t.columns) out << " " << c.name << " |";
    out << "\n|";
    for (size_t i = 0; i < t.columns.size(); ++i) out << " --- |";
    out << "\n";
    for (size_t row = 0; row < std::min(t.rows, kRows); ++row) {
      out << "|";
      for (const DerivedColumn& c : t.columns) out << " " << Cell(c, row) << " |";
      out << "\n";
    }
    out << "\n";
  }
  out << "## Plugins\n\n| plugin | version | status | time |\n| --- | --- | --- | --- |\n";
  for (const PluginOutcome& p : r.plugins) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f s", p.seconds);
    std::string status = p.ok ? "ok" : "failed: " + p.error;
    for (const Skip* s : SkipsOf(r, p.id))
      status += "; skipped rank " + std::to_string(s->rank) + ": " + s->reason;
    out << "| " << p.id << " | " << p.version << " | " << status << " | " << buf << " |\n";
  }
  out << "\n## Where the time went\n\nWall-clock seconds, measured; the plugins run at the same "
         "time where their tables allow.\n\n| phase | time |\n| --- | --- |\n";
  for (const auto& [phase, seconds] : TimingRows(r))
    out << "| " << phase << " | " << seconds << " |\n";
  if (!r.results.notes.empty()) {
    out << "\n## Notes\n\nWhat the plugins saw, and what they could not assess:\n\n";
    for (const Note& n : r.results.notes)
      out << "- " << (n.warning ? "**warning** " : "") << n.plugin << ": " << n.text << "\n";
  }
  out << "\n## Trust\n\nWhere this trace cannot be trusted, and how much:\n\n";
  auto trust = AllTrust(r).Entries();
  if (trust.empty())
    out << "No defect found while reading.\n";
  else
    out << "| severity | count | what |\n| --- | --- | --- |\n";
  for (const TrustEntry& e : trust)
    out << "| " << SeverityName(e.severity) << " | " << e.count << " | " << e.what << " |\n";
  if (r.traces) {
    auto questions = OpenQuestionsOf(r);
    if (!questions.empty()) {
      out << "\n## Needs a new capture\n\nQuestions this trace cannot answer, and the capture "
             "that would:\n\n| question | capture |\n| --- | --- |\n";
      for (const OpenQuestion& q : questions)
        out << "| " << q.question << " | " << q.capture << " |\n";
    }
  }
}

void WriteReportTerminal(const AnalysisReport& r, std::ostream& out, const FindingFilter& filter) {
  out << "verdict: " << Verdict(r) << "\n";
  if (r.traces) {
    const PathChanges by_path = RankChangesByPath(*r.traces, r.results);
    auto changes = RankChanges(*r.traces, r.results);
    if (by_path.available && !by_path.changes.empty()) {
      const PathChange& c = by_path.changes.front();
      out << "biggest cause on the critical path (inferred): " << c.finding->plugin << ": "
          << c.finding->title << ", " << ShareText(c.share_median) << " of rank " << c.rank
          << "'s path (step " << FigureText(static_cast<double>(c.step_ns), "ns") << " -> "
          << FigureText(static_cast<double>(c.step_after_ns), "ns") << "; try " << c.knob << ")\n";
    } else if (!by_path.available && !changes.empty()) {
      const Change& c = changes.front();
      out << "biggest change (inferred; by saving, no critical path in the pipeline): "
          << c.finding->plugin << ": " << c.finding->title << ", saves "
          << FigureText(c.saving_ns, "ns");
      if (c.steps)
        out << " (step " << FigureText(c.step_ns, "ns") << " -> "
            << FigureText(c.step_after_ns, "ns") << ")";
      out << "\n";
    }
  }
  GroupedFindings grouped = GroupFindings(r.results.findings, filter);
  for (const FindingGroup& g : grouped.groups) {
    const Finding& f = r.results.findings[g.members.front()];
    out << " " << SeverityLabel(g.severity) << " " << g.plugin << "  " << g.title;
    if (g.members.size() > 1)
      out << ": " << g.summary;
    else if (!f.what.empty())
      out << ": " << f.what;
    out << "\n";
  }
  std::string hidden = HiddenText(grouped, filter);
  if (!hidden.empty()) out << " (" << hidden << ")\n";
  for (const PluginOutcome& p : r.plugins) {
    if (!p.ok) out << " plugin " << p.id << " failed: " << p.error << "\n";
    for (const Skip* s : SkipsOf(r, p.id))
      out << " plugin " << p.id << " skipped rank " << s->rank << ": " << s->reason << "\n";
  }
  CheckTally tally = Tally(r);
  if (tally.total > 0) {
    out << "checks: " << tally.passed << " of " << tally.total << " passed";
    for (const std::string& failed : tally.failed) out << " · failed: " << failed;
    out << "\n";
  }
  size_t warnings = 0;
  for (const Note& n : r.results.notes) warnings += n.warning;
  if (!r.results.notes.empty())
    out << "notes: " << r.results.notes.size() << " (" << warnings
        << (warnings == 1 ? " warning" : " warnings") << "; see the report)\n";
  out << "time:";
  for (const auto& [phase, seconds] : TimingRows(r))
    out << (phase == "import" ? " " : " · ") << phase << " " << seconds;
  out << "\n";
  auto trust = AllTrust(r).Entries();
  out << "trust: ";
  if (trust.empty()) out << "no defects found";
  for (size_t i = 0; i < trust.size() && i < 4; ++i)
    out << (i ? " · " : "") << trust[i].count << " " << trust[i].what;
  if (trust.size() > 4) out << " · (" << trust.size() - 4 << " more in the report)";
  out << "\n";
  if (r.traces) {
    auto questions = OpenQuestionsOf(r);
    if (!questions.empty())
      out << "needs a new capture: " << questions.size()
          << (questions.size() == 1 ? " question" : " questions") << " (see the report)\n";
  }
}

}  // namespace th
