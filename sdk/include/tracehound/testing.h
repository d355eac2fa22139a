// The plugin test kit: build small traces in memory, run a plugin on them the
// way tracehound does, and check what it reported. Header-only, no test
// framework needed (GoogleTest works with it too).
//
//   th::sdk::testing::TraceBuilder b;                       // rank 0
//   const uint32_t cpu = b.CpuThread(1, 1), s7 = b.GpuStream(0, 7);
//   const uint32_t launch = b.Runtime(cpu, "cudaLaunchKernel", 900, 50);
//   b.Launch(launch, b.Kernel(s7, "gemm", 1000, 5000));
//   auto trace = b.Build();
//
//   th::sdk::testing::PluginLibrary lib("build/my_probe.so");  // or DescriptorOf<MyProbe>()
//   th::sdk::testing::Host host;
//   th::sdk::testing::RunResult r = host.Run(lib.descriptor(), {trace.get()},
//                                            {{"threshold_us", 1}});
//   th::sdk::testing::Checks check;
//   check(th::sdk::testing::ExpectFinding(r, th::sdk::P2, "long kernel gemm"));
//   return check.Finish("my-probe");
//
// The builder writes every catalog table with the schema tracehound's
// catalog declares (names, column order, types, units). The host hands a
// plugin only the tables it declares in Reads(), refuses find_table of an
// undeclared table and a publish that does not match its declared schema,
// and runs the compute primitives on the CPU with the semantics of
// tracehound's engines (kernels/include/tracehound/kernels/primitives.h):
// the same results, integers exactly.
#ifndef TRACEHOUND_TESTING_H_
#define TRACEHOUND_TESTING_H_

#include <tracehound/plugin_api.h>
#include <tracehound/sdk.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <initializer_list>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if __has_include(<dlfcn.h>)
#include <dlfcn.h>
#define TH_TESTING_HAS_DLOPEN 1
#endif

namespace th::sdk::testing {

// ---------------------------------------------------------------------------
// Compute primitives on the CPU: what the host's function table runs. Each
// returns "" on success or the reason it refused (the host logs it and the
// plugin sees TH_STATUS_ERROR), like tracehound's engines.
namespace cpu {

// Stable sort of (keys, values) by key, in place.
inline std::string SortByKey(int64_t* keys, uint32_t* values, uint64_t n) {
  std::vector<std::pair<int64_t, uint32_t>> p(n);
  for (uint64_t i = 0; i < n; ++i) p[i] = {keys[i], values[i]};
  std::stable_sort(p.begin(), p.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (uint64_t i = 0; i < n; ++i) {
    keys[i] = p[i].first;
    values[i] = p[i].second;
  }
  return "";
}

// out[k] = op over the values with key k; op 0 sum, 1 min, 2 max, 3 count.
// Keys with no row get 0 (sum, count), INT64_MAX (min) or INT64_MIN (max).
inline std::string ReduceByKey(const uint32_t* keys, const int64_t* values, uint64_t n, uint32_t op,
                               int64_t* out, uint64_t num_keys) {
  if (op > 3) return "unknown reduce op " + std::to_string(op);
  if (op != 3 && !values && n > 0) return "size mismatch: keys and values";
  for (uint64_t i = 0; i < n; ++i)
    if (keys[i] >= num_keys)
      return "key " + std::to_string(keys[i]) + " is not below the output size " +
             std::to_string(num_keys);
  const int64_t identity = op == 1 ? INT64_MAX : op == 2 ? INT64_MIN : 0;
  std::fill(out, out + num_keys, identity);
  for (uint64_t i = 0; i < n; ++i) {
    int64_t& o = out[keys[i]];
    if (op == 0)
      o += values[i];
    else if (op == 1)
      o = std::min(o, values[i]);
    else if (op == 2)
      o = std::max(o, values[i]);
    else
      ++o;
  }
  return "";
}

// For each segment s (values[offsets[s] .. offsets[s+1])), the nearest-rank
// percentile p (0 < p <= 100) of its values: out[s * percentile_count + j].
// An empty segment gives 0.
inline std::string SegmentedPercentiles(const int64_t* values, const uint64_t* offsets,
                                        uint64_t segments, const double* percentiles,
                                        uint64_t percentile_count, int64_t* out) {
  const uint64_t rows = offsets[segments];
  for (uint64_t s = 0; s <= segments; ++s)
    if (offsets[s] > rows) return "size mismatch: offsets beyond values";
  for (uint64_t j = 0; j < percentile_count; ++j)
    if (!(percentiles[j] > 0 && percentiles[j] <= 100))
      return "percentile " + std::to_string(percentiles[j]) + " is not in (0, 100]";
  for (uint64_t s = 0; s < segments; ++s) {
    const uint64_t b = offsets[s], e = offsets[s + 1];
    if (e <= b) {
      for (uint64_t j = 0; j < percentile_count; ++j) out[s * percentile_count + j] = 0;
      continue;
    }
    std::vector<int64_t> v(values + b, values + e);
    std::sort(v.begin(), v.end());
    for (uint64_t j = 0; j < percentile_count; ++j) {
      auto rank =
          static_cast<size_t>(std::ceil(percentiles[j] / 100.0 * static_cast<double>(v.size())));
      out[s * percentile_count + j] = v[std::clamp<size_t>(rank, 1, v.size()) - 1];
    }
  }
  return "";
}

// out[g] = length of the union of group g's intervals [begin, end); an
// interval with end <= begin covers nothing. Inputs need not be sorted.
inline std::string IntervalUnion(const uint32_t* group, const int64_t* begin, const int64_t* end,
                                 uint64_t n, int64_t* out, uint64_t num_groups) {
  for (uint64_t i = 0; i < n; ++i)
    if (group[i] >= num_groups)
      return "group " + std::to_string(group[i]) + " is not below the output size";
  std::vector<uint64_t> order(n);
  std::iota(order.begin(), order.end(), uint64_t{0});
  std::sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) {
    if (group[a] != group[b]) return group[a] < group[b];
    if (begin[a] != begin[b]) return begin[a] < begin[b];
    return a < b;
  });
  std::fill(out, out + num_groups, 0);
  int64_t covered_to = INT64_MIN;
  for (uint64_t k = 0; k < n; ++k) {
    const uint64_t i = order[k];
    if (k == 0 || group[i] != group[order[k - 1]]) covered_to = INT64_MIN;
    if (end[i] <= begin[i]) continue;
    const int64_t from = std::max(begin[i], covered_to);
    if (end[i] > from) out[group[i]] += end[i] - from;
    covered_to = std::max(covered_to, end[i]);
  }
  return "";
}

// out[g] = length of union(a in g) ∩ union(b in g).
inline std::string IntervalOverlap(const uint32_t* group_a, const int64_t* begin_a,
                                   const int64_t* end_a, uint64_t n_a, const uint32_t* group_b,
                                   const int64_t* begin_b, const int64_t* end_b, uint64_t n_b,
                                   int64_t* out, uint64_t num_groups) {
  std::vector<int64_t> ua(num_groups), ub(num_groups), uab(num_groups);
  std::string e = IntervalUnion(group_a, begin_a, end_a, n_a, ua.data(), num_groups);
  if (e.empty()) e = IntervalUnion(group_b, begin_b, end_b, n_b, ub.data(), num_groups);
  if (!e.empty()) return e;
  std::vector<uint32_t> g(group_a, group_a + n_a);
  std::vector<int64_t> b(begin_a, begin_a + n_a), en(end_a, end_a + n_a);
  g.insert(g.end(), group_b, group_b + n_b);
  b.insert(b.end(), begin_b, begin_b + n_b);
  en.insert(en.end(), end_b, end_b + n_b);
  e = IntervalUnion(g.data(), b.data(), en.data(), g.size(), uab.data(), num_groups);
  if (!e.empty()) return e;
  for (uint64_t i = 0; i < num_groups; ++i) out[i] = ua[i] + ub[i] - uab[i];
  return "";
}

}  // namespace cpu

// ---------------------------------------------------------------------------
// Traces.

// A column of a built table: its schema and its values (one vector by type).
struct BuiltColumn {
  const char* name;
  th_value_type type;
  const char* unit;
  std::vector<int64_t> i64;
  std::vector<double> f64;
  std::vector<uint32_t> u32;  // U32 and STRING_ID
  std::vector<int32_t> i32;
  std::vector<uint16_t> u16;
  std::vector<int16_t> i16;
  std::vector<uint8_t> u8;
  std::vector<int8_t> i8;
  std::vector<float> f32;
  std::vector<std::string> text;
  std::vector<const char*> text_ptrs;

  const void* data() const {
    switch (type) {
      case TH_TYPE_I64:
        return i64.data();
      case TH_TYPE_F64:
        return f64.data();
      case TH_TYPE_U32:
      case TH_TYPE_STRING_ID:
        return u32.data();
      case TH_TYPE_I32:
        return i32.data();
      case TH_TYPE_U16:
        return u16.data();
      case TH_TYPE_I16:
        return i16.data();
      case TH_TYPE_U8:
      case TH_TYPE_BOOL:
        return u8.data();
      case TH_TYPE_I8:
        return i8.data();
      case TH_TYPE_F32:
        return f32.data();
      case TH_TYPE_STRING:
        return text_ptrs.data();
    }
    return nullptr;
  }
  uint64_t size() const {
    switch (type) {
      case TH_TYPE_I64:
        return i64.size();
      case TH_TYPE_F64:
        return f64.size();
      case TH_TYPE_U32:
      case TH_TYPE_STRING_ID:
        return u32.size();
      case TH_TYPE_I32:
        return i32.size();
      case TH_TYPE_U16:
        return u16.size();
      case TH_TYPE_I16:
        return i16.size();
      case TH_TYPE_U8:
      case TH_TYPE_BOOL:
        return u8.size();
      case TH_TYPE_I8:
        return i8.size();
      case TH_TYPE_F32:
        return f32.size();
      case TH_TYPE_STRING:
        return text_ptrs.size();
    }
    return 0;
  }
};

