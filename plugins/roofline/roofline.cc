// roofline: per framework op occurrence, FLOPs F and bytes B from its input
// shapes (op_models.h), its time T = the busy time of the GPU activity
// launched under it, and the device's peaks (configs/peaks.yaml, peaks.h):
// achieved rates, arithmetic intensity, bound and efficiency, per step the
// share of busy time the models cover and an MFU-style figure.
//
// Attribution: each GPU activity goes to the outermost op with a model above
// the runtime call that launched it (a modelled op nested in a modelled op,
// aten::mm in aten::matmul, is part of the outer one and not counted apart);
// activity under no modelled op is listed as unmodelled under the innermost
// op above its launch.
#include <tracehound/op_shapes.h>
#include <tracehound/sdk.h>
#include <tracehound/time_order.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "device_identity.h"
#include "op_models.h"
#include "peaks.h"
#include "roofline_attribution.h"
#include "roofline_hlo.h"
#include "shipped_peaks.h"

namespace {

using th::roofline::kNone;
using th::roofline::OpCost;
using th::roofline::PeakTable;
using th::roofline::Roof;
using th::sdk::Context;
using th::sdk::Declaration;
using th::sdk::Trace;
using Intervals = std::vector<std::pair<int64_t, int64_t>>;

// Intervals by step slot, as the columns of the compute primitive's interval
// union (on the pipeline's backend; the CPU engine orders them by slot and
// merges the runs already in order, when they are few, instead of sorting).
struct StepIntervals {
  std::vector<uint32_t> step;
  std::vector<int64_t> begin, end;
  // Room for `n` intervals: pages are faulted in only as they are written,
  // so a generous bound costs nothing, where growth by doubling copies.
  void Reserve(size_t n) {
    step.reserve(n);
    begin.reserve(n);
    end.reserve(n);
  }
  void Add(uint32_t st, int64_t b, int64_t e) {
    step.push_back(st);
    begin.push_back(b);
    end.push_back(e);
  }
  // Per slot of `slots`, the length of the union of its intervals.
  std::vector<int64_t> UnionLengths(th::sdk::Context& ctx, size_t slots) const {
    return ctx.IntervalUnion(step, begin, end, slots);
  }
};

struct OpRow {  // one (rank, device, name, dtype, input dims)
  int64_t rank = 0;
  std::string device, name, dtype, unit, dims;
  int64_t count = 0, flops = 0, bytes = 0, time = 0;
  Roof roof;
  int64_t transcendentals = 0;
  std::string source;  // of F and B (OpKey::source); "mixed" when occurrences differ
};
struct StepRow {
  int64_t rank = 0, step = 0, window = 0, busy = 0, modelled = 0, flops = 0;
  double ideal_ns = 0;  // Σ F / P_peak over the step's modelled ops
};
struct Unmodelled {
  int64_t count = 0, time = 0;
};
struct Results {
  std::map<std::tuple<int64_t, std::string, std::string, std::string, std::string>, OpRow> ops;
  std::vector<StepRow> steps;
  std::map<std::tuple<int64_t, std::string, std::string>, Unmodelled> unmodelled;
};
struct Settings {
  const PeakTable* peaks;
  std::string device;  // a peaks device id forced for every op, "" = by name
  th::roofline::AttentionOptions attention;
};

// a += b, saturating at INT64_MAX (sums over hostile shapes never overflow).
void AddTo(int64_t& a, int64_t b) {
  if (__builtin_add_overflow(a, b, &a)) a = INT64_MAX;
}

// A ratio with three decimals ("1.289").
std::string Fixed3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

double Efficiency(const OpRow& r) {
  if (r.roof.flops <= 0 || r.roof.bytes_per_s <= 0 || r.time <= 0) return -1;
  const double ideal = std::max(static_cast<double>(r.flops) / r.roof.flops,
                                static_cast<double>(r.bytes) / r.roof.bytes_per_s);
  return ideal / (static_cast<double>(r.time) * 1e-9);
}

PeakTable LoadPeaks(const std::string& file) {
  std::string text = th::roofline::kShippedPeaks, name = "configs/peaks.yaml (shipped)";
  if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("peaks_file " + file + ": cannot be read");
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
    name = file;
  }
  std::string error;
  std::optional<PeakTable> t = PeakTable::Parse(text, name, &error);
  if (!t) throw std::runtime_error("peaks_file " + error);
  return std::move(*t);
}

