// trace-diff: the three levels of `tracehound diff` (aggregate, structural,
// attribution) as a pipeline plugin. It runs once over both input groups of
// a pipeline with `baseline:` (A, the baseline's traces) and `inputs:` (B),
// runs the SDK's diff library (<tracehound/diff/...>, the code the command
// runs) on the two sides, and publishes:
//   trace_diff_rows         one row per (class, normalised name), as the
//                           command's JSON "aggregate" rows;
//   trace_diff_totals       per class, both sides' counts and times;
//   trace_diff_attribution  the mean step time (row "step") and the
//                           step-breakdown categories, Δ closing exactly;
//   trace_diff_step_pairs   the step pairs whose module → op → kernel trees
//                           were aligned (the command's "structure");
//   trace_diff_structure    their structural rows (added / removed
//                           subtrees, kernels replaced, kernel time changed);
//   trace_diff_warnings     what makes the sides not like for like that the
//                           catalog shows (input shapes of matched ops);
// and one finding per regression (a changed or added row that got slower),
// the largest first, at most max_findings.
#include <tracehound/diff/diff_aggregate.h>
#include <tracehound/diff/diff_attribution.h>
#include <tracehound/diff/diff_shapes.h>
#include <tracehound/diff/diff_tree.h>
#include <tracehound/diff/diff_view.h>
#include <tracehound/sdk.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using th::sdk::Context;
using th::sdk::Declaration;
using namespace th::diff;

th::sdk::Schema RowsTable() {
  auto s = th::sdk::Schema("trace_diff_rows",
                           "per (class, normalised name): each side's count and time over its "
                           "kept steps and per step, Δ per step (B - A) and the status")
               .Text("class")
               .Text("name")
               .Text("status", "added, removed, changed, unchanged or unknown");
  for (const char* side : {"a", "b"}) {
    const std::string p(side);
    s.Int(p + "_count", "count")
        .Int(p + "_time_ns", "ns")
        .Int(p + "_time_per_step_ns", "ns")
        .Int(p + "_spread_ns", "ns", "max - min of the per-step time");
  }
  return s.Int("delta_ns", "ns", "B - A per step")
      .Real("delta_pct", "%", "100 Δ / A's time per step, to 0.01; null when A is 0")
      .Int("noise_ns", "ns", "the larger spread of the two sides");
}

th::sdk::Schema TotalsTable() {
  return th::sdk::Schema("trace_diff_totals", "per class, both sides' totals over the kept steps")
      .Text("class")
      .Int("a_count", "count")
      .Int("a_time_ns", "ns")
      .Int("b_count", "count")
      .Int("b_time_ns", "ns");
}

th::sdk::Schema AttributionTable() {
  return th::sdk::Schema("trace_diff_attribution",
                         "the mean step time (row 'step') and its step-breakdown categories on "
                         "each side, per step; the categories' Δ add up to the step's")
      .Text("category")
      .Int("a_ns", "ns")
      .Int("b_ns", "ns")
      .Int("delta_ns", "ns");
}

th::sdk::Schema StepPairsTable() {
  return th::sdk::Schema("trace_diff_step_pairs",
                         "the step pairs aligned structurally: the k-th kept step of the i-th "
                         "trace of each side, and how many tree nodes matched")
      .Int("pair", "", "index, as trace_diff_structure's pair")
      .Int("a_rank")
      .Int("a_step")
      .Int("b_rank")
      .Int("b_step")
      .Int("matched", "count", "tree nodes aligned")
      .Int("a_unmatched", "count")
      .Int("b_unmatched", "count")
      .Int("rows_left_out", "count", "structural rows past max_structural");
}

th::sdk::Schema StructureTable() {
  return th::sdk::Schema("trace_diff_structure",
                         "per step pair, the differences of the aligned trees, largest |Δ| first")
      .Int("pair")
      .Text("kind", "added, removed, kernels_replaced or time_changed")
      .Text("level", "module, op or kernel")
      .Text("path",
            "the aligned ancestors' normalised names, outermost first, joined by ' › ' (U+203A: "
            "C++ names hold '>')")
      .Text("a_name")
      .Text("b_name")
      .Int("a_device_ns", "ns", "GPU time of the subtree(s) on side A")
      .Int("b_device_ns", "ns")
      .Int("delta_ns", "ns");
}