// One built trace: every catalog table as C structs, ready to hand over.
// Neither copied nor moved (the views point into it); TraceBuilder::Build
// returns it by unique_ptr.
class TestTrace {
 public:
  TestTrace() = default;
  TestTrace(const TestTrace&) = delete;
  TestTrace& operator=(const TestTrace&) = delete;

  int64_t rank() const { return rank_; }
  const std::string& path() const { return path_; }
  // Every catalog table, in catalog order.
  const std::vector<th_table>& tables() const { return tables_; }
  const th_table* Find(std::string_view name) const {
    for (const th_table& t : tables_)
      if (name == t.name) return &t;
    return nullptr;
  }
  const std::vector<std::string>& strings() const { return strings_; }
  int64_t correlation(uint64_t event) const {
    return event < correlation_.size() ? correlation_[event] : INT64_MIN;
  }
  int64_t external_id(uint64_t event) const {
    return event < external_id_.size() ? external_id_[event] : INT64_MIN;
  }

 private:
  friend class TraceBuilder;
  int64_t rank_ = 0;
  std::string path_;
  std::vector<std::string> strings_;
  std::vector<int64_t> correlation_, external_id_;
  std::deque<std::vector<BuiltColumn>> columns_;
  std::deque<std::vector<th_table_column>> c_columns_;
  std::vector<th_table> tables_;
};

// Optional arguments of a kernel, memcpy or memset (gpu_args; absent values
// as the catalog writes them). device and stream default to the track's.
struct GpuArgs {
  std::optional<int32_t> device;
  std::optional<int64_t> stream;
  int64_t bytes = -1;
  int32_t grid[3] = {0, 0, 0};
  int32_t block[3] = {0, 0, 0};
  int32_t registers = 0;
  int32_t shared_mem = 0;  // bytes per block
  float occupancy = -1;    // %
};

// collective_args of a communication kernel; names as Kineto writes them.
struct CollectiveArgs {
  std::string name = "allreduce";
  std::string dtype = "Float";
  std::string group = "0";
  int64_t in_nelems = 0, out_nelems = 0;
  int32_t group_size = 1;
};

// memory_args of an allocator event.
struct MemoryArgs {
  int8_t device_type = 1;  // c10 DeviceType: 0 CPU, 1 CUDA, 6 HIP
  int16_t device_id = 0;
  int64_t addr = 0;
  int64_t total_allocated = INT64_MIN;  // after the event; INT64_MIN = absent
  int64_t total_reserved = INT64_MIN;
};

// An accelerator of the devices table.
struct DeviceArgs {
  int32_t id = 0;
  std::string name = "NVIDIA H100 80GB HBM3";
  int64_t total_global_mem = 0;  // bytes, 0 = unknown
  int32_t compute_major = 0, compute_minor = 0;
  int32_t num_sms = 0;
};

// Builds one rank's trace, event by event, as the catalog tables tracehound
// hands a plugin (events, tracks, edges, profiler_steps, gpu_args, gpu_hlo,
// collective_args, memory_args, op_inputs, counters, devices, the HLO tables (empty),
// name_classes, class_rules, graph_capture, event_launches, gpu_activity, track_events,
// track_order,
// event_flags, xla_labels,
// xla_op_costs). Times
// are ns. Every method that
// adds an event returns its row in events.
class TraceBuilder {
 public:
  explicit TraceBuilder(int64_t rank = 0, std::string path = "test-trace.json")
      : rank_(rank), path_(std::move(path)) {
    strings_.push_back("");
    // The kit's stand-in for the built-in kernel class table: names with
    // nccl or rccl are communication; other activities are classed by kind.
    ClassRule(TH_RULES_TRACEHOUND, TH_CLASS_COMM, "*nccl*", true, "tracehound testing kit");
    ClassRule(TH_RULES_TRACEHOUND, TH_CLASS_COMM, "*rccl*", true, "tracehound testing kit");
    ClassRule(TH_RULES_HTA, TH_CLASS_COMM, "*nccl*", true, "tracehound testing kit");
    ClassRule(TH_RULES_HTA, TH_CLASS_COMM, "*rccl*", true, "tracehound testing kit");
    builtin_rules_ = rules_.size();
  }

  // Tracks. A CPU thread (pid, tid); a GPU stream of `device`.
  uint32_t CpuThread(int64_t pid, int64_t tid, std::string thread_name = "") {
    return AddTrack(TH_TRACK_CPU, pid, tid, Intern(thread_name), -1, -1);
  }
  uint32_t GpuStream(int32_t device, int64_t stream) {
    return AddTrack(TH_TRACK_GPU_STREAM, device, stream, 0, device, stream);
  }

  // Any event: kind TH_EVENT_*, category as a trace would write it.
  uint32_t Event(uint32_t track, uint32_t kind, std::string_view name, std::string_view category,
                 int64_t ts, int64_t dur) {
    if (track >= tracks_.size()) throw std::out_of_range("no track " + std::to_string(track));
    Ev e;
    e.ts = ts;
    e.dur = dur;
    e.name = Intern(name);
    e.cat = Intern(category);
    e.track = track;
    e.kind = static_cast<uint8_t>(kind);
    events_.push_back(e);
    return static_cast<uint32_t>(events_.size() - 1);
  }
  uint32_t CpuOp(uint32_t track, std::string_view name, int64_t ts, int64_t dur) {
    return Event(track, TH_EVENT_CPU_OP, name, "cpu_op", ts, dur);
  }
  uint32_t Annotation(uint32_t track, std::string_view name, int64_t ts, int64_t dur) {
    return Event(track, TH_EVENT_USER_ANNOTATION, name, "user_annotation", ts, dur);
  }
  uint32_t Runtime(uint32_t track, std::string_view name, int64_t ts, int64_t dur) {
    return Event(track, TH_EVENT_RUNTIME, name, "cuda_runtime", ts, dur);
  }
  uint32_t Kernel(uint32_t track, std::string_view name, int64_t ts, int64_t dur,
                  const GpuArgs& args = {}) {
    return Gpu(Event(track, TH_EVENT_KERNEL, name, "kernel", ts, dur), args);
  }
  uint32_t Memcpy(uint32_t track, std::string_view name, int64_t ts, int64_t dur, int64_t bytes) {
    GpuArgs args;
    args.bytes = bytes;
    return Gpu(Event(track, TH_EVENT_MEMCPY, name, "gpu_memcpy", ts, dur), args);
  }
  uint32_t Memset(uint32_t track, std::string_view name, int64_t ts, int64_t dur, int64_t bytes) {
    GpuArgs args;
    args.bytes = bytes;
    return Gpu(Event(track, TH_EVENT_MEMSET, name, "gpu_memset", ts, dur), args);
  }
  uint32_t GpuSync(uint32_t track, std::string_view name, int64_t ts, int64_t dur) {
    return Gpu(Event(track, TH_EVENT_GPU_SYNC, name, "cuda_sync", ts, dur), {});
  }
  // A communication kernel with its collective_args.
  uint32_t Collective(uint32_t track, std::string_view kernel_name, int64_t ts, int64_t dur,
                      const CollectiveArgs& args = {}) {
    const uint32_t e = Kernel(track, kernel_name, ts, dur);
    collectives_.push_back({e, Intern(args.name), Intern(args.dtype), Intern(args.group),
                            args.in_nelems, args.out_nelems, args.group_size});
    return e;
  }
  // A ProfilerStep#N window on a CPU thread (an event and its profiler_steps row).
  uint32_t ProfilerStep(uint32_t track, int64_t number, int64_t ts, int64_t dur) {
    const uint32_t e = Annotation(track, "ProfilerStep#" + std::to_string(number), ts, dur);
    steps_.push_back({number, e, ts, dur});
    return e;
  }
  // An allocator event ([memory]; bytes < 0 frees) and an [OutOfMemory].
  uint32_t Memory(uint32_t track, int64_t ts, int64_t bytes, const MemoryArgs& args = {}) {
    return AddMemory(Event(track, TH_EVENT_MEMORY, "[memory]", "cpu_instant_event", ts, 0), bytes,
                     args);
  }
  uint32_t OutOfMemory(uint32_t track, int64_t ts, int64_t bytes, const MemoryArgs& args = {}) {
    return AddMemory(
        Event(track, TH_EVENT_OUT_OF_MEMORY, "[OutOfMemory]", "cpu_instant_event", ts, 0), bytes,
        args);
  }
  // The op_inputs row of an event (Kineto record_shapes): "Input Dims" and
  // "Input type" as compact JSON text ("" when absent), e.g.
  // OpInputs(mm, "[[4096,4096],[4096,4096]]", R"(["c10::BFloat16","c10::BFloat16"])").
  // An event gets one row (a second call replaces the first).
  // "Concrete Inputs" as compact JSON text too ("" when absent), e.g.
  // R"(["","","","[1, 1]","[1, 1]","[1, 1]","1"])".
  void OpInputs(uint32_t event, std::string_view dims, std::string_view types,
                std::string_view concrete = {}) {
    CheckEvent(event);
    op_inputs_[event] = {Intern(dims), Intern(types), Intern(concrete)};
  }
  // A CPU op with its op_inputs row.
  uint32_t CpuOp(uint32_t track, std::string_view name, int64_t ts, int64_t dur,
                 std::string_view dims, std::string_view types, std::string_view concrete = {}) {
    const uint32_t e = CpuOp(track, name, ts, dur);
    OpInputs(e, dims, types, concrete);
    return e;
  }
  // A counter (C) event with one series value.
  uint32_t Counter(uint32_t track, std::string_view name, int64_t ts, std::string_view series,
                   double value) {
    const uint32_t e = Event(track, TH_EVENT_COUNTER, name, "", ts, 0);
    counters_.push_back({e, Intern(series), value});
    return e;
  }