// The step (index into the trace's profiler steps) whose window holds `ts`;
// 0 when the trace has none (one window over everything).
class StepOf {
 public:
  explicit StepOf(const Trace& t) {
    for (uint64_t s = 0; s < t.step_count(); ++s)
      windows_.push_back({t.step(s).ts, t.step(s).ts + t.step(s).dur, t.step(s).number});
    std::sort(windows_.begin(), windows_.end());
  }
  size_t count() const { return windows_.empty() ? 1 : windows_.size(); }
  bool stepless() const { return windows_.empty(); }  // one slot, the whole trace
  int64_t number(size_t s) const { return windows_.empty() ? -1 : std::get<2>(windows_[s]); }
  int64_t window(size_t s) const {
    return windows_.empty() ? 0 : std::get<1>(windows_[s]) - std::get<0>(windows_[s]);
  }
  // kNone: outside every step.
  uint32_t operator()(int64_t ts) const {
    if (windows_.empty()) return 0;
    auto it = std::upper_bound(windows_.begin(), windows_.end(),
                               std::make_tuple(ts, INT64_MAX, INT64_MAX));
    if (it == windows_.begin()) return kNone;
    --it;
    return ts < std::get<1>(*it) ? static_cast<uint32_t>(it - windows_.begin()) : kNone;
  }

 private:
  std::vector<std::tuple<int64_t, int64_t, int64_t>> windows_;
};

// The device name of the devices-table row with `id` (the only row when
// none has it), "" when unknown; a vendor-only XSpace name gets the product
// its properties identify (device_identity.h).
std::string DeviceName(const Trace& t, int32_t id) {
  auto named = [](const th_device& d) {
    return th::roofline::IdentifiedDeviceName(d.name, d.compute_major, d.compute_minor, d.num_sms,
                                              d.total_global_mem);
  };
  for (uint64_t d = 0; d < t.device_count(); ++d)
    if (t.device(d).id == id && t.device(d).name) return named(t.device(d));
  if (t.device_count() == 1 && t.device(0).name) return named(t.device(0));
  return "";
}

// The parsed inputs of op event `e`; on failure `why` says what is missing.
th::roofline::OpInputs InputsOf(const Trace& t, uint32_t e, std::string* dims_text,
                                std::string* why) {
  th::roofline::OpInputs in;
  const uint32_t row = t.args_row(e);
  if (row == th::sdk::kNoRow || row >= t.op_inputs_count() || t.op_inputs_event(row) != e ||
      t.op_input_dims(row).empty() || t.op_input_types(row).empty()) {
    *why = "no Input Dims / Input type (recorded without record_shapes)";
    return in;
  }
  *dims_text = std::string(t.op_input_dims(row));
  const th::sdk::ParsedOpInputs p =
      th::sdk::ParseOpInputs(t.op_input_dims(row), t.op_input_types(row));
  if (!p.ok()) {
    *why = "unreadable input shapes: " + p.error;
    return in;
  }
  for (const th::sdk::OpInput& x : p.inputs) {
    in.dims.push_back(x.shape.dims);
    in.types.push_back(x.type);
  }
  // Concrete Inputs only matter to ops that need scalar arguments; an
  // unreadable text leaves them out (those ops say so).
  const std::string_view concrete = t.op_concrete_inputs(row);
  if (!concrete.empty()) {
    th::sdk::ParsedInputTypes c = th::sdk::ParseConcreteInputs(concrete);
    if (c.ok()) in.concrete = std::move(c.types);
  }
  return in;
}

// What a modelled op row is keyed and labelled by.
struct OpKey {
  std::string device, name, dtype, unit, dims;
  const char* source;  // of F and B: kShapes, kHloModel or kRuntime
};
constexpr const char* kShapes = "shapes";
constexpr const char* kHloModel = "hlo";
constexpr const char* kRuntime = "runtime";
struct Amounts {
  int64_t flops = 0, transcendentals = 0, bytes = 0;
};
// Where modelled work goes: the op rows, and per step its activity and F.
struct Sinks {
  Results& out;
  StepIntervals& modelled;
  std::vector<StepRow>& steps;
};

// The row of a modelled op (created with its roof on first use); rows of
// Results::ops stay where they are.
OpRow& RowOf(const Trace& t, const Settings& s, const OpKey& k, Results& out) {
  OpRow& r = out.ops[{t.rank(), k.device, k.name, k.dtype, k.dims}];
  if (r.count == 0 && r.name.empty()) {
    const th::roofline::PeakDevice* pd =
        s.device.empty() ? s.peaks->Match(k.device) : s.peaks->ById(s.device);
    r = OpRow();
    r.rank = t.rank();
    r.device = k.device;
    r.name = k.name;
    r.dtype = k.dtype;
    r.unit = k.unit;
    r.dims = k.dims;
    r.source = k.source;
    if (pd) r.roof = s.peaks->For(pd->id, k.unit, k.dtype);
  }
  if (r.source != k.source) r.source = "mixed";
  return r;
}