void PublishStructure(Context& ctx, const std::vector<StepPair>& pairs) {
  th::sdk::Table p("trace_diff_step_pairs");
  std::vector<std::vector<int64_t>> pc(9);
  std::vector<int64_t> pair, a_ns, b_ns, d_ns;
  std::vector<std::string> kind, level, path, a_name, b_name;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const StepPair& s = pairs[i];
    const int64_t v[] = {
        static_cast<int64_t>(i), s.a_rank,      s.a_step,       s.b_rank, s.b_step, s.matched,
        s.a_unmatched,           s.b_unmatched, s.rows_left_out};
    for (size_t c = 0; c < 9; ++c) pc[c].push_back(v[c]);
    for (const StructuralRow& r : s.rows) {
      pair.push_back(static_cast<int64_t>(i));
      kind.push_back(r.kind);
      level.push_back(r.level);
      std::string joined;
      for (const std::string& n : r.path) joined += (joined.empty() ? "" : " \u203a ") + n;
      path.push_back(joined);
      a_name.push_back(r.a_name);
      b_name.push_back(r.b_name);
      a_ns.push_back(r.a_device_ns);
      b_ns.push_back(r.b_device_ns);
      d_ns.push_back(r.b_device_ns - r.a_device_ns);
    }
  }
  const char* names[] = {"pair",    "a_rank",      "a_step",      "b_rank",       "b_step",
                         "matched", "a_unmatched", "b_unmatched", "rows_left_out"};
  for (size_t c = 0; c < 9; ++c) p.Int(names[c], pc[c], c >= 5 ? "count" : "");
  ctx.Publish(p);
  ctx.Publish(th::sdk::Table("trace_diff_structure")
                  .Int("pair", pair)
                  .Text("kind", kind)
                  .Text("level", level)
                  .Text("path", path)
                  .Text("a_name", a_name)
                  .Text("b_name", b_name)
                  .Int("a_device_ns", a_ns, "ns")
                  .Int("b_device_ns", b_ns, "ns")
                  .Int("delta_ns", d_ns, "ns"));
}

void PublishRows(Context& ctx, const std::vector<AggregateRow>& rows) {
  std::vector<std::string> cls, name, status;
  std::vector<std::vector<int64_t>> ints(11);
  std::vector<double> pct;
  for (const AggregateRow& r : rows) {
    cls.push_back(EventClassName(r.cls));
    name.push_back(r.name);
    status.push_back(RowStatusName(r.status));
    const int64_t v[] = {r.a.count,  r.a.time_ns, r.a.time_per_step_ns, r.a.spread_ns,
                         r.b.count,  r.b.time_ns, r.b.time_per_step_ns, r.b.spread_ns,
                         r.delta_ns, r.noise_ns};
    for (size_t i = 0; i < 10; ++i) ints[i].push_back(v[i]);
    pct.push_back(r.has_pct ? r.delta_pct : std::numeric_limits<double>::quiet_NaN());
  }
  th::sdk::Table t("trace_diff_rows");
  t.Text("class", cls).Text("name", name).Text("status", status);
  const char* names[] = {"a_count", "a_time_ns", "a_time_per_step_ns", "a_spread_ns",
                         "b_count", "b_time_ns", "b_time_per_step_ns", "b_spread_ns"};
  for (size_t i = 0; i < 8; ++i)
    t.Int(names[i], ints[i], std::string(names[i]).ends_with("count") ? "count" : "ns");
  t.Int("delta_ns", ints[8], "ns").Real("delta_pct", pct, "%").Int("noise_ns", ints[9], "ns");
  ctx.Publish(t);
}

