#include "core/report/analysis_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/report/investigation.h"
#include "core/report/json_writer.h"
#include "core/report/trust_json.h"

namespace th {

namespace {

// Findings by severity (P0 first), stable within a severity.
std::vector<const Finding*> Ordered(const AnalysisReport& r) {
  std::vector<const Finding*> out;
  for (const Finding& f : r.results.findings) out.push_back(&f);
  std::stable_sort(out.begin(), out.end(),
                   [](const Finding* a, const Finding* b) { return a->severity < b->severity; });
  return out;
}

// Stable id of a finding: plugin and its position among that plugin's findings.

TrustTable AllTrust(const AnalysisReport& r) {
  TrustTable t;
  if (!r.traces) return t;
  t.Merge(r.traces->trust);
  for (const auto& trace : r.traces->traces) t.Merge(trace->trust);
  return t;
}

std::string Number(double v) {
  char buf[64];
  if (v == static_cast<double>(static_cast<int64_t>(v)) && std::abs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  } else {
    std::snprintf(buf, sizeof buf, "%.4g", v);
  }
  return buf;
}

// "12.345 ms" for ns values, else the number and its unit.
std::string WithUnit(double v, const std::string& unit) {
  char buf[64];
  if (unit == "ns") {
    double a = std::abs(v);
    if (a >= 1e9)
      std::snprintf(buf, sizeof buf, "%.3f s", v / 1e9);
    else if (a >= 1e6)
      std::snprintf(buf, sizeof buf, "%.3f ms", v / 1e6);
    else if (a >= 1e3)
      std::snprintf(buf, sizeof buf, "%.3f us", v / 1e3);
    else
      std::snprintf(buf, sizeof buf, "%.0f ns", v);
    return buf;
  }
  return Number(v) + (unit.empty() || unit == "count" ? "" : " " + unit);
}

std::string ScopeText(const ReportScope& s) {
  std::string out;
  auto add = [&](const char* what, int64_t v) {
    if (v >= 0) out += std::string(out.empty() ? "" : ", ") + what + " " + std::to_string(v);
  };
  add("rank", s.rank);
  add("device", s.device);
  add("stream", s.stream);
  if (s.step_first >= 0) {
    out += std::string(out.empty() ? "" : ", ") + "steps " + std::to_string(s.step_first) + "–" +
           std::to_string(s.step_last);
  }
  return out.empty() ? "all" : out;
}

std::string Cell(const DerivedColumn& c, size_t row) {
  if (auto* i = std::get_if<std::vector<int64_t>>(&c.values))
    return WithUnit(static_cast<double>((*i)[row]), c.unit);
  if (auto* d = std::get_if<std::vector<double>>(&c.values)) return WithUnit((*d)[row], c.unit);
  std::string s = std::get<std::vector<std::string>>(c.values)[row];
  for (char& ch : s)
    if (ch == '|') ch = '/';
  return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

}  // namespace

std::vector<std::string> FindingIds(const AnalysisReport& r) {
  std::map<std::string, int> seen;
  std::vector<std::string> ids;
  for (const Finding& f : r.results.findings)
    ids.push_back(f.plugin + "/" + std::to_string(++seen[f.plugin]));
  return ids;
}

void WriteScopeJson(JsonWriter& w, const ReportScope& s) {
  w.BeginObject();
  auto field = [&](const char* k, int64_t v) {
    w.Key(k);
    v >= 0 ? w.Int(v) : w.Null();
  };
  field("rank", s.rank);
  field("device", s.device);
  field("stream", s.stream);
  field("step_first", s.step_first);
  field("step_last", s.step_last);
  w.EndObject();
}

std::string_view Verdict(const AnalysisReport& r) {
  for (const Finding& f : r.results.findings)
    if (IsProblem(f.severity)) return "NEEDS_ATTENTION";
  return "OPTIMAL";
}

std::vector<const Skip*> SkipsOf(const AnalysisReport& r, const std::string& plugin) {
  std::vector<const Skip*> out;
  for (const Skip& s : r.results.skips)
    if (s.plugin == plugin) out.push_back(&s);
  return out;
}

void WriteReportJson(const AnalysisReport& r, std::ostream& out) {
  JsonWriter w(out);
  std::vector<std::string> ids = FindingIds(r);
  w.BeginObject();
  w.Field("schema_version", kReportSchemaVersion);
  w.Field("verdict", Verdict(r));
  w.Field("pipeline", r.pipeline);
  w.Key("findings").BeginArray();
  for (size_t i = 0; i < r.results.findings.size(); ++i) {
    const Finding& f = r.results.findings[i];
    w.BeginObject();
    w.Field("id", ids[i]).Field("plugin", f.plugin).Field("severity", SeverityLabel(f.severity));
    w.Field("title", f.title).Field("what", f.what);
    w.Key("evidence").BeginArray();
    for (const Evidence& e : f.evidence) {
      w.BeginObject()
          .Field("name", e.name)
          .Field("value", e.value)
          .Field("unit", e.unit)
          .Field("kind", NumberKindName(e.kind))
          .EndObject();
    }
    w.EndArray();
    w.Key("scope");
    WriteScopeJson(w, f.scope);
    w.Key("suggestion");
    f.suggestion.empty() ? w.Null() : w.String(f.suggestion);
    w.Field("confidence", f.confidence);
    w.EndObject();
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
    for (const Reconciliation& c : Reconcile(*r.traces)) {
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
    w.Key("open_questions").BeginArray();
    for (const OpenQuestion& q : OpenQuestions(*r.traces))
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

void WriteReportMarkdown(const AnalysisReport& r, std::ostream& out) {
  out << "# tracehound report\n\n";
  out << "**Verdict: " << Verdict(r) << "**";
  if (!r.pipeline.empty()) out << " · pipeline `" << r.pipeline << "`";
  if (r.traces)
    out << " · " << r.traces->traces.size()
        << (r.traces->traces.size() == 1 ? " trace" : " traces");
  auto ordered = Ordered(r);
  std::vector<Change> changes =
      r.traces ? RankChanges(*r.traces, r.results) : std::vector<Change>{};
  if (!ordered.empty() && IsProblem(ordered.front()->severity)) {
    const Finding* cause = changes.empty() ? ordered.front() : changes.front().finding;
    out << "\n\n**Cause:** " << SeverityLabel(cause->severity) << " · " << cause->plugin << " · "
        << cause->title;
  }
  out << "\n\n## Findings\n\n";
  if (ordered.empty()) out << "No finding.\n\n";
  for (const Finding* f : ordered) {
    out << "### " << SeverityLabel(f->severity) << " · " << f->plugin << " · " << f->title
        << "\n\n";
    if (!f->what.empty()) out << f->what << "\n\n";
    out << "Scope: " << ScopeText(f->scope) << ".";
    if (f->confidence < 1) out << " Confidence " << Number(f->confidence) << ".";
    out << "\n\n";
    if (!f->evidence.empty()) {
      out << "| evidence | value | kind |\n| --- | --- | --- |\n";
      for (const Evidence& e : f->evidence)
        out << "| " << e.name << " | " << WithUnit(e.value, e.unit) << " | "
            << NumberKindName(e.kind) << " |\n";
      out << "\n";
    }
    if (!f->suggestion.empty()) out << "**Try:** " << f->suggestion << "\n\n";
  }
  out << "## Changes (*inferred*, not run)\n\n";
  if (changes.empty()) out << "No finding carries an inferred saving.\n\n";
  if (!changes.empty())
    out << "Ranked by the saving each finding infers; step time after the change assumes the "
           "saving spreads evenly over the captured steps.\n\n| change | saving | median step "
           "| step after (*inferred*) |\n| --- | --- | --- | --- |\n";
  for (const Change& c : changes) {
    out << "| " << c.finding->plugin << ": " << c.finding->title << " | "
        << WithUnit(c.saving_ns, "ns") << " | " << (c.steps ? WithUnit(c.step_ns, "ns") : "-")
        << " | " << (c.steps ? WithUnit(c.step_after_ns, "ns") : "-") << " |\n";
  }
  if (!changes.empty()) out << "\n";
  out << "## Checks\n\n";
  if (r.traces) {
    for (const Reconciliation& c : Reconcile(*r.traces))
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
  out << "\n## Trust\n\nWhere this trace cannot be trusted, and how much:\n\n";
  auto trust = AllTrust(r).Entries();
  if (trust.empty())
    out << "No defect found while reading.\n";
  else
    out << "| severity | count | what |\n| --- | --- | --- |\n";
  for (const TrustEntry& e : trust)
    out << "| " << SeverityName(e.severity) << " | " << e.count << " | " << e.what << " |\n";
  if (r.traces) {
    auto questions = OpenQuestions(*r.traces);
    if (!questions.empty()) {
      out << "\n## Needs a new capture\n\nQuestions this trace cannot answer, and the capture "
             "that would:\n\n| question | capture |\n| --- | --- |\n";
      for (const OpenQuestion& q : questions)
        out << "| " << q.question << " | " << q.capture << " |\n";
    }
  }
}

void WriteReportTerminal(const AnalysisReport& r, std::ostream& out) {
  out << "verdict: " << Verdict(r) << "\n";
  if (r.traces) {
    auto changes = RankChanges(*r.traces, r.results);
    if (!changes.empty()) {
      const Change& c = changes.front();
      out << "biggest change (inferred): " << c.finding->plugin << ": " << c.finding->title
          << ", saves " << WithUnit(c.saving_ns, "ns");
      if (c.steps)
        out << " (step " << WithUnit(c.step_ns, "ns") << " -> " << WithUnit(c.step_after_ns, "ns")
            << ")";
      out << "\n";
    }
  }
  for (const Finding* f : Ordered(r)) {
    out << " " << SeverityLabel(f->severity) << " " << f->plugin << "  " << f->title;
    if (!f->what.empty()) out << ": " << f->what;
    out << "\n";
  }
  for (const PluginOutcome& p : r.plugins) {
    if (!p.ok) out << " plugin " << p.id << " failed: " << p.error << "\n";
    for (const Skip* s : SkipsOf(r, p.id))
      out << " plugin " << p.id << " skipped rank " << s->rank << ": " << s->reason << "\n";
  }
  size_t passed = 0;
  for (const Check& c : r.results.checks) passed += c.passed;
  if (!r.results.checks.empty()) {
    out << "checks: " << passed << " of " << r.results.checks.size() << " passed";
    for (const Check& c : r.results.checks)
      if (!c.passed) out << " · failed: " << c.plugin << ": " << c.name;
    out << "\n";
  }
  auto trust = AllTrust(r).Entries();
  out << "trust: ";
  if (trust.empty()) out << "no defects found";
  for (size_t i = 0; i < trust.size() && i < 4; ++i)
    out << (i ? " · " : "") << trust[i].count << " " << trust[i].what;
  if (trust.size() > 4) out << " · (" << trust.size() - 4 << " more in the report)";
  out << "\n";
  if (r.traces) {
    auto questions = OpenQuestions(*r.traces);
    if (!questions.empty())
      out << "needs a new capture: " << questions.size()
          << (questions.size() == 1 ? " question" : " questions") << " (see the report)\n";
  }
}

}  // namespace th
