#include "core/diff/diff_json.h"

#include <sstream>

#include "core/report/json_writer.h"

namespace th::diff {
namespace {

void WriteSide(JsonWriter& w, const SideSummary& s) {
  w.BeginObject().Field("label", s.label).Key("inputs").BeginArray();
  for (const std::string& i : s.inputs) w.String(i);
  w.EndArray()
      .Field("ranks", s.ranks)
      .Field("steps", s.steps)
      .Field("warmup_left_out", s.warmup_left_out)
      .Field("step_source", s.step_source)
      .Field("kind", s.kind)
      .Field("device", s.device)
      .Field("world_size", s.world_size)
      .EndObject();
}

void WriteFigures(JsonWriter& w, const char* side, const SideFigures& f) {
  const std::string p(side);
  w.Field(p + "_count", f.count)
      .Field(p + "_time_ns", f.time_ns)
      .Field(p + "_time_per_step_ns", f.time_per_step_ns)
      .Field(p + "_spread_ns", f.spread_ns);
}

void WriteAggregate(JsonWriter& w, const DiffResult& r) {
  w.Key("totals").BeginArray();
  for (const ClassTotal& t : r.totals)
    w.BeginObject()
        .Field("class", EventClassName(t.cls))
        .Field("a_count", t.a_count)
        .Field("a_time_ns", t.a_time_ns)
        .Field("b_count", t.b_count)
        .Field("b_time_ns", t.b_time_ns)
        .EndObject();
  w.EndArray().Key("aggregate").BeginArray();
  for (const AggregateRow& row : r.aggregate) {
    w.BeginObject()
        .Field("class", EventClassName(row.cls))
        .Field("name", row.name)
        .Field("status", RowStatusName(row.status));
    WriteFigures(w, "a", row.a);
    WriteFigures(w, "b", row.b);
    w.Field("delta_ns", row.delta_ns).Key("delta_pct");
    if (row.has_pct)
      w.Double(row.delta_pct);
    else
      w.Null();
    w.Field("noise_ns", row.noise_ns).EndObject();
  }
  w.EndArray();
}

void WriteStructure(JsonWriter& w, const DiffResult& r) {
  w.Key("structure").BeginArray();
  for (const StepPair& p : r.structure) {
    w.BeginObject()
        .Field("a_rank", p.a_rank)
        .Field("a_step", p.a_step)
        .Field("b_rank", p.b_rank)
        .Field("b_step", p.b_step)
        .Field("matched", p.matched)
        .Field("a_unmatched", p.a_unmatched)
        .Field("b_unmatched", p.b_unmatched)
        .Field("rows_left_out", p.rows_left_out)
        .Key("rows")
        .BeginArray();
    for (const StructuralRow& row : p.rows) {
      w.BeginObject().Field("kind", row.kind).Field("level", row.level).Key("path").BeginArray();
      for (const std::string& s : row.path) w.String(s);
      w.EndArray()
          .Field("a_name", row.a_name)
          .Field("b_name", row.b_name)
          .Field("a_device_ns", row.a_device_ns)
          .Field("b_device_ns", row.b_device_ns)
          .Field("delta_ns", row.b_device_ns - row.a_device_ns)
          .EndObject();
    }
    w.EndArray().EndObject();
  }
  w.EndArray();
}

void WriteAttribution(JsonWriter& w, const Attribution& a) {
  w.Key("attribution")
      .BeginObject()
      .Field("available", a.available)
      .Field("a_step_ns", a.a_step_ns)
      .Field("b_step_ns", a.b_step_ns)
      .Field("delta_ns", a.delta_ns)
      .Key("contributors")
      .BeginArray();
  for (const Contributor& c : a.contributors)
    w.BeginObject()
        .Field("category", c.category)
        .Field("a_ns", c.a_ns)
        .Field("b_ns", c.b_ns)
        .Field("delta_ns", c.delta_ns)
        .EndObject();
  w.EndArray().EndObject();
}

}  // namespace

std::string DiffJson(const DiffResult& r) {
  std::ostringstream out;
  {
    JsonWriter w(out);
    const DiffOptions& o = r.options;
    w.BeginObject()
        .Field("schema", "tracehound.diff/1")
        .Key("options")
        .BeginObject()
        .Field("threshold_ns", o.threshold_ns)
        .Field("all_steps", o.all_steps)
        .Field("all_classes", o.all_classes)
        .Field("max_structural", o.max_structural)
        .Field("max_step_pairs", o.max_step_pairs)
        .Field("hta", o.hta)
        .EndObject();
    w.Key("a");
    WriteSide(w, r.a);
    w.Key("b");
    WriteSide(w, r.b);
    w.Key("warnings").BeginArray();
    for (const std::string& s : r.warnings) w.String(s);
    w.EndArray();
    WriteAttribution(w, r.attribution);
    WriteAggregate(w, r);
    WriteStructure(w, r);
    w.EndObject();
  }
  return out.str();
}

}  // namespace th::diff