// Adds `count` occurrences of a modelled op (amounts summed over them, `time`
// their busy time, `iv` their activity) to its row r and to step `st`.
void AddOccurrences(OpRow& r, int64_t count, const Amounts& a, int64_t time, uint32_t st,
                    const std::pair<int64_t, int64_t>* iv, size_t iv_count, Sinks sinks) {
  r.count += count;
  AddTo(r.flops, a.flops);
  AddTo(r.transcendentals, a.transcendentals);
  AddTo(r.bytes, a.bytes);
  r.time += time;
  if (st == kNone) return;
  for (size_t k = 0; k < iv_count; ++k) sinks.modelled.Add(st, iv[k].first, iv[k].second);
  AddTo(sinks.steps[st].flops, a.flops);
  if (r.roof.flops > 0)
    sinks.steps[st].ideal_ns += static_cast<double>(a.flops) / r.roof.flops * 1e9;
}

// The HLO instructions' activity: each instruction costed per execution,
// times its executions; op = "module(program id)/instruction", input dims =
// its operand shapes.
void AddHloOps(const Trace& t, const Settings& s, const StepOf& step_of,
               const std::vector<th::roofline::HloOccurrence>& hlo, Sinks sinks,
               std::map<std::pair<std::string, std::string>, Unmodelled>& loose) {
  if (hlo.empty()) return;
  const th::sdk::hlo::Graph graph(t);
  for (const th::roofline::HloOccurrence& o : hlo) {
    th::roofline::HloCost c = th::roofline::CostOfInstruction(graph, o.instruction);
    Intervals iv = o.intervals;
    const int64_t time = th::roofline::UnionLength(iv);
    const std::string name = th::roofline::HloOpName(t, o.instruction);
    if (o.runtime_costed() && !th::roofline::NotARooflineOp(c)) {
      // The runtime's own figures (XLA's cost analysis): F and B as read.
      if (!c.modelled) std::tie(c.dtype, c.unit) = th::roofline::DtypeAndUnit(t, o.instruction);
      const int64_t trans = c.modelled ? c.transcendentals : 0;
      int64_t trans_all = 0;
      if (__builtin_mul_overflow(trans, o.executions, &trans_all)) trans_all = INT64_MAX;
      OpRow& r = RowOf(t, s,
                       {DeviceName(t, o.device), name, c.dtype, c.unit,
                        th::roofline::OperandShapes(t, o.instruction), kRuntime},
                       sinks.out);
      AddOccurrences(r, o.executions, {o.runtime_flops, trans_all, o.runtime_bytes}, time,
                     step_of(o.first_ts), o.intervals.data(), o.intervals.size(), sinks);
      continue;
    }
    if (!c.modelled) {
      Unmodelled& u = loose[{name, c.why}];
      u.count += o.executions;
      u.time += time;
      continue;
    }
    auto times = [&o](int64_t v) {
      int64_t r = 0;
      return __builtin_mul_overflow(v, o.executions, &r) ? INT64_MAX : r;
    };
    OpRow& r = RowOf(t, s,
                     {DeviceName(t, o.device), name, c.dtype, c.unit,
                      th::roofline::OperandShapes(t, o.instruction), kHloModel},
                     sinks.out);
    AddOccurrences(r, o.executions, {times(c.flops), times(c.transcendentals), times(c.bytes)},
                   time, step_of(o.first_ts), o.intervals.data(), o.intervals.size(), sinks);
  }
}

constexpr int32_t kNoDevice = INT32_MIN;

// The GPU activity launched under modelled ops, grouped by owner op: Add in
// launch-edge order, then Group (owners ascending, each one's activity in
// the order added).
struct OwnedActivity {
  struct Launched {
    uint32_t owner;
    int32_t device;  // kNoDevice without gpu args
    int64_t ts, end;
  };
  std::vector<Launched> added;
  std::vector<uint32_t> owners, first;  // first: owners.size() + 1 offsets into iv
  std::vector<int32_t> device;          // per owner: of its first activity with gpu args
  Intervals iv;