  // Edges. A launch (runtime call -> GPU activity); both events get one
  // correlation id unless they have one already.
  void Launch(uint32_t launch_event, uint32_t gpu_event) {
    CheckEvent(launch_event);
    CheckEvent(gpu_event);
    int64_t id = Correlation(launch_event);
    if (id == INT64_MIN) id = Correlation(gpu_event);
    if (id == INT64_MIN) id = next_correlation_++;
    events_[launch_event].correlation = id;
    events_[gpu_event].correlation = id;
    edges_.push_back({launch_event, gpu_event, TH_EDGE_LAUNCH});
  }
  void Flow(uint32_t src, uint32_t dst) {
    CheckEvent(src);
    CheckEvent(dst);
    edges_.push_back({src, dst, TH_EDGE_FLOW});
  }
  void SetCorrelation(uint32_t event, int64_t id) {
    CheckEvent(event);
    events_[event].correlation = id;
  }
  void SetExternalId(uint32_t event, int64_t id) {
    CheckEvent(event);
    events_[event].external_id = id;
  }

  void Device(const DeviceArgs& device) { devices_.push_back(device); }
  // A kernel class rule, matched before the kit's built-ins (a pipeline's
  // kernel_classes:): a glob (* and ?) over the whole name.
  void ClassRule(uint32_t rule_set, uint32_t klass, std::string match, bool ignore_case = false,
                 std::string source = "test") {
    rules_.insert(rules_.begin() + static_cast<std::ptrdiff_t>(rules_.size() - builtin_rules_),
                  {rule_set, klass, ignore_case, std::move(match), std::move(source)});
  }
  void GraphCapture(const th_graph_capture& capture) { capture_ = capture; }

