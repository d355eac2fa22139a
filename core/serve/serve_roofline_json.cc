#include "core/serve/serve_roofline_json.h"

#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "core/report/json_writer.h"
#include "core/serve/derived_table_reader.h"

namespace th::serve {
namespace {

struct Roof {
  std::string device, peak, source;
  double flops = 0, bytes_per_s = 0;
  int64_t ops = 0;
};

// The kind of an op row's F and B by where they come from (roofline_ops'
// cost_source): the runtime's own figures are read, the models' inferred.
const char* CostKind(const std::string& source) {
  if (source == "runtime") return "read";
  if (source == "mixed") return "inferred and read";
  return "inferred";
}

void WriteOps(JsonWriter& w, const DerivedTableReader& t) {
  w.Key("ops").BeginArray();
  for (size_t i = 0; i < t.rows(); ++i) {
    w.BeginObject().Field("rank", t.Int("rank", i)).Field("device", t.Text("device", i));
    w.Field("name", t.Text("name", i)).Field("dtype", t.Text("dtype", i));
    w.Field("unit", t.Text("unit", i)).Field("input_dims", t.Text("input_dims", i));
    w.Field("count", t.Int("count", i)).Field("flops", t.Int("flops", i));
    w.Field("bytes", t.Int("bytes", i)).Field("time_ns", t.Int("time", i));
    w.Field("flops_per_s", t.Real("flops_per_s", i));
    w.Field("bytes_per_s", t.Real("bytes_per_s", i));
    w.Field("intensity", t.Real("intensity", i)).Field("peak_flops", t.Real("peak_flops", i));
    w.Field("peak_bytes_per_s", t.Real("peak_bytes_per_s", i)).Field("peak", t.Text("peak", i));
    w.Field("bound", t.Text("bound", i)).Field("efficiency", t.Real("efficiency", i));
    w.Field("peak_source", t.Text("peak_source", i));
    const std::string source = t.Text("cost_source", i);
    w.Field("cost_source", source).Field("cost_kind", CostKind(source)).EndObject();
  }
  w.EndArray();
}

// The roofs the rows were held to, in the order rows first name them; a row
// without a peak (bound "unknown") names none.
std::vector<Roof> Roofs(const DerivedTableReader& t) {
  std::vector<Roof> roofs;
  std::map<std::pair<std::string, std::string>, size_t> seen;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.Real("peak_flops", i) <= 0 && t.Real("peak_bytes_per_s", i) <= 0) continue;
    auto key = std::pair{t.Text("device", i), t.Text("peak", i)};
    auto [it, fresh] = seen.emplace(key, roofs.size());
    if (fresh)
      roofs.push_back({key.first, key.second, t.Text("peak_source", i), t.Real("peak_flops", i),
                       t.Real("peak_bytes_per_s", i), 0});
    ++roofs[it->second].ops;
  }
  return roofs;
}

void WriteRoofs(JsonWriter& w, const std::vector<Roof>& roofs) {
  w.Key("roofs").BeginArray();
  for (const Roof& r : roofs) {
    const size_t space = r.peak.find(' ');
    const bool split = space != std::string::npos;
    w.BeginObject().Field("device", r.device).Field("peak", r.peak);
    w.Field("unit", split ? r.peak.substr(0, space) : "");
    w.Field("dtype", split ? r.peak.substr(space + 1) : r.peak);
    w.Field("peak_flops", r.flops).Field("peak_bytes_per_s", r.bytes_per_s);
    w.Field("source", r.source).Field("ops", r.ops).EndObject();
  }
  w.EndArray();
}

void WriteSteps(JsonWriter& w, const DerivedTableReader& t) {
  w.Key("steps").BeginArray();
  for (size_t i = 0; i < t.rows(); ++i) {
    w.BeginObject().Field("rank", t.Int("rank", i)).Field("step", t.Int("step", i));
    w.Field("window_ns", t.Int("window", i)).Field("busy_ns", t.Int("busy", i));
    w.Field("modelled_ns", t.Int("modelled", i)).Field("unmodelled_ns", t.Int("unmodelled", i));
    w.Field("coverage", t.Real("coverage", i)).Field("flops", t.Int("flops", i));
    w.Field("mfu", t.Real("mfu", i)).EndObject();
  }
  w.EndArray();
}

void WriteUnmodelled(JsonWriter& w, const DerivedTableReader& t) {
  w.Key("unmodelled").BeginArray();
  for (size_t i = 0; i < t.rows(); ++i) {
    w.BeginObject().Field("rank", t.Int("rank", i)).Field("name", t.Text("name", i));
    w.Field("reason", t.Text("reason", i)).Field("count", t.Int("count", i));
    w.Field("time_ns", t.Int("time", i)).EndObject();
  }
  w.EndArray();
}

// What each number of an op row is: its unit and kind (inferred from the
// shapes, measured on the trace, read from the peak table); an op row's
// cost_kind gives the kind of its flops and bytes (read where the runtime
// wrote them).
void WriteUnitsAndKinds(JsonWriter& w) {
  struct Number {
    const char *name, *unit, *kind;
  };
  static constexpr Number kNumbers[] = {
      {"flops", "FLOP", "inferred"},       {"bytes", "B", "inferred"},
      {"time_ns", "ns", "measured"},       {"flops_per_s", "FLOP/s", "inferred"},
      {"bytes_per_s", "B/s", "inferred"},  {"intensity", "FLOP/B", "inferred"},
      {"peak_flops", "FLOP/s", "read"},    {"peak_bytes_per_s", "B/s", "read"},
      {"efficiency", "ratio", "inferred"}, {"coverage", "ratio", "measured"},
      {"mfu", "ratio", "inferred"},
  };
  w.Key("units").BeginObject();
  for (const Number& n : kNumbers) w.Field(n.name, n.unit);
  w.EndObject().Key("kinds").BeginObject();
  for (const Number& n : kNumbers) w.Field(n.name, n.kind);
  w.EndObject();
}

}  // namespace

std::string RooflineJson(const PluginResults& results) {
  std::ostringstream out;
  {
    JsonWriter w(out, JsonStyle::kCompact);
    const DerivedTableReader ops(results, "roofline_ops");
    w.BeginObject();
    WriteOps(w, ops);
    WriteRoofs(w, Roofs(ops));
    WriteSteps(w, DerivedTableReader(results, "roofline_steps"));
    WriteUnmodelled(w, DerivedTableReader(results, "roofline_unmodelled"));
    WriteUnitsAndKinds(w);
    w.EndObject();
  }
  return out.str();
}

}  // namespace th::serve
