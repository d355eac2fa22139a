#include "core/report/html_report.h"

#include <tbb/parallel_invoke.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "core/graph/text_escape.h"
#include "core/report/finding_json.h"
#include "core/report/html_assets.h"
#include "core/report/investigation.h"
#include "core/report/json_writer.h"
#include "core/report/output_file.h"
#include "core/report/path_changes.h"
#include "core/report/path_changes_text.h"
#include "core/report/report_panels.h"
#include "core/report/trust_json.h"

namespace th {

namespace {

PanelRows RowsOf(const DerivedTable& t) {
  const ReportPanel* panel = FindPanel(t.view);
  return panel ? panel->rows : PanelRows::kOther;
}

// The first `max` bytes of `s`, cut on a UTF-8 character boundary.
std::string_view Cut(std::string_view s, size_t max) {
  if (s.size() <= max) return s;
  while (max > 0 && (static_cast<unsigned char>(s[max]) & 0xC0) == 0x80) --max;
  return s.substr(0, max);
}

void WriteTables(JsonWriter& w, const AnalysisReport& r, const HtmlReportLimits& limits,
                 std::vector<std::string>* reductions) {
  // The columns each panel reads: report.js refuses (console.error) to read
  // any other, so a panel and its registry entry cannot drift apart.
  w.Key("panels").BeginObject();
  for (const ReportPanel& p : ReportPanels()) {
    w.Key(p.view).BeginArray();
    for (const auto& [column, type] : p.columns) w.String(column);
    w.EndArray();
  }
  w.EndObject();
  w.Key("tables").BeginObject();
  for (const auto& [name, t] : r.results.tables) {
    const PanelRows rows = RowsOf(t);
    size_t cap = rows == PanelRows::kGrid   ? limits.max_grid_rows
                 : rows == PanelRows::kMain ? limits.max_table_rows
                                            : limits.max_other_rows;
    size_t shown = std::min(t.rows, cap);
    if (shown < t.rows) {
      reductions->push_back("table " + name + ": first " + std::to_string(shown) + " of " +
                            std::to_string(t.rows) + " rows (in the plugin's order)");
    }
    size_t cut = 0;
    size_t max_chars =
        rows == PanelRows::kMain ? limits.max_main_cell_chars : limits.max_cell_chars;
    w.Key(name).BeginObject();
    w.Field("plugin", t.plugin).Field("view", t.view).Field("rows", static_cast<int64_t>(t.rows));
    w.Field("shown", static_cast<int64_t>(shown));
    w.Key("columns").BeginArray();
    for (const DerivedColumn& c : t.columns) {
      w.BeginObject().Field("name", c.name).Field("unit", c.unit);
      w.Key("values").BeginArray();
      size_t n = std::min(shown, c.size());
      if (auto* i = std::get_if<std::vector<int64_t>>(&c.values)) {
        for (size_t k = 0; k < n; ++k) w.Int((*i)[k]);
      } else if (auto* d = std::get_if<std::vector<double>>(&c.values)) {
        for (size_t k = 0; k < n; ++k) w.Double((*d)[k]);
      } else {
        const TextColumn& s = std::get<TextColumn>(c.values);
        for (size_t k = 0; k < n; ++k) {
          if (s[k].size() > max_chars) ++cut;
          w.String(Cut(s[k], max_chars));
        }
      }
      w.EndArray().EndObject();
    }
    w.EndArray().EndObject();
    if (cut) {
      reductions->push_back("table " + name + ": " + std::to_string(cut) + " text cells cut to " +
                            std::to_string(max_chars) + " bytes");
    }
  }
  w.EndObject();
}

// Where a finding lies on the swimlane: the lanes of its scope and the span
// of their events in the shown window.
// The same place for `tracehound serve` run on the report's traces in their
// order: the trace (the viewer's run) and the window on that trace's own clock,
// as decimal strings (nanoseconds since the epoch do not fit a JS number).
void WriteServePlace(JsonWriter& w, const Finding& f, const Swimlane& s, int64_t t0, int64_t t1) {
  const RankWindow* window = nullptr;
  for (const RankWindow& x : s.windows)
    if (x.rank == f.scope.rank) window = &x;
  if (!window && !s.windows.empty()) window = &s.windows.front();
  if (!window) return;
  w.Key("serve").BeginObject().Field("run", static_cast<int64_t>(window->trace));
  w.Field("abs0", std::to_string(t0 + window->shift_ns));
  w.Field("abs1", std::to_string(t1 + window->shift_ns)).EndObject();
}

void WritePlace(JsonWriter& w, const Finding& f, const Swimlane& s) {
  w.BeginObject();
  if (!s.available) {
    w.Field("shown", false).Field("note", "no swimlane: " + s.reason).EndObject();
    return;
  }
  std::vector<uint32_t> lanes;
  for (uint32_t i = 0; i < s.lanes.size(); ++i) {
    const SwimlaneLane& l = s.lanes[i];
    if (f.scope.rank >= 0 && l.rank != f.scope.rank) continue;
    if (f.scope.stream >= 0 && (!l.gpu || l.stream != f.scope.stream)) continue;
    if (f.scope.device >= 0 && f.scope.stream < 0 && (!l.gpu || l.device != f.scope.device))
      continue;
    if (f.scope.device >= 0 && l.gpu && l.device != f.scope.device) continue;
    lanes.push_back(i);
  }
  int64_t t0 = INT64_MAX, t1 = INT64_MIN;
  for (const SwimlaneEvent& e : s.events) {
    if (!std::binary_search(lanes.begin(), lanes.end(), e.lane)) continue;
    t0 = std::min(t0, e.ts);
    t1 = std::max(t1, e.ts + e.dur);
  }
  std::string note;
  if (lanes.empty()) {
    note = "its scope has no lane on the swimlane; the whole step is shown";
    for (uint32_t i = 0; i < s.lanes.size(); ++i) lanes.push_back(i);
  }
  if (t0 > t1) {
    t0 = 0;
    t1 = s.span_ns;
  }
  // The time range the plugin states (Finding::At), on the axis of its rank.
  if (f.range) {
    const RankWindow* w = nullptr;
    for (const RankWindow& x : s.windows)
      if (x.rank == f.scope.rank) w = &x;
    if (!w && f.scope.rank < 0 && !s.windows.empty()) w = &s.windows.front();
    if (w) {
      const int64_t a = f.range->first - w->shift_ns, b = f.range->second - w->shift_ns;
      if (b >= 0 && a <= s.span_ns && a <= b) {
        t0 = a;
        t1 = b;
      } else if (note.empty()) {
        note = "its time range lies outside the shown window";
      }
    }
  }
  t0 = std::max<int64_t>(0, t0);
  t1 = std::min(s.span_ns, t1);
  if (s.has_step && f.scope.step_first >= 0 &&
      (s.step < f.scope.step_first || s.step > f.scope.step_last)) {
    note = "the finding covers steps " + std::to_string(f.scope.step_first) + "–" +
           std::to_string(f.scope.step_last) + "; the swimlane shows step " +
           std::to_string(s.step);
  }
  w.Field("shown", true).Field("t0", t0).Field("t1", t1);
  w.Key("lanes").BeginArray();
  for (uint32_t l : lanes) w.Int(l);
  w.EndArray();
  if (!note.empty()) w.Field("note", note);
  WriteServePlace(w, f, s, t0, t1);
  w.EndObject();
}

void WriteSwimlane(JsonWriter& w, const Swimlane& s, std::vector<std::string>* reductions) {
  w.Key("swimlane").BeginObject();
  w.Field("available", s.available);
  if (!s.available) w.Field("reason", s.reason);
  w.Field("choice", s.choice).Field("alignment", s.alignment);
  w.Key("step");
  s.has_step ? w.Int(s.step) : w.Null();
  w.Field("span_ns", s.span_ns);
  w.Field("total_events", s.total_events)
      .Field("kept_events", static_cast<int64_t>(s.events.size()));
  if (s.names_cut) {
    reductions->push_back("swimlane: " + std::to_string(s.names_cut) +
                          " event names shortened (hover shows the start of the name)");
  }
  if (static_cast<int64_t>(s.events.size()) < s.total_events) {
    reductions->push_back("swimlane: " + std::to_string(s.events.size()) + " of " +
                          std::to_string(s.total_events) +
                          " events of the shown window kept (the longest); each lane's busy "
                          "share per pixel bucket is drawn from all of them");
  }
  w.Key("windows").BeginArray();
  for (const RankWindow& r : s.windows) {
    w.BeginObject().Field("rank", r.rank).Field("begin_ns", r.begin_ns).Field("end_ns", r.end_ns);
    w.Field("shift_ns", r.shift_ns).EndObject();
  }
  w.EndArray();
  w.Key("kinds").BeginArray();
  for (int k = 0; k < static_cast<int>(EventKind::kCount); ++k)
    w.String(EventKindName(static_cast<EventKind>(k)));
  w.EndArray();
  w.Key("lanes").BeginArray();
  for (const SwimlaneLane& l : s.lanes) {
    w.BeginObject().Field("rank", l.rank).Field("gpu", l.gpu).Field("name", l.name);
    w.Field("device", static_cast<int64_t>(l.device)).Field("stream", l.stream);
    w.Field("depth", l.depth).Field("events", l.events);
    if (!l.density.empty()) {
      w.Key("density").BeginArray();
      for (uint8_t d : l.density) w.Int(d);
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("names").BeginArray();
  for (const std::string& n : s.names) w.String(n);
  w.EndArray();
  // Columnar events: lane, ts, dur, name, depth, kind, launch.
  w.Key("events").BeginObject();
  auto column = [&](const char* key, auto get) {
    w.Key(key).BeginArray();
    for (const SwimlaneEvent& e : s.events) w.Int(get(e));
    w.EndArray();
  };
  column("lane", [](const SwimlaneEvent& e) { return static_cast<int64_t>(e.lane); });
  column("ts", [](const SwimlaneEvent& e) { return e.ts; });
  column("dur", [](const SwimlaneEvent& e) { return e.dur; });
  column("name", [](const SwimlaneEvent& e) { return static_cast<int64_t>(e.name); });
  column("depth", [](const SwimlaneEvent& e) { return static_cast<int64_t>(e.depth); });
  column("kind", [](const SwimlaneEvent& e) { return static_cast<int64_t>(e.kind); });
  column("launch", [](const SwimlaneEvent& e) { return e.launch; });
  w.EndObject();
  w.EndObject();
}

void WriteMemory(JsonWriter& w, const MemoryTimeline& m, const TimelineLimits& limits,
                 std::vector<std::string>* reductions) {
  w.Key("memory").BeginObject();
  w.Field("memory_events", m.memory_events).Field("devices", m.devices);
  if (m.devices > static_cast<int64_t>(m.series.size())) {
    reductions->push_back("memory: " + std::to_string(m.series.size()) + " of " +
                          std::to_string(m.devices) + " devices drawn");
  }
  bool bucketed = false;
  w.Key("series").BeginArray();
  for (const MemorySeries& s : m.series) {
    bucketed = bucketed || static_cast<int64_t>(s.t.size()) < s.events;
    w.BeginObject().Field("rank", s.rank).Field("device_type", s.device_type);
    w.Field("device_name", s.device_name);
    w.Field("device", s.device).Field("events", s.events).Field("cumulative", s.cumulative);
    w.Field("capacity", s.capacity).Field("peak", s.peak).Field("tier", s.tier);
    w.Field("origin_ns", s.origin_ns);
    for (const auto& [key, v] :
         {std::make_pair("t", &s.t), std::make_pair("allocated", &s.allocated),
          std::make_pair("reserved", &s.reserved)}) {
      w.Key(key).BeginArray();
      for (int64_t x : *v) w.Int(x);
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  if (bucketed) {
    reductions->push_back("memory: allocator events reduced to the maximum per time bucket (" +
                          std::to_string(limits.memory_buckets) + " buckets per device)");
  }
}

}  // namespace

void WriteHtmlReportData(const AnalysisReport& r, const HtmlReportLimits& limits, std::ostream& out,
                         const FindingFilter& filter) {
  std::vector<std::string> reductions;
  Swimlane swimlane;
  MemoryTimeline memory;
  tbb::parallel_invoke([&] { swimlane = BuildSwimlane(r, limits.timeline); },
                       [&] { memory = BuildMemoryTimeline(r, limits.timeline); });
  std::vector<std::string> ids = FindingIds(r);

  JsonWriter w(out, JsonStyle::kCompact);
  w.BeginObject();
  w.Field("schema_version", kReportSchemaVersion);
  w.Field("verdict", Verdict(r)).Field("pipeline", r.pipeline);
  w.Key("traces").BeginArray();
  if (r.traces) {
    for (const auto& t : r.traces->traces) {
      w.BeginObject().Field("path", t->info.path).Field("format", t->info.format);
      w.Field("rank", t->info.rank).Field("events", static_cast<int64_t>(t->graph.events.size()));
      w.Field("file_bytes", static_cast<int64_t>(t->info.file_bytes));
      w.Key("devices").BeginArray();
      for (const DeviceInfo& d : t->info.devices) {
        w.BeginObject().Field("id", d.id).Field("name", d.name);
        w.Field("memory", d.total_global_mem).Field("sms", d.num_sms).EndObject();
      }
      w.EndArray().EndObject();
    }
  }
  w.EndArray();

  GroupedFindings grouped = GroupFindings(r.results.findings, filter);
  std::vector<const FindingGroup*> group_of(r.results.findings.size(), nullptr);
  w.Key("groups").BeginArray();
  for (const FindingGroup& g : grouped.groups) {
    w.BeginObject().Field("id", g.id).Field("severity", SeverityLabel(g.severity));
    w.Key("summary");
    g.summary.empty() ? w.Null() : w.String(g.summary);
    w.Key("findings").BeginArray();
    for (size_t m : g.members) {
      w.String(ids[m]);
      group_of[m] = &g;
    }
    w.EndArray().EndObject();
  }
  w.EndArray();
  w.Field("findings_left_out", static_cast<int64_t>(grouped.hidden_findings));
  w.Key("findings").BeginArray();
  for (size_t i = 0; i < r.results.findings.size(); ++i) {
    const Finding& f = r.results.findings[i];
    if (!group_of[i]) continue;
    WriteFindingJson(
        w, f,
        {.layout = kHtmlFindingJson,
         .leading = [&](JsonWriter& o) { o.Field("id", ids[i]).Field("group", group_of[i]->id); },
         .trailing =
             [&](JsonWriter& o) {
               o.Key("place");
               WritePlace(o, f, swimlane);
             }});
  }
  w.EndArray();

  w.Key("checks").BeginArray();
  if (r.traces) {
    for (const Reconciliation& c : ReconciliationOf(r)) {
      w.BeginObject().Field("source", "host").Field("name", c.name);
      w.Field("status", !c.applicable ? "n/a" : c.passed ? "passed" : "failed");
      w.Field("detail", c.detail).EndObject();
    }
  }
  for (const Check& c : r.results.checks) {
    w.BeginObject().Field("source", c.plugin).Field("name", c.name);
    w.Field("status", c.passed ? "passed" : "failed").Field("detail", c.detail).EndObject();
  }
  w.EndArray();

  w.Key("changes").BeginArray();
  if (r.traces) {
    for (const Change& c : RankChanges(*r.traces, r.results)) {
      w.BeginObject();
      w.Field("finding", ids[static_cast<size_t>(c.finding - r.results.findings.data())]);
      w.Field("saving_ns", c.saving_ns).Field("steps", c.steps);
      if (c.steps) w.Field("median_step_ns", c.step_ns).Field("step_after_ns", c.step_after_ns);
      w.EndObject();
    }
  }
  w.EndArray();
  if (r.traces) {
    w.Key("changes_by_path");
    WritePathChangesJson(w, RankChangesByPath(*r.traces, r.results), r.results.findings, ids);
  }
  w.Key("open_questions").BeginArray();
  if (r.traces) {
    for (const OpenQuestion& q : OpenQuestionsOf(r))
      w.BeginObject().Field("question", q.question).Field("capture", q.capture).EndObject();
  }
  w.EndArray();

  TrustTable trust;
  if (r.traces) {
    trust.Merge(r.traces->trust);
    for (const auto& t : r.traces->traces) trust.Merge(t->trust);
  }
  w.Key("trust");
  WriteTrustJson(w, trust.Entries());

  w.Key("plugins").BeginArray();
  for (const PluginOutcome& p : r.plugins) {
    w.BeginObject().Field("id", p.id).Field("version", p.version).Field("ok", p.ok);
    w.Field("error", p.error).Field("seconds", p.seconds);
    w.Key("skipped").BeginArray();
    for (const Skip* s : SkipsOf(r, p.id))
      w.BeginObject().Field("rank", s->rank).Field("reason", s->reason).EndObject();
    w.EndArray().EndObject();
  }
  w.EndArray();
  w.Key("timing");
  WriteTimingJson(w, r);

  size_t metrics = std::min(r.results.metrics.size(), limits.max_metrics);
  if (metrics < r.results.metrics.size()) {
    reductions.push_back("metrics: first " + std::to_string(metrics) + " of " +
                         std::to_string(r.results.metrics.size()));
  }
  w.Key("metrics").BeginArray();
  for (size_t i = 0; i < metrics; ++i) {
    const Metric& m = r.results.metrics[i];
    w.BeginObject().Field("plugin", m.plugin).Field("name", m.name).Field("unit", m.unit);
    w.Field("value", m.value).Field("kind", NumberKindName(m.kind));
    w.Key("scope");
    WriteScopeJson(w, m.scope);
    w.EndObject();
  }
  w.EndArray();

  WriteTables(w, r, limits, &reductions);
  WriteSwimlane(w, swimlane, &reductions);
  WriteMemory(w, memory, limits.timeline, &reductions);
  w.Key("reductions").BeginArray();
  for (const std::string& s : reductions) w.String(s);
  w.EndArray();
  w.EndObject();
}

std::string RenderHtmlReport(const AnalysisReport& r, const HtmlReportLimits& limits,
                             const FindingFilter& filter) {
  std::ostringstream data;
  WriteHtmlReportData(r, limits, data, filter);
  const HtmlAssets& a = EmbeddedHtmlAssets();
  std::string page;
  page.reserve(data.str().size() + a.report_js.size() + a.uplot_js.size() + 65536);
  page +=
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
      "connect-src 'none'; form-action 'none'; base-uri 'none'\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<link rel=\"icon\" href=\"data:,\">\n"
      "<title>tracehound report</title>\n<style>\n";
  page += a.uplot_css;
  page += "\n";
  page += a.report_css;
  page +=
      "\n</style>\n</head>\n<body>\n<noscript>This report draws its sections with "
      "JavaScript; the same findings are in the Markdown and JSON outputs.</noscript>\n"
      "<div id=\"app\"></div>\n<script id=\"th-data\" type=\"application/json\">";
  page += ScriptSafeJson(data.str());
  page += "</script>\n<script>\n/* uPlot ";
  page += a.uplot_version;
  page += ", MIT licence:\n";
  page += a.uplot_license;
  page += "*/\n";
  page += a.uplot_js;
  page += "\n</script>\n<script>\n";
  page += a.report_js;
  page += "\n</script>\n</body>\n</html>\n";
  return page;
}

Status WriteHtmlReport(const AnalysisReport& r, const std::string& path,
                       const HtmlReportLimits& limits, const FindingFilter& filter) {
  return WriteOutput(path, RenderHtmlReport(r, limits, filter));
}

}  // namespace th