void PublishTotals(Context& ctx, const std::vector<ClassTotal>& totals) {
  std::vector<std::string> cls;
  std::vector<int64_t> ac, at, bc, bt;
  for (const ClassTotal& c : totals) {
    cls.push_back(EventClassName(c.cls));
    ac.push_back(c.a_count);
    at.push_back(c.a_time_ns);
    bc.push_back(c.b_count);
    bt.push_back(c.b_time_ns);
  }
  ctx.Publish(th::sdk::Table("trace_diff_totals")
                  .Text("class", cls)
                  .Int("a_count", ac, "count")
                  .Int("a_time_ns", at, "ns")
                  .Int("b_count", bc, "count")
                  .Int("b_time_ns", bt, "ns"));
}

// No rows when a side has no step_breakdown rows (nothing to attribute).
void PublishAttribution(Context& ctx, const Attribution& at) {
  std::vector<std::string> category;
  std::vector<int64_t> a, b, d;
  if (at.available) {
    category.push_back("step");
    a.push_back(at.a_step_ns);
    b.push_back(at.b_step_ns);
    d.push_back(at.delta_ns);
    for (const Contributor& c : at.contributors) {
      category.push_back(c.category);
      a.push_back(c.a_ns);
      b.push_back(c.b_ns);
      d.push_back(c.delta_ns);
    }
  }
  ctx.Publish(th::sdk::Table("trace_diff_attribution")
                  .Text("category", category)
                  .Int("a_ns", a, "ns")
                  .Int("b_ns", b, "ns")
                  .Int("delta_ns", d, "ns"));
}

th::sdk::Schema WarningsTable() {
  return th::sdk::Schema("trace_diff_warnings",
                         "why matched rows may not compare like for like: ops whose most common "
                         "input shapes differ, or that shapes were not compared")
      .Text("warning");
}

void PublishWarnings(Context& ctx, const Profile& a, const Profile& b) {
  ctx.Publish(th::sdk::Table("trace_diff_warnings").Text("warning", ShapeWarnings(a, b)));
}

// The first device name of the inputs' traces, "" when none is described.
std::string DeviceOf(const Context& ctx) {
  for (const th::sdk::Trace& t : ctx.traces())
    if (t.group() != TH_GROUP_BASELINE && t.device_count() > 0 && t.device(0).name)
      return t.device(0).name;
  return "";
}

// One finding per regression: a changed or added row slower in B, by Δ.
void AddFindings(Context& ctx, const std::vector<AggregateRow>& rows, const Profile& b,
                 int64_t max_findings) {
  const std::string device = DeviceOf(ctx);
  const std::string on = device.empty() ? "" : " on " + device;
  const int64_t steps = static_cast<int64_t>(b.steps.size());
  int64_t added = 0;
  for (const AggregateRow& r : rows) {  // |Δ| descending
    if (added >= max_findings) break;
    if (r.delta_ns <= 0 || (r.status != RowStatus::kChanged && r.status != RowStatus::kAdded))
      continue;
    ++added;
    const std::string cls = EventClassName(r.cls);
    const std::string what =
        r.status == RowStatus::kAdded
            ? "new in the inputs (B): " + std::to_string(r.b.count) + " events, " +
                  std::to_string(r.delta_ns) + " ns per step"
            : std::to_string(r.b.time_per_step_ns) + " ns per step in the inputs (B) against " +
                  std::to_string(r.a.time_per_step_ns) + " ns in the baseline (A), above the " +
                  "noise of " + std::to_string(r.noise_ns) + " ns";
    th::sdk::Finding f(
        TH_P2, (r.status == RowStatus::kAdded ? "added " : "slower ") + cls + " " + r.name + on);
    f.What(what)
        .Suggest("compare the two runs' code and configuration for this " + cls +
                 "; `tracehound diff A B` shows where it sits in the step (structural level)")
        .Confidence(1.0)
        .Evidence("delta per step", static_cast<double>(r.delta_ns), "ns", TH_MEASURED)
        .Evidence("baseline per step", static_cast<double>(r.a.time_per_step_ns), "ns", TH_MEASURED)
        .Evidence("inputs per step", static_cast<double>(r.b.time_per_step_ns), "ns", TH_MEASURED)
        .Evidence("noise", static_cast<double>(r.noise_ns), "ns", TH_MEASURED)
        .TimeLost(static_cast<double>(r.delta_ns * steps))
        .Group("trace-diff:" + cls + ":" + r.name);
    ctx.Add(f);
  }
}