  void Add(uint32_t owner, int32_t dev, int64_t ts, int64_t end) {
    added.push_back({owner, dev, ts, end});
  }
  void Group() {
    std::vector<uint32_t> order(added.size());  // by owner, each one's in the order added
    for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
      return added[x].owner != added[y].owner ? added[x].owner < added[y].owner : x < y;
    });
    iv.resize(added.size());
    std::vector<int32_t> devs(added.size());
    for (uint32_t k = 0; k < order.size(); ++k) {
      const Launched& l = added[order[k]];
      if (owners.empty() || owners.back() != l.owner) {
        owners.push_back(l.owner);
        first.push_back(k);
        device.push_back(kNoDevice);
      }
      iv[k] = {l.ts, l.end};
      devs[k] = l.device;
    }
    first.push_back(static_cast<uint32_t>(added.size()));
    for (size_t g = 0; g < owners.size(); ++g)
      for (uint32_t i = first[g]; i < first[g + 1] && device[g] == kNoDevice; ++i)
        device[g] = devs[i];
    added = {};
  }
};

// Costs every owner op of `owned` (each with its activity's busy time):
// ops of one name, input texts and device cost the same, so each such key is
// costed once (the texts are interned: their addresses name them).
void CostOwnedOps(const Trace& t, const Settings& s, const StepOf& step_of, OwnedActivity owned,
                  Sinks sinks, std::map<std::pair<std::string, std::string>, Unmodelled>& loose) {
  owned.Group();
  struct Costed {
    OpRow* row = nullptr;     // modelled
    Unmodelled* u = nullptr;  // not
    int64_t flops = 0, bytes = 0;
  };
  std::map<std::tuple<uint32_t, const char*, const char*, const char*, int32_t>, Costed> costed;
  Intervals copy;
  for (size_t g = 0; g < owned.owners.size(); ++g) {
    const uint32_t o = owned.owners[g];
    const uint32_t row = t.args_row(o);
    const bool shaped =
        row != th::sdk::kNoRow && row < t.op_inputs_count() && t.op_inputs_event(row) == o;
    const int32_t device_id = owned.device[g];
    auto [it, fresh] =
        costed.try_emplace({t.name_id(o), shaped ? t.op_input_dims(row).data() : nullptr,
                            shaped ? t.op_input_types(row).data() : nullptr,
                            shaped ? t.op_concrete_inputs(row).data() : nullptr, device_id});
    Costed& k = it->second;
    if (fresh) {
      std::string dims, no_inputs;
      const th::roofline::OpInputs inputs = InputsOf(t, o, &dims, &no_inputs);
      OpCost c;
      if (no_inputs.empty())
        c = th::roofline::CostOf(t.name(o), inputs, s.attention);
      else
        c.why = no_inputs;
      if (!c.modelled) {
        k.u = &loose[{std::string(t.name(o)), c.why}];
      } else {
        const std::string device = device_id == kNoDevice ? "" : DeviceName(t, device_id);
        k.row = &RowOf(t, s, {device, std::string(t.name(o)), c.dtype, c.unit, dims, kShapes},
                       sinks.out);
        k.flops = c.flops;
        k.bytes = c.bytes;
      }
    }
    const auto* iv = owned.iv.data() + owned.first[g];
    const size_t count = owned.first[g + 1] - owned.first[g];
    copy.assign(iv, iv + count);
    const int64_t time = th::roofline::UnionLength(copy);
    if (k.u) {
      k.u->count += 1;
      k.u->time += time;
      continue;
    }
    AddOccurrences(*k.row, 1, {k.flops, 0, k.bytes}, time, step_of(t.ts(o)), iv, count, sinks);
  }
}

// The busy time of all of a trace's GPU activity (the union of its
// intervals) and its first start and last end: each GPU track's activity in
// the importer's track order, the tracks merged by start (no interval copied,
// no sort). For traces without steps, where every activity is in slot 0.
struct Busy {
  int64_t ns = 0, first = INT64_MAX, last = INT64_MIN;
};
Busy GpuBusy(const Trace& t) {
  Busy out;
  std::vector<uint8_t> has_gpu(t.track_count(), 0);
  for (const uint32_t i : t.gpu_activity()) {
    has_gpu[t.track_index(i)] = 1;
    out.first = std::min(out.first, t.ts(i));
    out.last = std::max(out.last, t.end(i));
  }
  const th::sdk::TrackRows by_track = th::sdk::KeepInTrackOrder(
      static_cast<uint32_t>(t.track_count()),
      [&](uint32_t k) { return has_gpu[k] ? t.track_events(k) : Trace::TrackEvents{}; },
      [&](uint32_t i) { return t.is_gpu_activity(i); });
  std::vector<th::sdk::StartList> lists;
  for (size_t k = 0; k < by_track.lists(); ++k)
    lists.push_back({by_track.Of(k), by_track.track[k]});
  th::sdk::UnionCover cover;
  th::sdk::MergeByStart(
      lists, [&](uint32_t, uint32_t i) { return t.ts(i); },
      [&](uint32_t, uint32_t i) { cover.Add(t.ts(i), t.end(i)); });
  out.ns = cover.total;
  return out;
}

