#include "core/report/plugin_results_json.h"

#include <optional>
#include <type_traits>
#include <variant>

#include "core/report/analysis_report.h"
#include "core/report/finding_json.h"
#include "core/report/json_writer.h"

namespace th {
namespace {

void WriteOptional(JsonWriter& w, std::string_view key, const std::optional<double>& v) {
  w.Key(key);
  v ? w.Double(*v) : w.Null();
}

void WriteFinding(JsonWriter& w, const Finding& f) {
  w.BeginObject();
  w.Field("plugin", f.plugin);
  w.Field("severity", SeverityLabel(f.severity));
  w.Field("title", f.title);
  w.Field("what", f.what);
  w.Field("suggestion", f.suggestion);
  w.Field("confidence", f.confidence);
  w.Key("scope");
  WriteScopeJson(w, f.scope);
  w.Key("evidence");
  WriteEvidenceJson(w, f.evidence);
  WriteOptional(w, "time_lost_ns", f.time_lost_ns);
  WriteOptional(w, "saving_ns", f.saving_ns);
  w.Field("group", f.group);
  w.Key("range");
  if (f.range) {
    w.BeginArray().Int(f.range->first).Int(f.range->second).EndArray();
  } else {
    w.Null();
  }
  w.EndObject();
}

void WriteTable(JsonWriter& w, const DerivedTable& t) {
  w.BeginObject();
  w.Field("name", t.name);
  w.Field("plugin", t.plugin);
  w.Field("view", t.view);
  w.Field("rows", static_cast<int64_t>(t.rows));
  w.Key("columns").BeginArray();
  for (const DerivedColumn& c : t.columns) {
    w.BeginObject();
    w.Field("name", c.name);
    w.Field("unit", c.unit);
    w.Key("values").BeginArray();
    std::visit(
        [&](const auto& values) {
          for (const auto& v : values) {
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, int64_t>)
              w.Int(v);
            else if constexpr (std::is_same_v<V, double>)
              w.Double(v);
            else
              w.String(v);
          }
        },
        c.values);
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

void WritePluginResultsJson(const PluginResults& r, std::ostream& out) {
  JsonWriter w(out);
  w.BeginObject();
  w.Key("findings").BeginArray();
  for (const Finding& f : r.findings) WriteFinding(w, f);
  w.EndArray();
  w.Key("metrics").BeginArray();
  for (const Metric& m : r.metrics) {
    w.BeginObject();
    w.Field("plugin", m.plugin);
    w.Field("name", m.name);
    w.Field("value", m.value);
    w.Field("unit", m.unit);
    w.Field("kind", NumberKindName(m.kind));
    w.Key("scope");
    WriteScopeJson(w, m.scope);
    w.EndObject();
  }
  w.EndArray();
  w.Key("tables").BeginArray();
  for (const auto& [name, table] : r.tables) WriteTable(w, table);
  w.EndArray();
  w.Key("checks").BeginArray();
  for (const Check& c : r.checks) {
    w.BeginObject();
    w.Field("plugin", c.plugin);
    w.Field("name", c.name);
    w.Field("passed", c.passed);
    w.Field("detail", c.detail);
    w.EndObject();
  }
  w.EndArray();
  w.Key("skips").BeginArray();
  for (const Skip& s : r.skips) {
    w.BeginObject();
    w.Field("plugin", s.plugin);
    w.Field("rank", s.rank);
    w.Field("reason", s.reason);
    w.EndObject();
  }
  w.EndArray();
  w.Key("notes").BeginArray();
  for (const Note& n : r.notes) {
    w.BeginObject();
    w.Field("plugin", n.plugin);
    w.Field("warning", n.warning);
    w.Field("text", n.text);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace th