  // The trace as catalog tables. The builder can go on and build again.
  std::unique_ptr<TestTrace> Build() const {
    auto t = std::make_unique<TestTrace>();
    t->rank_ = rank_;
    t->path_ = path_;
    t->strings_ = strings_;
    const std::vector<uint32_t> gpu_row = GpuRows();
    const std::vector<uint32_t> memory_row = MemoryRows();
    const std::vector<uint32_t> op_row = OpInputsRows();
    std::vector<uint32_t> parent(events_.size(), kNone);
    std::vector<uint16_t> depth(events_.size(), 0);
    Nest(&parent, &depth);

    for (const Ev& e : events_) {
      t->correlation_.push_back(e.correlation);
      t->external_id_.push_back(e.external_id);
    }
    {
      auto& c = t->columns_.emplace_back();
      Col(c, "ts", TH_TYPE_I64, "ns", [&](BuiltColumn& x) {
        for (const Ev& e : events_) x.i64.push_back(e.ts);
      });
      Col(c, "dur", TH_TYPE_I64, "ns", [&](BuiltColumn& x) {
        for (const Ev& e : events_) x.i64.push_back(e.dur);
      });
      Col(c, "name", TH_TYPE_STRING_ID, "", [&](BuiltColumn& x) {
        for (const Ev& e : events_) x.u32.push_back(e.name);
      });
      Col(c, "cat", TH_TYPE_STRING_ID, "", [&](BuiltColumn& x) {
        for (const Ev& e : events_) x.u32.push_back(e.cat);
      });
      Col(c, "track", TH_TYPE_U32, "", [&](BuiltColumn& x) {
        for (const Ev& e : events_) x.u32.push_back(e.track);
      });
      Col(c, "parent", TH_TYPE_U32, "", [&](BuiltColumn& x) { x.u32 = parent; });
      Col(c, "depth", TH_TYPE_U16, "", [&](BuiltColumn& x) { x.u16 = depth; });
      Col(c, "kind", TH_TYPE_U8, "", [&](BuiltColumn& x) {
        for (const Ev& e : events_) x.u8.push_back(e.kind);
      });
      Col(c, "args_row", TH_TYPE_U32, "", [&](BuiltColumn& x) {
        for (size_t i = 0; i < events_.size(); ++i) {
          uint32_t row = gpu_row[i] != kNone ? gpu_row[i] : memory_row[i];
          if (row == kNone) row = op_row[i];
          if (row == kNone) row = CollectiveRow(static_cast<uint32_t>(i));
          x.u32.push_back(row);
        }
      });
      Finish(*t, "events", events_.size());
    }
    {
      auto& c = t->columns_.emplace_back();
      Col(c, "kind", TH_TYPE_U32, "", [&](BuiltColumn& x) {
        for (const th_track& k : tracks_) x.u32.push_back(k.kind);
      });
      Col(c, "pid", TH_TYPE_I64, "", [&](BuiltColumn& x) {
        for (const th_track& k : tracks_) x.i64.push_back(k.pid);
      });
      Col(c, "tid", TH_TYPE_I64, "", [&](BuiltColumn& x) {
        for (const th_track& k : tracks_) x.i64.push_back(k.tid);
      });
      Col(c, "pid_string", TH_TYPE_STRING_ID, "", [&](BuiltColumn& x) {
        for (const th_track& k : tracks_) x.u32.push_back(k.pid_string);
      });
      Col(c, "tid_string", TH_TYPE_STRING_ID, "", [&](BuiltColumn& x) {
        for (const th_track& k : tracks_) x.u32.push_back(k.tid_string);
      });
      Col(c, "process_name", TH_TYPE_STRING_ID, "", [&](BuiltColumn& x) {
        for (const th_track& k : tracks_) x.u32.push_back(k.process_name);
      });
      Col(c, "thread_name", TH_TYPE_STRING_ID, "", [&](BuiltColumn& x) {
        for (const th_track& k : tracks_) x.u32.push_back(k.thread_name);
      });
      Col(c, "device", TH_TYPE_I32, "", [&](BuiltColumn& x) {
        for (const th_track& k : tracks_) x.i32.push_back(k.device);
      });
      Col(c, "stream", TH_TYPE_I64, "", [&](BuiltColumn& x) {
        for (const th_track& k : tracks_) x.i64.push_back(k.stream);
      });
      Finish(*t, "tracks", tracks_.size());
    }
    {
      auto& c = t->columns_.emplace_back();
      Col(c, "src", TH_TYPE_U32, "", [&](BuiltColumn& x) {
        for (const Edge& e : edges_) x.u32.push_back(e.src);
      });
      Col(c, "dst", TH_TYPE_U32, "", [&](BuiltColumn& x) {
        for (const Edge& e : edges_) x.u32.push_back(e.dst);
      });
      Col(c, "kind", TH_TYPE_U8, "", [&](BuiltColumn& x) {
        for (const Edge& e : edges_) x.u8.push_back(e.kind);
      });
      Finish(*t, "edges", edges_.size());
    }
    {
      std::vector<th_step> steps = steps_;
      std::stable_sort(steps.begin(), steps.end(),
                       [](const th_step& a, const th_step& b) { return a.ts < b.ts; });
      auto& c = t->columns_.emplace_back();
      Col(c, "number", TH_TYPE_I64, "", [&](BuiltColumn& x) {
        for (const th_step& s : steps) x.i64.push_back(s.number);
      });
      Col(c, "event", TH_TYPE_U32, "", [&](BuiltColumn& x) {
        for (const th_step& s : steps) x.u32.push_back(s.event);
      });
      Col(c, "ts", TH_TYPE_I64, "ns", [&](BuiltColumn& x) {
        for (const th_step& s : steps) x.i64.push_back(s.ts);
      });
      Col(c, "dur", TH_TYPE_I64, "ns", [&](BuiltColumn& x) {
        for (const th_step& s : steps) x.i64.push_back(s.dur);
      });
      Finish(*t, "profiler_steps", steps.size());
    }
    {
      auto& c = t->columns_.emplace_back();
      Col(c, "event", TH_TYPE_U32, "", [&](BuiltColumn& x) {
        for (const Gp& g : gpu_) x.u32.push_back(g.event);
      });
      Col(c, "device", TH_TYPE_I32, "", [&](BuiltColumn& x) {
        for (const Gp& g : gpu_) x.i32.push_back(*g.args.device);
      });
      Col(c, "stream", TH_TYPE_I64, "", [&](BuiltColumn& x) {
        for (const Gp& g : gpu_) x.i64.push_back(*g.args.stream);
      });
      Col(c, "bytes", TH_TYPE_I64, "bytes", [&](BuiltColumn& x) {
        for (const Gp& g : gpu_) x.i64.push_back(g.args.bytes);
      });
      const char* grid[3] = {"grid_x", "grid_y", "grid_z"};
      for (int d = 0; d < 3; ++d)
        Col(c, grid[d], TH_TYPE_I32, "", [&](BuiltColumn& x) {
          for (const Gp& g : gpu_) x.i32.push_back(g.args.grid[d]);
        });
      const char* block[3] = {"block_x", "block_y", "block_z"};
      for (int d = 0; d < 3; ++d)
        Col(c, block[d], TH_TYPE_I32, "", [&](BuiltColumn& x) {
          for (const Gp& g : gpu_) x.i32.push_back(g.args.block[d]);
        });
      Col(c, "registers", TH_TYPE_I32, "", [&](BuiltColumn& x) {
        for (const Gp& g : gpu_) x.i32.push_back(g.args.registers);
      });
      Col(c, "shared_mem", TH_TYPE_I32, "bytes", [&](BuiltColumn& x) {
        for (const Gp& g : gpu_) x.i32.push_back(g.args.shared_mem);
      });
      Col(c, "occupancy", TH_TYPE_F32, "%", [&](BuiltColumn& x) {
        for (const Gp& g : gpu_) x.f32.push_back(g.args.occupancy);
      });
      Finish(*t, "gpu_args", gpu_.size());
    }
    {
      auto& c = t->columns_.emplace_back();
      Col(c, "instruction", TH_TYPE_U32, "", [](BuiltColumn&) {});
      Col(c, "match", TH_TYPE_U8, "", [](BuiltColumn&) {});
      Finish(*t, "gpu_hlo", 0);
    }
    {
      auto& c = t->columns_.emplace_back();
      Col(c, "event", TH_TYPE_U32, "", [&](BuiltColumn& x) {
        for (const Co& k : collectives_) x.u32.push_back(k.event);
      });
      Col(c, "name", TH_TYPE_STRING_ID, "", [&](BuiltColumn& x) {
        for (const Co& k : collectives_) x.u32.push_back(k.name);
      });
      Col(c, "dtype", TH_TYPE_STRING_ID, "", [&](BuiltColumn& x) {
        for (const Co& k : collectives_) x.u32.push_back(k.dtype);
      });
      Col(c, "group", TH_TYPE_STRING_ID, "", [&](BuiltColumn& x) {
        for (const Co& k : collectives_) x.u32.push_back(k.group);
      });
      Col(c, "in_nelems", TH_TYPE_I64, "", [&](BuiltColumn& x) {
        for (const Co& k : collectives_) x.i64.push_back(k.in_nelems);
      });
      Col(c, "out_nelems", TH_TYPE_I64, "", [&](BuiltColumn& x) {
        for (const Co& k : collectives_) x.i64.push_back(k.out_nelems);
      });
      Col(c, "group_size", TH_TYPE_I32, "", [&](BuiltColumn& x) {
        for (const Co& k : collectives_) x.i32.push_back(k.group_size);
      });
      Finish(*t, "collective_args", collectives_.size());
    }
    {
      auto& c = t->columns_.emplace_back();
      Col(c, "event", TH_TYPE_U32, "", [&](BuiltColumn& x) {
        for (const Me& m : memory_) x.u32.push_back(m.event);
      });
      Col(c, "device_type", TH_TYPE_I8, "", [&](BuiltColumn& x) {
        for (const Me& m : memory_) x.i8.push_back(m.args.device_type);
      });
      Col(c, "device_id", TH_TYPE_I16, "", [&](BuiltColumn& x) {
        for (const Me& m : memory_) x.i16.push_back(m.args.device_id);
      });
      Col(c, "addr", TH_TYPE_I64, "", [&](BuiltColumn& x) {
        for (const Me& m : memory_) x.i64.push_back(m.args.addr);
      });
      Col(c, "bytes", TH_TYPE_I64, "bytes", [&](BuiltColumn& x) {
        for (const Me& m : memory_) x.i64.push_back(m.bytes);
      });
      Col(c, "total_allocated", TH_TYPE_I64, "bytes", [&](BuiltColumn& x) {
        for (const Me& m : memory_) x.i64.push_back(m.args.total_allocated);
      });
      Col(c, "total_reserved", TH_TYPE_I64, "bytes", [&](BuiltColumn& x) {
        for (const Me& m : memory_) x.i64.push_back(m.args.total_reserved);
      });
      Finish(*t, "memory_args", memory_.size());
    }
    {
      auto& c = t->columns_.emplace_back();
      Col(c, "event", TH_TYPE_U32, "", [&](BuiltColumn& x) {
        for (const auto& [event, text] : op_inputs_) x.u32.push_back(event);
      });
      Col(c, "input_dims", TH_TYPE_STRING_ID, "", [&](BuiltColumn& x) {
        for (const auto& [event, text] : op_inputs_) x.u32.push_back(text.dims);
      });
      Col(c, "input_types", TH_TYPE_STRING_ID, "", [&](BuiltColumn& x) {
        for (const auto& [event, text] : op_inputs_) x.u32.push_back(text.types);
      });
      Col(c, "concrete_inputs", TH_TYPE_STRING_ID, "", [&](BuiltColumn& x) {
        for (const auto& [event, text] : op_inputs_) x.u32.push_back(text.concrete);
      });
      Finish(*t, "op_inputs", op_inputs_.size());
    }
    {
      auto& c = t->columns_.emplace_back();
      Col(c, "event", TH_TYPE_U32, "", [&](BuiltColumn& x) {
        for (const Cn& k : counters_) x.u32.push_back(k.event);
      });
      Col(c, "series", TH_TYPE_STRING_ID, "", [&](BuiltColumn& x) {
        for (const Cn& k : counters_) x.u32.push_back(k.series);
      });
      Col(c, "value", TH_TYPE_F64, "", [&](BuiltColumn& x) {
        for (const Cn& k : counters_) x.f64.push_back(k.value);
      });
      Finish(*t, "counters", counters_.size());
    }
    {
      auto& c = t->columns_.emplace_back();
      Col(c, "id", TH_TYPE_I32, "", [&](BuiltColumn& x) {
        for (const DeviceArgs& d : devices_) x.i32.push_back(d.id);
      });
      Col(c, "name", TH_TYPE_STRING, "", [&](BuiltColumn& x) {
        for (const DeviceArgs& d : devices_) x.text.push_back(d.name);
      });
      Col(c, "total_global_mem", TH_TYPE_I64, "bytes", [&](BuiltColumn& x) {
        for (const DeviceArgs& d : devices_) x.i64.push_back(d.total_global_mem);
      });
      Col(c, "compute_major", TH_TYPE_I32, "", [&](BuiltColumn& x) {
        for (const DeviceArgs& d : devices_) x.i32.push_back(d.compute_major);
      });
      Col(c, "compute_minor", TH_TYPE_I32, "", [&](BuiltColumn& x) {
        for (const DeviceArgs& d : devices_) x.i32.push_back(d.compute_minor);
      });
      Col(c, "num_sms", TH_TYPE_I32, "", [&](BuiltColumn& x) {
        for (const DeviceArgs& d : devices_) x.i32.push_back(d.num_sms);
      });
      Finish(*t, "devices", devices_.size());
    }
    EmptyHloTables(*t);
    {
      std::vector<uint32_t> rule, hta_rule;
      for (const std::string& s : strings_) {
        rule.push_back(MatchRule(s, TH_RULES_TRACEHOUND));
        hta_rule.push_back(MatchRule(s, TH_RULES_HTA));
      }
      auto& c = t->columns_.emplace_back();
      Col(c, "rule", TH_TYPE_U32, "", [&](BuiltColumn& x) { x.u32 = rule; });
      Col(c, "hta_rule", TH_TYPE_U32, "", [&](BuiltColumn& x) { x.u32 = hta_rule; });
      Finish(*t, "name_classes", strings_.size());
    }
    {
      auto& c = t->columns_.emplace_back();
      Col(c, "rule_set", TH_TYPE_U32, "", [&](BuiltColumn& x) {
        for (const Rule& r : rules_) x.u32.push_back(r.rule_set);
      });
      Col(c, "class", TH_TYPE_U32, "", [&](BuiltColumn& x) {
        for (const Rule& r : rules_) x.u32.push_back(r.klass);
      });
      Col(c, "ignore_case", TH_TYPE_U32, "", [&](BuiltColumn& x) {
        for (const Rule& r : rules_) x.u32.push_back(r.ignore_case ? 1 : 0);
      });
      Col(c, "match", TH_TYPE_STRING, "", [&](BuiltColumn& x) {
        for (const Rule& r : rules_) x.text.push_back(r.match);
      });
      Col(c, "source", TH_TYPE_STRING, "", [&](BuiltColumn& x) {
        for (const Rule& r : rules_) x.text.push_back(r.source);
      });
      Finish(*t, "class_rules", rules_.size());
    }
    {
      const th_graph_capture& g = capture_;
      auto& c = t->columns_.emplace_back();
      Col(c, "dominates", TH_TYPE_U8, "",
          [&](BuiltColumn& x) { x.u8.push_back(static_cast<uint8_t>(g.dominates)); });
      Col(c, "hip", TH_TYPE_U8, "",
          [&](BuiltColumn& x) { x.u8.push_back(static_cast<uint8_t>(g.hip)); });
      const std::pair<const char*, int64_t> counts[] = {{"begin_calls", g.begin_calls},
                                                        {"end_calls", g.end_calls},
                                                        {"instantiations", g.instantiations},
                                                        {"graph_launches", g.graph_launches},
                                                        {"captured_launches", g.captured_launches},
                                                        {"executed_launches", g.executed_launches},
                                                        {"kernels", g.kernels}};
      for (const auto& count : counts)
        Col(c, count.first, TH_TYPE_I64, "",
            [&](BuiltColumn& x) { x.i64.push_back(count.second); });
      Col(c, "first_ts", TH_TYPE_I64, "ns", [&](BuiltColumn& x) { x.i64.push_back(g.first_ts); });
      Col(c, "last_end", TH_TYPE_I64, "ns", [&](BuiltColumn& x) { x.i64.push_back(g.last_end); });
      Finish(*t, "graph_capture", 1);
    }
    {
      std::map<uint32_t, uint32_t> launch;  // launched event -> its launch call (the last edge)
      for (const Edge& e : edges_)
        if (e.kind == TH_EDGE_LAUNCH) launch[e.dst] = e.src;
      auto& c = t->columns_.emplace_back();
      Col(c, "event", TH_TYPE_U32, "", [&](BuiltColumn& x) {
        for (const auto& [event, call] : launch) x.u32.push_back(event);
      });
      Col(c, "launch", TH_TYPE_U32, "", [&](BuiltColumn& x) {
        for (const auto& [event, call] : launch) x.u32.push_back(call);
      });
      Finish(*t, "event_launches", launch.size());
    }
    {  // the kernels, memcpy and memset, by row
      auto& c = t->columns_.emplace_back();
      size_t rows = 0;
      Col(c, "event", TH_TYPE_U32, "", [&](BuiltColumn& x) {
        for (uint32_t i = 0; i < events_.size(); ++i) {
          const uint8_t k = events_[i].kind;
          if (k == TH_EVENT_KERNEL || k == TH_EVENT_MEMCPY || k == TH_EVENT_MEMSET)
            x.u32.push_back(i);
        }
        rows = x.u32.size();
      });
      Finish(*t, "gpu_activity", rows);
    }
    {  // each track's events by start (ts, the longer first, the lower row)
      std::vector<uint32_t> order = TrackOrder();
      std::vector<uint32_t> first(tracks_.size() + 1, 0);
      for (uint32_t i : order) ++first[events_[i].track + 1];
      for (size_t k = 0; k < tracks_.size(); ++k) first[k + 1] += first[k];
      auto& c = t->columns_.emplace_back();
      Col(c, "first", TH_TYPE_U32, "",
          [&](BuiltColumn& x) { x.u32.assign(first.begin(), first.end() - 1); });
      Col(c, "count", TH_TYPE_U32, "", [&](BuiltColumn& x) {
        for (size_t k = 0; k < tracks_.size(); ++k) x.u32.push_back(first[k + 1] - first[k]);
      });
      Col(c, "first_row", TH_TYPE_U32, "",
          [&](BuiltColumn& x) { x.u32.assign(tracks_.size(), kNone); });
      Finish(*t, "track_events", tracks_.size());
      auto& o = t->columns_.emplace_back();
      Col(o, "event", TH_TYPE_U32, "", [&](BuiltColumn& x) { x.u32 = order; });
      Finish(*t, "track_order", order.size());
    }
    {  // events as built are read in full: no flag set
      auto& c = t->columns_.emplace_back();
      Col(c, "flags", TH_TYPE_U8, "", [&](BuiltColumn& x) { x.u8.assign(events_.size(), 0); });
      Finish(*t, "event_flags", events_.size());
    }
    {  // no XLA labels
      auto& c = t->columns_.emplace_back();
      Col(c, "event", TH_TYPE_U32, "", [](BuiltColumn&) {});
      Col(c, "hlo_op", TH_TYPE_STRING_ID, "", [](BuiltColumn&) {});
      Col(c, "hlo_module", TH_TYPE_STRING_ID, "", [](BuiltColumn&) {});
      Finish(*t, "xla_labels", 0);
    }
    {  // no runtime op costs
      auto& c = t->columns_.emplace_back();
      Col(c, "event", TH_TYPE_U32, "", [](BuiltColumn&) {});
      Col(c, "flops", TH_TYPE_I64, "FLOP", [](BuiltColumn&) {});
      Col(c, "model_flops", TH_TYPE_I64, "FLOP", [](BuiltColumn&) {});
      Col(c, "bytes_accessed", TH_TYPE_I64, "bytes", [](BuiltColumn&) {});
      Finish(*t, "xla_op_costs", 0);
    }
    return t;
  }