class TraceDiff final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("trace-diff", "1.0.0", th::sdk::kAnalyzer,
                       "A/B diff of the inputs against the pipeline's baseline: per op, kernel "
                       "and HLO op the time per step on each side with a noise rule, aligned "
                       "step trees, and the step-time change split over the step-breakdown "
                       "categories")
        .InputGroups()
        .Reads({"events", "event_flags", "tracks", "event_launches", "xla_labels", "op_inputs",
                "devices", "steps", "step_breakdown"})
        .Publishes(RowsTable())
        .Publishes(TotalsTable())
        .Publishes(AttributionTable())
        .Publishes(StepPairsTable())
        .Publishes(StructureTable())
        .Publishes(WarningsTable())
        .Option("threshold_ns", int64_t{1000},
                "a row is changed only when |Δ time per step| exceeds this and the noise")
        .Min(0)
        .Option("all_steps", false, "keep warm-up steps (default: steady state)")
        .Option("all_classes", false,
                "aggregate every event class (runtime, annotations, Python), not only CPU ops, "
                "GPU kernels and HLO ops")
        .Option("hta", false,
                "Holistic Trace Analysis' compare_traces definitions: the first step only, its "
                "marker as the window, every event class, full names")
        .Option("max_structural", int64_t{50}, "structural rows kept per step pair")
        .Min(0)
        .Option("max_step_pairs", int64_t{8}, "step pairs aligned structurally")
        .Min(0)
        .Option("max_findings", int64_t{10}, "regressions reported as findings, largest first")
        .Min(0);
  }

  void Run(Context& ctx) override {
    DiffOptions o;
    o.threshold_ns = ctx.GetInt("threshold_ns");
    o.all_steps = ctx.GetBool("all_steps");
    o.all_classes = ctx.GetBool("all_classes");
    o.hta = ctx.GetBool("hta");
    o.max_structural = ctx.GetInt("max_structural");
    o.max_step_pairs = ctx.GetInt("max_step_pairs");
    std::vector<ProfileTrace> a, b;
    for (const th::sdk::Trace& t : ctx.traces()) {
      ProfileTrace p;
      const std::string error = ProfileTraceOfView(
          t.raw(), [&t](uint32_t id) { return t.String(id); }, &p);
      if (!error.empty()) throw std::runtime_error(std::string(t.path()) + ": " + error);
      (t.group() == TH_GROUP_BASELINE ? a : b).push_back(std::move(p));
    }
    if (a.empty())
      throw std::invalid_argument(
          "trace-diff compares the inputs with a baseline, and it was handed none: name the "
          "baseline under 'baseline:' in the pipeline and run it with `tracehound run`");
    Profile pa, pb;
    std::string error =
        BuildSideProfile(a, ctx.FindGroupTable(TH_GROUP_BASELINE, "steps"),
                         ctx.FindGroupTable(TH_GROUP_BASELINE, "step_breakdown"), "A", o, &pa);
    if (error.empty())
      error = BuildSideProfile(b, ctx.FindGroupTable(TH_GROUP_INPUTS, "steps"),
                               ctx.FindGroupTable(TH_GROUP_INPUTS, "step_breakdown"), "B", o, &pb);
    if (!error.empty()) throw std::runtime_error(error);
    const std::vector<AggregateRow> rows = AggregateRows(pa, pb, o);
    PublishRows(ctx, rows);
    PublishTotals(ctx, ClassTotals(pa, pb));
    PublishAttribution(ctx, Attribute(pa, pb));
    PublishStructure(ctx, AlignStepPairs(a, pa, b, pb, o));
    PublishWarnings(ctx, pa, pb);
    AddFindings(ctx, rows, pb, ctx.GetInt("max_findings"));
  }
};

}  // namespace

TH_PLUGIN(TraceDiff)