// Per trace: GPU activity by owning op and step, then each owner costed.
void AnalyzeTrace(th::sdk::Context& ctx, const Trace& t, const Settings& s, Results& out) {
  const uint64_t n = t.size();
  const th::sdk::TableView events = t.Table("events");
  // Marked: a cpu_op with a model, asked only of the launch calls' ancestors.
  std::vector<int8_t> has_model;  // by name id: -1 unknown
  const std::span<const uint8_t> kinds = events.Values<uint8_t>("kind", TH_TYPE_U8);
  const std::span<const uint32_t> names = events.Values<uint32_t>("name", TH_TYPE_STRING_ID);
  auto marked = [&](uint32_t e) {
    if (kinds[e] != TH_EVENT_CPU_OP) return false;
    const uint32_t id = names[e];
    if (id >= has_model.size()) has_model.resize(id + 1, -1);
    if (has_model[id] < 0) has_model[id] = th::roofline::HasModel(t.String(id)) ? 1 : 0;
    return has_model[id] == 1;
  };
  const StepOf step_of(t);
  // Busy time per step slot: without steps, one sweep over the GPU tracks
  // (GpuBusy); with steps, the intervals by the slot of their launch.
  const bool stepless = step_of.stepless();
  StepIntervals busy;
  if (!stepless) busy.Reserve(t.gpu_rows());  // GPU activity (gpu_args: it and the syncs)
  OwnedActivity owned;
  std::map<std::pair<std::string, std::string>, Unmodelled> loose;  // (name, why)
  std::unordered_map<uint32_t, Unmodelled> loose_leaf;  // leaf op's name id (kNone: no op)
  std::vector<bool> launched(n, false), claimed(n, false);
  const std::vector<th::roofline::HloOccurrence> hlo = th::roofline::HloOccurrences(t, &claimed);
  {  // the owner walk's per-event memo is freed before the owners are grouped
    th::roofline::OutermostMarked owner(events.Values<uint32_t>("parent", TH_TYPE_U32), marked);
    for (uint64_t k = 0; k < t.edge_count(); ++k) {
      if (t.edge_kind(k) != TH_EDGE_LAUNCH) continue;
      const uint32_t call = t.edge_src(k), a = t.edge_dst(k);
      if (!t.is_gpu_activity(a) || launched[a]) continue;
      launched[a] = true;
      const uint32_t st = stepless ? 0 : step_of(t.ts(call));
      if (!stepless && st != kNone) busy.Add(st, t.ts(a), t.end(a));
      if (claimed[a]) continue;  // an HLO instruction's
      const uint32_t o = owner(call);
      if (o != kNone) {
        const uint32_t row = t.args_row(a);
        owned.Add(o, row == th::sdk::kNoRow ? kNoDevice : t.gpu_device(row), t.ts(a), t.end(a));
        continue;
      }
      uint32_t leaf = t.parent(call);
      while (leaf != kNone && t.kind(leaf) != TH_EVENT_CPU_OP) leaf = t.parent(leaf);
      Unmodelled& u = loose_leaf[leaf == kNone ? kNone : t.name_id(leaf)];
      u.count += 1;
      u.time += t.dur(a);
    }
  }
  for (const auto& [name, u] : loose_leaf) {
    Unmodelled& v = loose[{name == kNone ? "(no op)" : std::string(t.String(name)),
                           name == kNone ? "launched outside any op" : "no model for this op"}];
    v.count += u.count;
    v.time += u.time;
  }
  for (const uint32_t i : t.gpu_activity()) {  // the GPU events only, by row
    if (launched[i]) continue;
    const uint32_t st = stepless ? 0 : step_of(t.ts(i));
    if (!stepless && st != kNone) busy.Add(st, t.ts(i), t.end(i));
    if (claimed[i]) continue;
    Unmodelled& u = loose[{"(no launch event)", "no launch event"}];
    u.count += 1;
    u.time += t.dur(i);
  }
  StepIntervals modelled;
  modelled.Reserve(t.gpu_rows());  // a part of the activity
  std::vector<StepRow> steps(step_of.count());
  CostOwnedOps(t, s, step_of, std::move(owned), {out, modelled, steps}, loose);
  AddHloOps(t, s, step_of, hlo, {out, modelled, steps}, loose);
  std::vector<int64_t> busy_ns(steps.size(), 0);
  // Without steps, a slot's window is its activity's first start to last end.
  std::vector<int64_t> first(steps.size(), INT64_MAX), last(steps.size(), INT64_MIN);
  if (stepless) {
    const Busy b = GpuBusy(t);
    busy_ns[0] = b.ns;
    first[0] = b.first;
    last[0] = b.last;
  } else {
    busy_ns = busy.UnionLengths(ctx, steps.size());
    for (size_t k = 0; k < busy.step.size(); ++k) {
      first[busy.step[k]] = std::min(first[busy.step[k]], busy.begin[k]);
      last[busy.step[k]] = std::max(last[busy.step[k]], busy.end[k]);
    }
    busy = {};
  }
  const std::vector<int64_t> modelled_ns = modelled.UnionLengths(ctx, steps.size());
  modelled = {};
  for (size_t st = 0; st < steps.size(); ++st) {
    StepRow& row = steps[st];
    row.rank = t.rank();
    row.step = step_of.number(st);
    row.busy = busy_ns[st];
    row.modelled = modelled_ns[st];
    row.window = step_of.window(st);
    if (row.window == 0 && first[st] != INT64_MAX) row.window = last[st] - first[st];
    out.steps.push_back(row);
  }
  for (const auto& [key, u] : loose) {
    Unmodelled& v = out.unmodelled[{t.rank(), key.first, key.second}];
    v.count += u.count;
    v.time += u.time;
  }
}

}  // namespace