 private:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  struct Ev {
    int64_t ts = 0, dur = 0;
    uint32_t name = 0, cat = 0, track = 0;
    uint8_t kind = TH_EVENT_OTHER;
    int64_t correlation = INT64_MIN, external_id = INT64_MIN;
  };
  struct Edge {
    uint32_t src, dst;
    uint8_t kind;
  };
  struct Gp {
    uint32_t event;
    GpuArgs args;
  };
  struct Co {
    uint32_t event, name, dtype, group;
    int64_t in_nelems, out_nelems;
    int32_t group_size;
  };
  struct Me {
    uint32_t event;
    int64_t bytes;
    MemoryArgs args;
  };
  struct Cn {
    uint32_t event, series;
    double value;
  };
  struct Rule {
    uint32_t rule_set, klass;
    bool ignore_case;
    std::string match, source;
  };

  uint32_t Intern(std::string_view s) {
    if (s.empty()) return 0;
    for (size_t i = 0; i < strings_.size(); ++i)
      if (strings_[i] == s) return static_cast<uint32_t>(i);
    strings_.emplace_back(s);
    return static_cast<uint32_t>(strings_.size() - 1);
  }
  uint32_t AddTrack(uint32_t kind, int64_t pid, int64_t tid, uint32_t thread_name, int32_t device,
                    int64_t stream) {
    th_track t{};
    t.kind = kind;
    t.pid = pid;
    t.tid = tid;
    t.thread_name = thread_name;
    t.device = device;
    t.stream = stream;
    tracks_.push_back(t);
    return static_cast<uint32_t>(tracks_.size() - 1);
  }
  void CheckEvent(uint32_t e) const {
    if (e >= events_.size()) throw std::out_of_range("no event " + std::to_string(e));
  }
  int64_t Correlation(uint32_t e) const { return events_[e].correlation; }
  uint32_t Gpu(uint32_t event, GpuArgs args) {
    const th_track& t = tracks_[events_[event].track];
    if (!args.device) args.device = t.device;
    if (!args.stream) args.stream = t.stream;
    gpu_.push_back({event, args});
    return event;
  }
  uint32_t AddMemory(uint32_t event, int64_t bytes, const MemoryArgs& args) {
    memory_.push_back({event, bytes, args});
    return event;
  }
  std::vector<uint32_t> GpuRows() const {
    std::vector<uint32_t> row(events_.size(), kNone);
    for (size_t r = 0; r < gpu_.size(); ++r) row[gpu_[r].event] = static_cast<uint32_t>(r);
    return row;
  }
  std::vector<uint32_t> MemoryRows() const {
    std::vector<uint32_t> row(events_.size(), kNone);
    for (size_t r = 0; r < memory_.size(); ++r) row[memory_[r].event] = static_cast<uint32_t>(r);
    return row;
  }
  // Per event, its op_inputs row (rows in event order), kNone if none.
  std::vector<uint32_t> OpInputsRows() const {
    std::vector<uint32_t> row(events_.size(), kNone);
    uint32_t r = 0;
    for (const auto& [event, text] : op_inputs_) row[event] = r++;
    return row;
  }
  uint32_t CollectiveRow(uint32_t event) const {
    for (size_t r = 0; r < collectives_.size(); ++r)
      if (collectives_[r].event == event) return static_cast<uint32_t>(r);
    return kNone;
  }
  // The events of every track by start, tracks in order (track_order):
  // metadata and flows aside.
  std::vector<uint32_t> TrackOrder() const {
    std::vector<uint32_t> order;
    for (uint32_t i = 0; i < events_.size(); ++i)
      if (events_[i].kind != TH_EVENT_METADATA && events_[i].kind != TH_EVENT_FLOW)
        order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const Ev &x = events_[a], &y = events_[b];
      if (x.track != y.track) return x.track < y.track;
      if (x.ts != y.ts) return x.ts < y.ts;
      return x.dur > y.dur;
    });
    return order;
  }
  // parent/depth: the innermost event on the same track that encloses each.
  void Nest(std::vector<uint32_t>* parent, std::vector<uint16_t>* depth) const {
    std::vector<uint32_t> order(events_.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const Ev &x = events_[a], &y = events_[b];
      if (x.track != y.track) return x.track < y.track;
      if (x.ts != y.ts) return x.ts < y.ts;
      return x.dur > y.dur;
    });
    std::vector<uint32_t> open;
    for (size_t k = 0; k < order.size(); ++k) {
      const uint32_t i = order[k];
      const Ev& e = events_[i];
      if (k > 0 && events_[order[k - 1]].track != e.track) open.clear();
      while (!open.empty()) {
        const Ev& top = events_[open.back()];
        if (e.ts >= top.ts && e.ts + e.dur <= top.ts + top.dur) break;
        open.pop_back();
      }
      (*parent)[i] = open.empty() ? kNone : open.back();
      (*depth)[i] = static_cast<uint16_t>(open.size());
      open.push_back(i);
    }
  }
  static bool Glob(std::string_view pattern, std::string_view s, bool ignore_case) {
    auto eq = [&](char a, char b) {
      if (!ignore_case) return a == b;
      auto low = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
      return low(a) == low(b);
    };
    size_t p = 0, i = 0, star = std::string_view::npos, mark = 0;
    while (i < s.size()) {
      if (p < pattern.size() && (pattern[p] == '?' || eq(pattern[p], s[i]))) {
        ++p;
        ++i;
      } else if (p < pattern.size() && pattern[p] == '*') {
        star = p++;
        mark = i;
      } else if (star != std::string_view::npos) {
        p = star + 1;
        i = ++mark;
      } else {
        return false;
      }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
  }
  uint32_t MatchRule(const std::string& name, uint32_t rule_set) const {
    if (name.empty()) return TH_NO_RULE;
    for (size_t r = 0; r < rules_.size(); ++r)
      if (rules_[r].rule_set == rule_set && Glob(rules_[r].match, name, rules_[r].ignore_case))
        return static_cast<uint32_t>(r);
    return TH_NO_RULE;
  }

  template <typename Fill>
  static void Col(std::vector<BuiltColumn>& cols, const char* name, th_value_type type,
                  const char* unit, Fill fill) {
    BuiltColumn& c = cols.emplace_back();
    c.name = name;
    c.type = type;
    c.unit = unit;
    fill(c);
    for (const std::string& s : c.text) c.text_ptrs.push_back(s.c_str());
  }
  static void Finish(TestTrace& t, const char* name, uint64_t rows) {
    const std::vector<BuiltColumn>& cols = t.columns_.back();
    auto& c_cols = t.c_columns_.emplace_back();
    for (const BuiltColumn& c : cols) {
      if (c.size() != rows)
        throw std::logic_error(std::string("testing kit: ") + name + "." + c.name + " has " +
                               std::to_string(c.size()) + " values for " + std::to_string(rows) +
                               " rows");
      c_cols.push_back({c.name, {c.data(), c.size(), static_cast<uint32_t>(c.type), 0}, c.unit});
    }
    th_table table{};
    table.struct_size = sizeof table;
    table.name = name;
    table.columns = c_cols.data();
    table.column_count = static_cast<uint32_t>(c_cols.size());
    table.row_count = rows;
    t.tables_.push_back(table);
  }
  static void EmptyHloTables(TestTrace& t) {
    auto none = [](BuiltColumn&) {};
    {
      auto& c = t.columns_.emplace_back();
      Col(c, "name", TH_TYPE_STRING_ID, "", none);
      Col(c, "id", TH_TYPE_I64, "", none);
      Finish(t, "hlo_modules", 0);
    }
    {
      auto& c = t.columns_.emplace_back();
      const std::pair<const char*, th_value_type> cols[] = {
          {"module", TH_TYPE_U32},
          {"name", TH_TYPE_STRING_ID},
          {"opcode", TH_TYPE_STRING_ID},
          {"shape", TH_TYPE_STRING_ID},
          {"op_name", TH_TYPE_STRING_ID},
          {"source_file", TH_TYPE_STRING_ID},
          {"source_line", TH_TYPE_I32},
          {"caller", TH_TYPE_U32},
          {"custom_call_target", TH_TYPE_STRING_ID},
          {"fusion_kind", TH_TYPE_STRING_ID},
          {"computation", TH_TYPE_STRING_ID},
          {"parameter_number", TH_TYPE_I32},
          {"tuple_index", TH_TYPE_I32},
          {"in_entry", TH_TYPE_U8}};
      for (const auto& [name, type] : cols) Col(c, name, type, "", none);
      Finish(t, "hlo_instructions", 0);
    }
    {
      auto& c = t.columns_.emplace_back();
      const std::pair<const char*, th_value_type> cols[] = {
          {"dot_dims", TH_TYPE_STRING_ID},    {"window", TH_TYPE_STRING_ID},
          {"dim_labels", TH_TYPE_STRING_ID},  {"feature_group_count", TH_TYPE_I64},
          {"batch_group_count", TH_TYPE_I64}, {"custom_call_config", TH_TYPE_STRING_ID}};
      for (const auto& [name, type] : cols) Col(c, name, type, "", none);
      Finish(t, "hlo_compute_dims", 0);
    }
    const std::pair<const char*, const char*> csr[] = {{"hlo_operand_offsets", "first"},
                                                       {"hlo_operands", "instruction"},
                                                       {"hlo_user_offsets", "first"},
                                                       {"hlo_users", "instruction"}};
    for (const auto& [table, column] : csr) {
      auto& c = t.columns_.emplace_back();
      Col(c, column, TH_TYPE_U32, "", none);
      Finish(t, table, 0);
    }
  }

  int64_t rank_;
  std::string path_;
  std::vector<std::string> strings_;
  std::vector<Ev> events_;
  std::vector<th_track> tracks_;
  std::vector<Edge> edges_;
  std::vector<th_step> steps_;
  std::vector<Gp> gpu_;
  std::vector<Co> collectives_;
  struct OpInputTexts {
    uint32_t dims, types, concrete;  // string ids
  };
  std::map<uint32_t, OpInputTexts> op_inputs_;  // by event
  std::vector<Me> memory_;
  std::vector<Cn> counters_;
  std::vector<DeviceArgs> devices_;
  std::vector<Rule> rules_;
  size_t builtin_rules_ = 0;
  th_graph_capture capture_{};
  int64_t next_correlation_ = 1;
};

// ---------------------------------------------------------------------------
// What a plugin reported.

struct ReportedEvidence {
  std::string name;
  double value = 0;
  std::string unit;
  uint32_t kind = TH_MEASURED;  // th_number_kind
};

struct ReportedFinding {
  uint32_t severity = TH_P2;  // th_severity
  std::string title, what, suggestion, group;
  double confidence = 1;
  th_scope scope{-1, -1, -1, -1, -1};
  std::vector<ReportedEvidence> evidence;
  std::optional<double> saving_ns, time_lost_ns;
  std::optional<std::pair<int64_t, int64_t>> range;
};

struct ReportedMetric {
  std::string name, unit;
  double value = 0;
  uint32_t kind = TH_MEASURED;
  th_scope scope{-1, -1, -1, -1, -1};
};

// A published table, copied (columns of type I64, F64 or STRING).
struct PublishedTable {
  struct Column {
    std::string name, unit;
    uint32_t type = TH_TYPE_I64;
    std::vector<int64_t> ints;
    std::vector<double> reals;
    std::vector<std::string> texts;
  };
  std::string name;
  uint64_t rows = 0;
  std::vector<Column> columns;

  const Column* Find(std::string_view column) const {
    for (const Column& c : columns)
      if (c.name == column) return &c;
    return nullptr;
  }
  // The values of `column`; empty when it is absent or of another type.
  std::vector<int64_t> Ints(std::string_view column) const {
    const Column* c = Find(column);
    return c && c->type == TH_TYPE_I64 ? c->ints : std::vector<int64_t>{};
  }
  std::vector<double> Reals(std::string_view column) const {
    const Column* c = Find(column);
    return c && c->type == TH_TYPE_F64 ? c->reals : std::vector<double>{};
  }
  std::vector<std::string> Texts(std::string_view column) const {
    const Column* c = Find(column);
    return c && c->type == TH_TYPE_STRING ? c->texts : std::vector<std::string>{};
  }
};

struct ReportedCheck {
  std::string name, detail;
  bool passed = false;
};

struct ReportedSkip {
  int64_t rank = -1;
  std::string reason;
};

struct LogLine {
  int level = 0;  // 0 info, 1 warning
  std::string message;
};

// Everything one run reported. ok: the plugin's run returned TH_STATUS_OK
// (error holds its message otherwise, or why the kit did not run it).
struct RunResult {
  bool ok = false;
  std::string error;
  std::vector<ReportedFinding> findings;
  std::vector<ReportedMetric> metrics;
  std::map<std::string, PublishedTable> tables;
  std::vector<ReportedCheck> checks;
  std::vector<ReportedSkip> skips;
  std::vector<LogLine> logs;

  const PublishedTable* Table(std::string_view name) const {
    auto it = tables.find(std::string(name));
    return it == tables.end() ? nullptr : &it->second;
  }
  // The first metric `name` with scope rank `rank` (-1: any rank).
  const ReportedMetric* Metric(std::string_view name, int64_t rank = -1) const {
    for (const ReportedMetric& m : metrics)
      if (m.name == name && (rank == -1 || m.scope.rank == rank)) return &m;
    return nullptr;
  }
};

inline const char* SeverityName(uint32_t severity) {
  switch (severity) {
    case TH_P0:
      return "P0";
    case TH_P1:
      return "P1";
    case TH_P2:
      return "P2";
    case TH_INFO:
      return "INFO";
  }
  return "?";
}

// One line per finding, metric, table, check, skip and warning: for failure
// messages.
inline std::string Summary(const RunResult& r) {
  std::string out = r.ok ? "run ok\n" : "run failed: " + r.error + "\n";
  for (const ReportedFinding& f : r.findings) {
    out += "  finding " + std::string(SeverityName(f.severity)) + " \"" + f.title + "\"";
    if (f.time_lost_ns) out += " time_lost=" + std::to_string(*f.time_lost_ns);
    if (f.saving_ns) out += " saving=" + std::to_string(*f.saving_ns);
    out += " rank=" + std::to_string(f.scope.rank) + "\n";
  }
  for (const ReportedMetric& m : r.metrics)
    out += "  metric " + m.name + " = " + std::to_string(m.value) + " " + m.unit +
           " rank=" + std::to_string(m.scope.rank) + "\n";
  for (const auto& [name, t] : r.tables)
    out += "  table " + name + " (" + std::to_string(t.rows) + " rows)\n";
  for (const ReportedCheck& c : r.checks)
    out += "  check " + c.name + (c.passed ? " passed" : " FAILED: " + c.detail) + "\n";
  for (const ReportedSkip& s : r.skips)
    out += "  skipped rank " + std::to_string(s.rank) + ": " + s.reason + "\n";
  for (const LogLine& l : r.logs)
    if (l.level) out += "  warning: " + l.message + "\n";
  return out;
}

// ---------------------------------------------------------------------------
// Running a plugin.

// An option value to override a default: bool, integer, real or string.
struct OptionValue {
  OptionValue(bool v) : type(TH_TYPE_BOOL), i64(v) {}
  OptionValue(int v) : type(TH_TYPE_I64), i64(v), f64(v) {}
  OptionValue(long v) : type(TH_TYPE_I64), i64(v), f64(static_cast<double>(v)) {}
  OptionValue(long long v) : type(TH_TYPE_I64), i64(v), f64(static_cast<double>(v)) {}
  OptionValue(double v) : type(TH_TYPE_F64), f64(v) {}
  OptionValue(const char* v) : type(TH_TYPE_STRING), str(v) {}
  OptionValue(std::string v) : type(TH_TYPE_STRING), str(std::move(v)) {}
  uint32_t type;
  int64_t i64 = 0;
  double f64 = 0;
  std::string str;
};
using Options = std::map<std::string, OptionValue>;

// Runs plugins' descriptors on built traces as tracehound's host does.
// Tables a plugin publishes stay with the Host, so a later Run of another
// plugin that declares it reads them finds them (a pipeline's order).
class Host {
 public:
  RunResult Run(const th_plugin_descriptor* d, const std::vector<const TestTrace*>& traces,
                const Options& options = {}) {
    RunResult result;
    if (std::string why = CheckDescriptor(d); !why.empty()) {
      result.error = why;
      return result;
    }
    std::vector<th_option_value> opts;
    if (std::string why = ResolveOptions(*d, options, &opts); !why.empty()) {
      result.error = why;
      return result;
    }
    State st{this, d, &result, {}, {}, {}, {}, {}};
    for (const TestTrace* t : traces) {
      auto& tables = st.view_tables.emplace_back();
      for (uint32_t r = 0; r < d->read_count; ++r)
        if (const th_table* table = t->Find(d->reads[r])) tables.push_back(*table);
      th_trace_view v{};
      v.struct_size = sizeof v;
      v.path = t->path().c_str();
      v.rank = t->rank();
      v.tables = tables.data();
      v.table_count = static_cast<uint32_t>(tables.size());
      v.host_trace = t;
      st.views.push_back(v);
    }
    std::vector<const th_trace_view*> view_ptrs;
    for (const th_trace_view& v : st.views) view_ptrs.push_back(&v);

    th_host_api host{};
    host.struct_size = sizeof host;
    host.api_major = TH_PLUGIN_API_MAJOR;
    host.api_minor = TH_PLUGIN_API_MINOR;
    host.ctx = &st;
    host.log = &Log;
    host.string_at = &StringAt;
    host.correlation = &CorrelationOf;
    host.external_id = &ExternalIdOf;
    host.add_finding = &AddFinding;
    host.publish_metric = &PublishMetric;
    host.publish_table = &PublishTable;
    host.find_table = &FindTable;
    host.add_check = &AddCheck;
    host.sort_by_key = &SortByKeyFn;
    host.reduce_by_key = &ReduceByKeyFn;
    host.segmented_percentiles = &SegmentedPercentilesFn;
    host.interval_union = &IntervalUnionFn;
    host.interval_overlap = &IntervalOverlapFn;
    host.skip_trace = &SkipTrace;

    th_run_input input{};
    input.struct_size = sizeof input;
    input.trace_count = static_cast<uint32_t>(view_ptrs.size());
    input.traces = view_ptrs.data();
    input.options = opts.data();
    input.option_count = static_cast<uint32_t>(opts.size());
    char error[1024] = {0};
    result.ok = d->run(&host, &input, error, sizeof error) == TH_STATUS_OK;
    if (!result.ok) result.error = error[0] ? error : "no message";
    for (const auto& [name, table] : result.tables) published_[name] = table;
    return result;
  }