namespace {

th::sdk::Schema OpsTable() {
  return th::sdk::Schema("roofline_ops",
                         "per (rank, device, op, dtype, input dims): F and B inferred from the "
                         "shapes, T measured, peaks read from the peak table")
      .Int("rank")
      .Text("device", "the device name of the op's GPU activity")
      .Text("name")
      .Text("dtype", "of the op's first tensor input")
      .Text("unit", "matrix or vector: which peak applies")
      .Text("input_dims", "Kineto Input Dims")
      .Int("count", "count")
      .Int("flops", "FLOP", "inferred")
      .Int("bytes", "B", "inferred: every tensor moved once (a lower bound)")
      .Int("time", "ns",
           "measured: busy time of the activity launched under the op (HLO: attributed to it)")
      .Real("flops_per_s", "FLOP/s", "inferred: flops / time")
      .Real("bytes_per_s", "B/s", "inferred: bytes / time")
      .Real("intensity", "FLOP/B", "inferred: flops / bytes")
      .Real("peak_flops", "FLOP/s", "read: 0 when the peak table has none")
      .Real("peak_bytes_per_s", "B/s", "read: 0 when the peak table has none")
      .Text("peak", "the peak row used (unit dtype)")
      .Text("bound", "compute, memory, or unknown (no peak)")
      .Real("efficiency", "ratio",
            "inferred: max(flops/peak_flops, bytes/peak_bytes_per_s) / time, never clamped; "
            "-1 without a peak")
      .Text("peak_source")
      .Int("transcendentals", "count",
           "inferred: HLO transcendental ops (exp, log, tanh, ...), apart from flops; 0 for "
           "framework ops")
      .Text("cost_source",
            "where flops and bytes come from: shapes (inferred from Kineto Input Dims), hlo "
            "(inferred by the HLO model), runtime (read: the flops / bytes_accessed the TPU "
            "runtime writes on each op, XLA's cost model), mixed (occurrences differ)");
}

th::sdk::Schema StepsTable() {
  return th::sdk::Schema("roofline_steps", "per rank and step (-1: the whole trace)")
      .Int("rank")
      .Int("step")
      .Int("window", "ns", "measured: the step's duration")
      .Int("busy", "ns", "measured: union of the GPU activity launched in the step")
      .Int("modelled", "ns", "measured: the part launched under modelled ops")
      .Int("unmodelled", "ns", "measured: busy - modelled")
      .Real("coverage", "ratio", "modelled / busy")
      .Int("flops", "FLOP", "inferred: sum over the modelled ops")
      .Real("mfu", "ratio", "inferred: sum of flops / peak_flops of each op, over the window");
}

th::sdk::Schema UnmodelledTable() {
  return th::sdk::Schema("roofline_unmodelled",
                         "GPU time no model covers, by op (never counted as 0 FLOPs)")
      .Int("rank")
      .Text("name", "the op (the innermost op above the launch when no model applies)")
      .Text("reason")
      .Int("count", "count")
      .Int("time", "ns", "measured");
}

class Roofline final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("roofline", "1.3.0", th::sdk::kAnalyzer,
                       "Per op (framework op or HLO instruction): FLOPs and bytes from the "
                       "shapes, time of its kernels, against the device's datasheet peaks "
                       "(dtype-aware roofline)")
        .Reads({"events", "tracks", "track_events", "track_order", "edges", "gpu_args",
                "gpu_activity", "devices", "profiler_steps", "op_inputs", "gpu_hlo", "hlo_modules",
                "hlo_instructions", "hlo_operand_offsets", "hlo_operands", "hlo_compute_dims",
                "xla_op_costs"})
        .Publishes(OpsTable())
        .Publishes(StepsTable())
        .Publishes(UnmodelledTable())
        .Option("peaks_file", "",
                "a peak table in the format of configs/peaks.yaml; empty: the shipped one")
        .Option("device", "",
                "a device id of the peak table for every op; empty: matched by device name")
        .Option("causal_attention", false,
                "attention ops use a causal mask (Input Dims cannot tell): halves their FLOPs "
                "when query and key lengths are equal")
        .Option("exceeds_threshold", 1.05,
                "an efficiency above this is reported: the model or the peak is wrong")
        .Min(1.0);
  }

  void Run(Context& ctx) override {
    const PeakTable peaks = LoadPeaks(ctx.GetString("peaks_file"));
    Settings s{&peaks, ctx.GetString("device"), {ctx.GetBool("causal_attention")}};
    if (!s.device.empty() && !peaks.ById(s.device))
      throw std::runtime_error("device '" + s.device + "' is not a device id of the peak table");
    Results r;
    for (const Trace& t : ctx.traces()) AnalyzeTrace(ctx, t, s, r);
    std::vector<const OpRow*> rows;
    for (const auto& [key, row] : r.ops) rows.push_back(&row);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const OpRow* a, const OpRow* b) { return a->time > b->time; });
    PublishOps(ctx, rows);
    PublishSteps(ctx, r.steps);
    PublishUnmodelled(ctx, r.unmodelled);
    ReportExceeding(ctx, rows, ctx.GetDouble("exceeds_threshold"));
  }

 private:
  static void PublishOps(Context& ctx, const std::vector<const OpRow*>& rows) {
    std::vector<int64_t> rank, count, flops, bytes, time, trans;
    std::vector<std::string> device, name, dtype, unit, dims, peak, bound, source, cost_source;
    std::vector<double> fps, bps, intensity, pf, pb, eff;
    for (const OpRow* r : rows) {
      rank.push_back(r->rank);
      device.push_back(r->device);
      name.push_back(r->name);
      dtype.push_back(r->dtype);
      unit.push_back(r->unit);
      dims.push_back(r->dims);
      count.push_back(r->count);
      flops.push_back(r->flops);
      trans.push_back(r->transcendentals);
      bytes.push_back(r->bytes);
      time.push_back(r->time);
      const double sec = static_cast<double>(r->time) * 1e-9;
      fps.push_back(sec > 0 ? static_cast<double>(r->flops) / sec : 0);
      bps.push_back(sec > 0 ? static_cast<double>(r->bytes) / sec : 0);
      intensity.push_back(r->bytes > 0 ? static_cast<double>(r->flops) / r->bytes : 0);
      pf.push_back(r->roof.flops);
      pb.push_back(r->roof.bytes_per_s);
      peak.push_back(r->roof.peak_row);
      const bool known = r->roof.flops > 0 && r->roof.bytes_per_s > 0;
      bound.push_back(!known ? "unknown"
                      : static_cast<double>(r->flops) / r->roof.flops >=
                              static_cast<double>(r->bytes) / r->roof.bytes_per_s
                          ? "compute"
                          : "memory");
      eff.push_back(Efficiency(*r));
      cost_source.push_back(r->source);
      source.push_back(r->roof.peak_source +
                       (r->roof.bandwidth_source.empty() ? "" : "; " + r->roof.bandwidth_source));
    }
    ctx.Publish(th::sdk::Table("roofline_ops")
                    .Int("rank", rank)
                    .Text("device", device)
                    .Text("name", name)
                    .Text("dtype", dtype)
                    .Text("unit", unit)
                    .Text("input_dims", dims)
                    .Int("count", count, "count")
                    .Int("flops", flops, "FLOP")
                    .Int("bytes", bytes, "B")
                    .Int("time", time, "ns")
                    .Real("flops_per_s", fps, "FLOP/s")
                    .Real("bytes_per_s", bps, "B/s")
                    .Real("intensity", intensity, "FLOP/B")
                    .Real("peak_flops", pf, "FLOP/s")
                    .Real("peak_bytes_per_s", pb, "B/s")
                    .Text("peak", peak)
                    .Text("bound", bound)
                    .Real("efficiency", eff, "ratio")
                    .Text("peak_source", source)
                    .Int("transcendentals", trans, "count")
                    .Text("cost_source", cost_source));
  }

  static void PublishSteps(Context& ctx, const std::vector<StepRow>& steps) {
    std::vector<int64_t> rank, step, window, busy, modelled, unmodelled, flops;
    std::vector<double> coverage, mfu;
    for (const StepRow& s : steps) {
      rank.push_back(s.rank);
      step.push_back(s.step);
      window.push_back(s.window);
      busy.push_back(s.busy);
      modelled.push_back(s.modelled);
      unmodelled.push_back(s.busy - s.modelled);
      coverage.push_back(s.busy > 0 ? static_cast<double>(s.modelled) / s.busy : 0);
      flops.push_back(s.flops);
      mfu.push_back(s.window > 0 ? s.ideal_ns / static_cast<double>(s.window) : 0);
      th::sdk::Scope scope;
      scope.rank = s.rank;
      scope.step_first = scope.step_last = s.step;
      ctx.Metric("roofline_coverage", coverage.back(), "ratio", th::sdk::kMeasured, scope);
      ctx.Metric("roofline_mfu", mfu.back(), "ratio", th::sdk::kInferred, scope);
    }
    ctx.Publish(th::sdk::Table("roofline_steps")
                    .Int("rank", rank)
                    .Int("step", step)
                    .Int("window", window, "ns")
                    .Int("busy", busy, "ns")
                    .Int("modelled", modelled, "ns")
                    .Int("unmodelled", unmodelled, "ns")
                    .Real("coverage", coverage, "ratio")
                    .Int("flops", flops, "FLOP")
                    .Real("mfu", mfu, "ratio"));
  }

  static void PublishUnmodelled(
      Context& ctx,
      const std::map<std::tuple<int64_t, std::string, std::string>, Unmodelled>& loose) {
    std::vector<std::pair<std::tuple<int64_t, std::string, std::string>, Unmodelled>> rows(
        loose.begin(), loose.end());
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.second.time > b.second.time; });
    std::vector<int64_t> rank, count, time;
    std::vector<std::string> name, reason;
    for (const auto& [key, u] : rows) {
      rank.push_back(std::get<0>(key));
      name.push_back(std::get<1>(key));
      reason.push_back(std::get<2>(key));
      count.push_back(u.count);
      time.push_back(u.time);
    }
    ctx.Publish(th::sdk::Table("roofline_unmodelled")
                    .Int("rank", rank)
                    .Text("name", name)
                    .Text("reason", reason)
                    .Int("count", count, "count")
                    .Int("time", time, "ns"));
  }

  // One finding per (op name, device): its rows above the threshold, the
  // worst one's figures as evidence.
  static void ReportExceeding(Context& ctx, const std::vector<const OpRow*>& rows,
                              double threshold) {
    std::map<std::pair<std::string, std::string>, std::vector<const OpRow*>> by_cause;
    for (const OpRow* r : rows)
      if (Efficiency(*r) > threshold) by_cause[{r->name, r->device}].push_back(r);
    for (const auto& [cause, list] : by_cause) {
      const OpRow* worst = *std::max_element(
          list.begin(), list.end(),
          [](const OpRow* a, const OpRow* b) { return Efficiency(*a) < Efficiency(*b); });
      th::sdk::Scope scope;
      scope.rank = worst->rank;
      ctx.Add(th::sdk::Finding(th::sdk::P2,
                               "exceeds the roofline: " + cause.first + " on " + cause.second)
                  .What(cause.first + " runs faster than the peaks of " + cause.second +
                        " allow (efficiency " + Fixed3(Efficiency(*worst)) + " for " +
                        worst->dtype + " " + worst->dims + ", " + std::to_string(list.size()) +
                        " shape(s) above " + Fixed3(threshold) +
                        "): the model or the peak is wrong")
                  .Suggest("check the op's FLOP/byte model and the device's row in the peak "
                           "table (" +
                           worst->roof.peak_row + ")")
                  .Group("roofline-exceeds:" + cause.first)
                  .In(scope)
                  .Evidence("efficiency", Efficiency(*worst), "ratio", th::sdk::kInferred)
                  .Evidence("flops", static_cast<double>(worst->flops), "FLOP", th::sdk::kInferred)
                  .Evidence("bytes", static_cast<double>(worst->bytes), "B", th::sdk::kInferred)
                  .Evidence("time", static_cast<double>(worst->time), "ns", th::sdk::kMeasured)
                  .Evidence("peak_flops", worst->roof.flops, "FLOP/s", th::sdk::kRead)
                  .Evidence("peak_bytes_per_s", worst->roof.bytes_per_s, "B/s", th::sdk::kRead));
    }
  }
};

}  // namespace

TH_PLUGIN(Roofline)