  // What the loader checks before calling anything: "" or the reason.
  static std::string CheckDescriptor(const th_plugin_descriptor* d) {
    if (!d) return "no descriptor";
    if (d->struct_size < sizeof(th_plugin_descriptor)) return "descriptor struct_size too small";
    if (d->api_major != TH_PLUGIN_API_MAJOR || d->api_minor > TH_PLUGIN_API_MINOR)
      return "plugin API " + std::to_string(d->api_major) + "." + std::to_string(d->api_minor) +
             " does not match the SDK's " + std::to_string(TH_PLUGIN_API_MAJOR) + "." +
             std::to_string(TH_PLUGIN_API_MINOR);
    if (!d->id || !*d->id) return "descriptor has no id";
    if (!d->run) return "descriptor has no run function";
    return "";
  }

 private:
  struct State {
    Host* host;
    const th_plugin_descriptor* d;
    RunResult* result;
    std::deque<std::vector<th_table>> view_tables;
    std::vector<th_trace_view> views;
    std::deque<th_table> c_tables;
    std::deque<std::vector<th_table_column>> c_columns;
    std::deque<std::vector<const char*>> c_strings;
  };
  static State& Of(void* ctx) { return *static_cast<State*>(ctx); }
  static const TestTrace& TraceOf(const th_trace_view* v) {
    return *static_cast<const TestTrace*>(v->host_trace);
  }
  static std::string Str(const char* s) { return s ? s : ""; }

  // Every declared option with its default, then `options`; "" or why not.
  static std::string ResolveOptions(const th_plugin_descriptor& d, const Options& options,
                                    std::vector<th_option_value>* out) {
    for (const auto& [name, value] : options) {
      bool declared = false;
      for (uint32_t i = 0; i < d.option_count; ++i) declared |= name == d.options[i].name;
      if (!declared) return "option '" + name + "' is not among the options the plugin declares";
    }
    for (uint32_t i = 0; i < d.option_count; ++i) {
      const th_option_decl& decl = d.options[i];
      th_option_value v = decl.default_value;
      v.name = decl.name;
      v.type = decl.type;
      auto it = options.find(decl.name);
      if (it != options.end()) {
        const OptionValue& o = it->second;
        const bool int_for_real = o.type == TH_TYPE_I64 && decl.type == TH_TYPE_F64;
        if (o.type != decl.type && !int_for_real)
          return "option '" + Str(decl.name) + "' has another type than its declaration";
        v.i64 = o.i64;
        v.f64 = int_for_real ? static_cast<double>(o.i64) : o.f64;
        v.str = o.str.c_str();
        const double x = decl.type == TH_TYPE_F64 ? v.f64 : static_cast<double>(v.i64);
        if ((decl.has_min && x < decl.min) || (decl.has_max && x > decl.max))
          return "option '" + Str(decl.name) + "' is out of its declared range";
        if (decl.type == TH_TYPE_STRING && decl.choice_count > 0) {
          bool allowed = false;
          for (uint32_t c = 0; c < decl.choice_count; ++c) allowed |= o.str == decl.choices[c];
          if (!allowed) return "option '" + Str(decl.name) + "' is not one of its choices";
        }
      }
      out->push_back(v);
    }
    return "";
  }

  static void Log(void* ctx, int level, const char* message) {
    Of(ctx).result->logs.push_back({level, Str(message)});
  }
  static const char* StringAt(void*, const th_trace_view* v, uint32_t id, uint64_t* length) {
    const std::vector<std::string>& strings = TraceOf(v).strings();
    const std::string& s = id < strings.size() ? strings[id] : strings[0];
    if (length) *length = s.size();
    return s.c_str();
  }
  static int64_t CorrelationOf(void*, const th_trace_view* v, uint64_t event) {
    return TraceOf(v).correlation(event);
  }
  static int64_t ExternalIdOf(void*, const th_trace_view* v, uint64_t event) {
    return TraceOf(v).external_id(event);
  }
  static th_status AddFinding(void* ctx, const th_finding* f) {
    if (!f || f->struct_size < sizeof(th_finding) || f->severity > TH_INFO || !f->title)
      return TH_STATUS_ERROR;
    ReportedFinding out;
    out.severity = f->severity;
    out.title = f->title;
    out.what = Str(f->what);
    out.suggestion = Str(f->suggestion);
    out.confidence = f->confidence;
    out.scope = f->scope;
    for (uint32_t i = 0; i < f->evidence_count; ++i) {
      const th_evidence& e = f->evidence[i];
      out.evidence.push_back({Str(e.name), e.value, Str(e.unit), e.kind});
    }
    if (f->has_saving) out.saving_ns = f->saving_ns;
    if (f->has_time_lost) out.time_lost_ns = f->time_lost_ns;
    out.group = Str(f->group);
    if (f->has_range) out.range = std::make_pair(f->t0, f->t1);
    Of(ctx).result->findings.push_back(std::move(out));
    return TH_STATUS_OK;
  }
  static th_status PublishMetric(void* ctx, const th_metric* m) {
    if (!m || m->struct_size < sizeof(th_metric) || !m->name) return TH_STATUS_ERROR;
    Of(ctx).result->metrics.push_back({m->name, Str(m->unit), m->value, m->kind, m->scope});
    return TH_STATUS_OK;
  }
  static th_status AddCheck(void* ctx, const th_check* c) {
    if (!c || c->struct_size < sizeof(th_check) || !c->name) return TH_STATUS_ERROR;
    Of(ctx).result->checks.push_back({c->name, Str(c->detail), c->passed != 0});
    return TH_STATUS_OK;
  }
  static th_status SkipTrace(void* ctx, const th_trace_view* v, const char* reason) {
    if (!v || !reason) return TH_STATUS_ERROR;
    Of(ctx).result->skips.push_back({v->rank, reason});
    return TH_STATUS_OK;
  }
  static th_status Refuse(void* ctx, const std::string& why) {
    Log(ctx, 1, why.c_str());
    return TH_STATUS_ERROR;
  }
  // "" when `t` matches `schema`: the same columns in order, of the same
  // types and units, all row_count long.
  static std::string Mismatch(const th_table& t, const th_table_schema& schema) {
    if (t.column_count != schema.column_count)
      return std::to_string(t.column_count) + " columns, its schema declares " +
             std::to_string(schema.column_count);
    for (uint32_t c = 0; c < t.column_count; ++c) {
      const th_table_column& col = t.columns[c];
      const th_column_schema& want = schema.columns[c];
      if (Str(col.name) != Str(want.name) || col.values.type != want.type ||
          Str(col.unit) != Str(want.unit))
        return "column " + std::to_string(c + 1) + " is '" + Str(col.name) +
               "', its schema declares '" + Str(want.name) + "' (or another type or unit)";
      if (col.values.length != t.row_count)
        return "column '" + Str(col.name) + "' has " + std::to_string(col.values.length) +
               " values, the table " + std::to_string(t.row_count) + " rows";
    }
    return "";
  }
  static th_status PublishTable(void* ctx, const th_table* t) {
    State& st = Of(ctx);
    if (!t || t->struct_size < sizeof(th_table) || !t->name) return TH_STATUS_ERROR;
    const th_table_schema* schema = nullptr;
    for (uint32_t i = 0; i < st.d->publish_count; ++i)
      if (Str(st.d->publishes[i].name) == t->name) schema = &st.d->publishes[i];
    if (!schema)
      return Refuse(ctx,
                    "table '" + Str(t->name) + "' is not among the tables it declares; refused");
    if (std::string why = Mismatch(*t, *schema); !why.empty())
      return Refuse(ctx, "table '" + Str(t->name) + "' does not match its declared schema: " + why +
                             "; refused");
    PublishedTable out;
    out.name = t->name;
    out.rows = t->row_count;
    for (uint32_t c = 0; c < t->column_count; ++c) {
      const th_table_column& col = t->columns[c];
      PublishedTable::Column pc;
      pc.name = Str(col.name);
      pc.unit = Str(col.unit);
      pc.type = col.values.type;
      const uint64_t n = col.values.length;
      if (pc.type == TH_TYPE_I64) {
        auto* p = static_cast<const int64_t*>(col.values.data);
        pc.ints.assign(p, p + n);
      } else if (pc.type == TH_TYPE_F64) {
        auto* p = static_cast<const double*>(col.values.data);
        pc.reals.assign(p, p + n);
      } else if (pc.type == TH_TYPE_STRING) {
        auto* p = static_cast<const char* const*>(col.values.data);
        for (uint64_t i = 0; i < n; ++i) pc.texts.push_back(Str(p[i]));
      } else {
        return Refuse(ctx, "table '" + out.name + "': column '" + pc.name +
                               "' is of a type a published table cannot have");
      }
      out.columns.push_back(std::move(pc));
    }
    st.result->tables[out.name] = std::move(out);
    return TH_STATUS_OK;
  }
  static th_status FindTable(void* ctx, const char* name, const th_table** found) {
    State& st = Of(ctx);
    if (!found) return TH_STATUS_ERROR;
    *found = nullptr;
    bool declared = false;
    for (uint32_t r = 0; r < st.d->read_count; ++r) declared |= Str(name) == st.d->reads[r];
    if (!declared)
      return Refuse(ctx, "reads table '" + Str(name) +
                             "' without declaring it among the tables it reads; refused");
    const PublishedTable* t = st.result->Table(Str(name));
    if (!t) {
      auto it = st.host->published_.find(Str(name));
      if (it == st.host->published_.end()) return TH_STATUS_OK;
      t = &it->second;
    }
    auto& cols = st.c_columns.emplace_back();
    for (const PublishedTable::Column& c : t->columns) {
      th_table_column col{};
      col.name = c.name.c_str();
      col.unit = c.unit.c_str();
      if (c.type == TH_TYPE_I64) {
        col.values = {c.ints.data(), c.ints.size(), TH_TYPE_I64, 0};
      } else if (c.type == TH_TYPE_F64) {
        col.values = {c.reals.data(), c.reals.size(), TH_TYPE_F64, 0};
      } else {
        auto& ptrs = st.c_strings.emplace_back();
        for (const std::string& s : c.texts) ptrs.push_back(s.c_str());
        col.values = {ptrs.data(), ptrs.size(), TH_TYPE_STRING, 0};
      }
      cols.push_back(col);
    }
    th_table& out = st.c_tables.emplace_back();
    out = {};
    out.struct_size = sizeof out;
    out.name = t->name.c_str();
    out.columns = cols.data();
    out.column_count = static_cast<uint32_t>(cols.size());
    out.row_count = t->rows;
    *found = &out;
    return TH_STATUS_OK;
  }
  static th_status Computed(void* ctx, const char* what, const std::string& error) {
    if (error.empty()) return TH_STATUS_OK;
    return Refuse(ctx, std::string(what) + ": " + error);
  }
  static th_status SortByKeyFn(void* ctx, int64_t* keys, uint32_t* values, uint64_t n) {
    return Computed(ctx, "sort_by_key", cpu::SortByKey(keys, values, n));
  }
  static th_status ReduceByKeyFn(void* ctx, const uint32_t* keys, const int64_t* values, uint64_t n,
                                 uint32_t op, int64_t* out, uint64_t num_keys) {
    return Computed(ctx, "reduce_by_key", cpu::ReduceByKey(keys, values, n, op, out, num_keys));
  }
  static th_status SegmentedPercentilesFn(void* ctx, const int64_t* values, const uint64_t* offsets,
                                          uint64_t segments, const double* percentiles,
                                          uint64_t count, int64_t* out) {
    return Computed(ctx, "segmented_percentiles",
                    cpu::SegmentedPercentiles(values, offsets, segments, percentiles, count, out));
  }
  static th_status IntervalUnionFn(void* ctx, const uint32_t* group, const int64_t* begin,
                                   const int64_t* end, uint64_t n, int64_t* out,
                                   uint64_t num_groups) {
    return Computed(ctx, "interval_union",
                    cpu::IntervalUnion(group, begin, end, n, out, num_groups));
  }
  static th_status IntervalOverlapFn(void* ctx, const uint32_t* ga, const int64_t* ba,
                                     const int64_t* ea, uint64_t na, const uint32_t* gb,
                                     const int64_t* bb, const int64_t* eb, uint64_t nb,
                                     int64_t* out, uint64_t num_groups) {
    return Computed(ctx, "interval_overlap",
                    cpu::IntervalOverlap(ga, ba, ea, na, gb, bb, eb, nb, out, num_groups));
  }

  std::map<std::string, PublishedTable> published_;
};

#ifdef TH_TESTING_HAS_DLOPEN
// A plugin library loaded with dlopen(), as tracehound loads it; closed on
// destruction. ok() false: error() says why (no file, no entry symbol, ...).
class PluginLibrary {
 public:
  explicit PluginLibrary(const std::string& path) {
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
      const char* e = dlerror();
      error_ = "cannot load " + path + ": " + (e ? e : "unknown error");
      return;
    }
    auto entry = reinterpret_cast<th_plugin_entry_fn>(dlsym(handle_, TH_PLUGIN_ENTRY_SYMBOL));
    if (!entry) {
      error_ = path + " exports no " + TH_PLUGIN_ENTRY_SYMBOL;
      return;
    }
    descriptor_ = entry();
    if (!descriptor_) error_ = std::string(TH_PLUGIN_ENTRY_SYMBOL) + " returned no descriptor";
  }
  ~PluginLibrary() {
    if (handle_) dlclose(handle_);
  }
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  bool ok() const { return descriptor_ != nullptr; }
  const std::string& error() const { return error_; }
  const th_plugin_descriptor* descriptor() const { return descriptor_; }

 private:
  void* handle_ = nullptr;
  const th_plugin_descriptor* descriptor_ = nullptr;
  std::string error_;
};
#endif

// ---------------------------------------------------------------------------
// Assertions. Each returns an Outcome: ok, or a message saying what was
// expected and what the run reported. Without a framework, collect them in
// Checks; with GoogleTest, EXPECT_TRUE(outcome) << outcome.

struct Outcome {
  bool ok = true;
  std::string message;
  explicit operator bool() const { return ok; }
};
inline std::ostream& operator<<(std::ostream& os, const Outcome& o) { return os << o.message; }

inline Outcome Pass() { return {}; }
inline Outcome Fail(std::string message) { return {false, std::move(message)}; }

// Which findings to look for; every field set must hold.
struct FindingQuery {
  std::optional<uint32_t> severity;  // th_severity
  std::string title_contains;
  std::optional<std::string> group;
  std::optional<int64_t> rank;
  bool with_saving = false;
  bool with_time_lost = false;
  bool with_range = false;

  bool Matches(const ReportedFinding& f) const {
    return (!severity || f.severity == *severity) &&
           f.title.find(title_contains) != std::string::npos && (!group || f.group == *group) &&
           (!rank || f.scope.rank == *rank) && (!with_saving || f.saving_ns) &&
           (!with_time_lost || f.time_lost_ns) && (!with_range || f.range);
  }
  std::string Describe() const {
    std::string d = "a finding";
    if (severity) d += std::string(" of severity ") + SeverityName(*severity);
    if (!title_contains.empty()) d += " whose title contains \"" + title_contains + "\"";
    if (group) d += " in group \"" + *group + "\"";
    if (rank) d += " on rank " + std::to_string(*rank);
    if (with_saving) d += " with a saving";
    if (with_time_lost) d += " with time lost";
    if (with_range) d += " with a time range";
    return d;
  }
};

inline std::vector<const ReportedFinding*> FindFindings(const RunResult& r, const FindingQuery& q) {
  std::vector<const ReportedFinding*> out;
  for (const ReportedFinding& f : r.findings)
    if (q.Matches(f)) out.push_back(&f);
  return out;
}

inline Outcome ExpectOk(const RunResult& r) {
  return r.ok ? Pass() : Fail("the plugin failed: " + r.error + "\n" + Summary(r));
}
inline Outcome ExpectFinding(const RunResult& r, const FindingQuery& q) {
  if (!FindFindings(r, q).empty()) return Pass();
  return Fail("expected " + q.Describe() + "; the run reported:\n" + Summary(r));
}
inline Outcome ExpectFinding(const RunResult& r, uint32_t severity,
                             std::string_view title_contains) {
  FindingQuery q;
  q.severity = severity;
  q.title_contains = std::string(title_contains);
  return ExpectFinding(r, q);
}
inline Outcome ExpectNoFinding(const RunResult& r, const FindingQuery& q = {}) {
  if (FindFindings(r, q).empty()) return Pass();
  return Fail("expected no " + q.Describe().substr(2) + "; the run reported:\n" + Summary(r));
}
inline Outcome ExpectFindingCount(const RunResult& r, const FindingQuery& q, size_t count) {
  const size_t n = FindFindings(r, q).size();
  if (n == count) return Pass();
  return Fail("expected " + std::to_string(count) + " x " + q.Describe() + ", got " +
              std::to_string(n) + "; the run reported:\n" + Summary(r));
}
// Metric `name` of rank `rank` (-1: any) equals `value` within `tolerance`.
inline Outcome ExpectMetric(const RunResult& r, std::string_view name, int64_t rank, double value,
                            double tolerance = 0) {
  const ReportedMetric* m = r.Metric(name, rank);
  if (!m)
    return Fail("expected metric " + std::string(name) + " on rank " + std::to_string(rank) +
                "; the run reported:\n" + Summary(r));
  if (std::fabs(m->value - value) <= tolerance) return Pass();
  return Fail("metric " + std::string(name) + " on rank " + std::to_string(rank) + " is " +
              std::to_string(m->value) + ", expected " + std::to_string(value));
}
// Table `name` was published, with `rows` rows (-1: any number).
inline Outcome ExpectTable(const RunResult& r, std::string_view name, int64_t rows = -1) {
  const PublishedTable* t = r.Table(name);
  if (!t) return Fail("expected table " + std::string(name) + "; the run reported:\n" + Summary(r));
  if (rows >= 0 && t->rows != static_cast<uint64_t>(rows))
    return Fail("table " + std::string(name) + " has " + std::to_string(t->rows) +
                " rows, expected " + std::to_string(rows));
  return Pass();
}
inline Outcome ExpectThat(bool condition, std::string what) {
  return condition ? Pass() : Fail(std::move(what));
}

// Collects outcomes for a test without a framework: Finish prints the
// failures and gives the exit status (0 when all passed).
class Checks {
 public:
  bool operator()(const Outcome& o) {
    if (!o.ok) {
      ++failures_;
      std::fprintf(stderr, "FAILED: %s\n", o.message.c_str());
    }
    return o.ok;
  }
  int failures() const { return failures_; }
  int Finish(std::string_view name) const {
    if (failures_) {
      std::fprintf(stderr, "%.*s: %d check(s) failed\n", static_cast<int>(name.size()), name.data(),
                   failures_);
      return 1;
    }
    std::printf("%.*s: all checks passed\n", static_cast<int>(name.size()), name.data());
    return 0;
  }

 private:
  int failures_ = 0;
};

}  // namespace th::sdk::testing

namespace th::sdk::testing {
// The descriptor of a plugin class compiled into the test itself (no library
// to load).
template <typename P>
const th_plugin_descriptor* DescriptorOf() {
  return ::th::sdk::internal::Describe<P>();
}
}  // namespace th::sdk::testing

#endif  // TRACEHOUND_TESTING_H_
