// oom-risk: per rank × device, from the allocator events PyTorch records with
// profile_memory=True ([memory]: Bytes, Addr, Total Allocated, Total Reserved,
// Device Type, Device Id): the memory timeline, peak and headroom against the
// device's capacity, growth across steady-state steps (a least-squares leak
// slope with its R²), fragmentation at peak (reserved − allocated), the largest
// allocations live at peak with the op that made them, memory allocated
// before the window and held throughout it (an inference server's
// preallocated KV cache, named as such), and a LOW / MEDIUM / HIGH tier whose
// thresholds are options (README.md).
#include <tracehound/device_type.h>
#include <tracehound/format.h>
#include <tracehound/sdk.h>
#include <tracehound/sorted_runs.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

using th::sdk::Context;
using th::sdk::Declaration;
using th::sdk::DeviceTypeName;
using th::sdk::kInferred;
using th::sdk::kMeasured;
using th::sdk::kNoRow;
using th::sdk::kNoValue;
using th::sdk::kRead;
using th::sdk::Trace;

constexpr int32_t kCpuDevice = 0;  // c10::DeviceType::CPU

using th::sdk::Bytes;
using th::sdk::Fixed;

// y = intercept + slope·x over x = 0..n−1 (least squares). R² = 1 − SSres/SStot,
// 1 when every y is equal (a flat line fits exactly).
struct Fit {
  int64_t n = 0;
  double slope = 0, intercept = 0, r2 = 0;
};

Fit LeastSquares(const std::vector<double>& y) {
  Fit f;
  f.n = static_cast<int64_t>(y.size());
  if (f.n < 2) return f;
  const double n = static_cast<double>(f.n);
  double mx = (n - 1) / 2, my = 0;
  for (double v : y) my += v;
  my /= n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const double dx = static_cast<double>(i) - mx, dy = y[i] - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  if (syy == 0) {
    f.r2 = 1;
  } else {
    double res = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      const double e = y[i] - (f.intercept + f.slope * static_cast<double>(i));
      res += e * e;
    }
    f.r2 = std::max(0.0, 1 - res / syy);
  }
  return f;
}

// The op that made an allocation: the innermost cpu_op enclosing the [memory]
// event on its thread (the importer's nesting, else time overlap on the same
// thread for slices that cross), and the outermost one of that chain.
struct Attribution {
  uint32_t op = kNoRow, top = kNoRow;
  std::string method = "none";
};

class OpFinder {
 public:
  explicit OpFinder(const Trace& t) : t_(t) {}

  Attribution Of(uint32_t event) {
    Attribution a;
    uint32_t enclosing = kNoRow;
    for (uint32_t p = t_.parent(event); p != kNoRow; p = t_.parent(p)) {
      if (enclosing == kNoRow && !t_.name(p).starts_with("ProfilerStep#")) enclosing = p;
      if (t_.kind(p) != TH_EVENT_CPU_OP) continue;
      if (a.op == kNoRow) a.op = p;
      a.top = p;
    }
    if (a.op != kNoRow) {
      a.method = "nesting";
      return a;
    }
    // Same thread, by time: the ops whose [ts, end) holds the event.
    const std::vector<uint32_t>& ops = OpsOf(t_.track_index(event));
    const int64_t ts = t_.ts(event);
    auto it = std::upper_bound(ops.begin(), ops.end(), ts,
                               [&](int64_t v, uint32_t op) { return v < t_.ts(op); });
    int budget = 4096;  // bounded walk back; ops are short next to a trace
    for (auto k = it; k != ops.begin() && budget-- > 0;) {
      const uint32_t op = *--k;
      if (t_.end(op) <= ts) continue;
      if (a.op == kNoRow || t_.dur(op) < t_.dur(a.op)) a.op = op;
      if (a.top == kNoRow || t_.dur(op) > t_.dur(a.top)) a.top = op;
    }
    if (a.op != kNoRow) {
      a.method = "overlap";
    } else if (enclosing != kNoRow) {
      a.op = a.top = enclosing;
      a.method = "enclosing event";
    }
    return a;
  }

  std::string Name(uint32_t event) const {
    return event == kNoRow ? "" : std::string(t_.name(event));
  }

 private:
  // A track's CPU ops with a duration, by start: from the importer's track
  // order (ts ascending, longer first), built for the tracks asked only.
  const std::vector<uint32_t>& OpsOf(uint32_t track) {
    if (by_track_.empty()) {
      by_track_.resize(t_.track_count());
      built_.assign(t_.track_count(), false);
    }
    if (!built_[track]) {
      built_[track] = true;
      const Trace::TrackEvents events = t_.track_events(track);
      by_track_[track].reserve(events.size());  // a bound: no growth copies
      for (uint32_t k = 0; k < events.size(); ++k) {
        const uint32_t i = events[k];
        if (t_.kind(i) == TH_EVENT_CPU_OP && t_.dur(i) > 0) by_track_[track].push_back(i);
      }
    }
    return by_track_[track];
  }
  const Trace& t_;
  std::vector<std::vector<uint32_t>> by_track_;
  std::vector<bool> built_;
};

enum Tier { kLow = 0, kMedium = 1, kHigh = 2 };
const char* TierName(Tier t) { return t == kHigh ? "HIGH" : t == kMedium ? "MEDIUM" : "LOW"; }

struct Options {
  int64_t warmup_steps, leak_min_steps, leak_min_bytes_per_step, high_leak_steps, medium_leak_steps,
      top_allocations;
  double high_headroom_pct, medium_headroom_pct, fragmentation_pct, leak_min_r2, pool_min_pct;
};

// A training step shows its backward pass or optimizer: autograd's
// "...Backward0" functions, "Optimizer.step#..." annotations.
bool LooksLikeTraining(const Trace& t) {
  // The trace's strings first: most captures bear no such name, and then no
  // event is read.
  const uint64_t strings = t.string_count();
  std::vector<uint8_t> training(strings, 0);
  bool any = false;
  for (uint32_t id = 0; id < strings; ++id) {
    const std::string_view n = t.String(id);
    if (n.find("Backward") != std::string_view::npos ||
        n.find("backward") != std::string_view::npos || n.starts_with("Optimizer."))
      training[id] = 1, any = true;
  }
  if (!any) return false;
  // Then whether an op bears one. The columns as spans: one tight pass
  // (XProf's host threads hold tens of millions of ops).
  const th::sdk::TableView events = t.Table("events");
  const std::span<const uint8_t> kinds = events.Values<uint8_t>("kind", TH_TYPE_U8);
  const std::span<const uint32_t> names = events.Values<uint32_t>("name", TH_TYPE_STRING_ID);
  for (uint64_t i = 0; i < kinds.size(); ++i) {
    const uint32_t k = kinds[i];
    if ((k == TH_EVENT_CPU_OP || k == TH_EVENT_USER_ANNOTATION || k == TH_EVENT_PYTHON_FUNCTION) &&
        names[i] < strings && training[names[i]])
      return true;
  }
  return false;
}

struct LiveAllocation {
  int64_t bytes = 0;
  uint32_t row = 0;
};

// One allocation live at peak (or retained across steps), attributed.
struct Allocation {
  int64_t bytes, ts, addr;
  std::string op, top_op, method;
};

// Allocated memory over one ProfilerStep window.
struct StepMemory {
  int64_t number = 0;
  bool warmup = false;
  int64_t at_end = 0, max = 0;  // bytes allocated at the step's end, highest within it
  int64_t reserved_at_end = -1;
};

// Everything measured on one device of one rank.
struct DeviceMemory {
  int64_t rank = 0;
  int32_t type = -1, id = -1;
  std::vector<uint32_t> rows;               // [memory] rows, time order
  int64_t oom_events = 0, oom_request = 0;  // [OutOfMemory]: count, largest Bytes asked

  // Timeline.
  bool measured = true;           // "Total Allocated" recorded; else cumulative Bytes
  std::vector<int64_t> ts;        // per row
  std::vector<int64_t> values;    // allocated after each row, kNoValue before the first
  std::vector<int64_t> reserved;  // Total Reserved after each row, kNoValue if absent
  int64_t allocations = 0, frees = 0;
  int64_t peak = kNoValue, peak_ts = 0, peak_index = -1;
  int64_t start = kNoValue, end = kNoValue, min = kNoValue;
  int64_t before = kNoValue;  // allocated before the first event: its Total Allocated − Bytes
  int64_t max_reserved = -1, reserved_at_peak = -1;
  int64_t capacity = 0;  // bytes, 0 = unknown
  int64_t peak_step = -1, transient_at_peak = 0;
  int64_t counter_mismatches = 0;  // consecutive Total Allocated differing from Bytes

  // Steps.
  Fit fit;
  std::vector<StepMemory> steps;  // every step with a known value at its end
  double steps_to_exhaustion = -1;
  bool leak = false, near_capacity = false, fragmented = false;

  // Live set.
  bool addresses = false;
  int64_t live_at_peak = 0;  // bytes of observed allocations live at peak
  int64_t unmatched_frees = 0;
  std::vector<Allocation> top;
  std::vector<std::pair<std::string, int64_t>> retained;  // op → bytes, largest first
  int64_t retained_bytes = 0;

  // Held throughout: allocated before the window and never released in it
  // (min of `before` and the lowest value of the window); a preallocated pool
  // when it is a large share of capacity on a trace without a backward pass.
  int64_t held = -1;
  bool pool = false;

  Tier tier = kLow;
  std::vector<std::string> reasons;
  // What the first reason at the highest tier is, without its figures: the
  // finding's title, alike on every device it is found on (one group).
  std::string cause;

  double headroom_pct() const {
    return capacity > 0 && measured ? 100.0 * static_cast<double>(capacity - peak) / capacity : -1;
  }
  // Free memory at peak as a % of what the preallocated pool leaves (-1 with no pool).
  double pool_headroom_pct() const {
    return pool && capacity > held
               ? 100.0 * static_cast<double>(capacity - peak) / static_cast<double>(capacity - held)
               : -1;
  }
  double reserved_headroom_pct() const {
    return capacity > 0 && max_reserved >= 0
               ? 100.0 * static_cast<double>(capacity - max_reserved) / capacity
               : -1;
  }
  // Reserved − allocated at peak; unknown (−1) where the allocator reserves
  // nothing it does not hand out (CPU records Total Reserved 0).
  int64_t fragmentation() const {
    return reserved_at_peak > 0 && reserved_at_peak >= peak ? reserved_at_peak - peak : -1;
  }
  double fragmentation_pct() const {
    return fragmentation() >= 0 ? 100.0 * static_cast<double>(fragmentation()) / reserved_at_peak
                                : -1;
  }
  std::string label() const {
    return DeviceTypeName(type) + (type == kCpuDevice ? "" : " " + std::to_string(id)) +
           " of rank " + std::to_string(rank);
  }
};

// The tables it publishes.
th::sdk::Schema OomRiskTable() {
  return th::sdk::Schema("oom_risk")
      .View("oom-risk")
      .Int("rank")
      .Text("device_type")
      .Int("device")
      .Int("memory_events", "count")
      .Int("allocations", "count")
      .Int("frees", "count")
      .Int("oom_events", "count")
      .Text("allocated_source")
      .Int("peak_allocated", "bytes")
      .Int("peak_ts", "ns")
      .Int("peak_step")
      .Int("peak_reserved", "bytes")
      .Int("reserved_at_peak", "bytes")
      .Int("capacity", "bytes")
      .Int("headroom", "bytes")
      .Real("headroom_pct", "%")
      .Real("reserved_headroom_pct", "%")
      .Int("fragmentation", "bytes")
      .Real("fragmentation_pct", "%")
      .Int("transient_at_peak", "bytes")
      .Int("start_allocated", "bytes")
      .Int("end_allocated", "bytes")
      .Int("min_allocated", "bytes")
      .Int("steps_fitted", "count")
      .Real("leak_slope", "bytes/step")
      .Real("leak_r2")
      .Real("steps_to_exhaustion", "steps")
      .Int("live_at_peak", "bytes")
      .Int("frees_of_earlier_allocations", "count")
      .Int("held_from_start", "bytes")
      .Int("preallocated_pool", "bytes")
      .Real("pool_headroom_pct", "%")
      .Text("tier")
      .Text("reasons");
}
th::sdk::Schema OomRiskAllocationsTable() {
  return th::sdk::Schema("oom_risk_allocations")
      .Int("rank")
      .Text("device_type")
      .Int("device")
      .Int("order")
      .Int("bytes", "bytes")
      .Int("ts", "ns")
      .Int("addr")
      .Text("op")
      .Text("top_op")
      .Text("attribution");
}
th::sdk::Schema OomRiskStepsTable() {
  return th::sdk::Schema("oom_risk_steps")
      .View("per-step")
      .Int("rank")
      .Text("device_type")
      .Int("device")
      .Int("step")
      .Int("warmup")
      .Int("allocated_at_end", "bytes")
      .Int("max_allocated", "bytes")
      .Int("reserved_at_end", "bytes");
}

class OomRisk final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("oom-risk", "1.0.0", th::sdk::kDetector,
                       "Peak memory, headroom, leak slope across steps, fragmentation and the "
                       "largest live allocations per device, with a LOW/MEDIUM/HIGH OOM tier")
        .Reads({"events", "tracks", "profiler_steps", "memory_args", "devices", "name_classes",
                "track_events", "track_order"})
        .Publishes(OomRiskTable())
        .Publishes(OomRiskAllocationsTable())
        .Publishes(OomRiskStepsTable())
        .Option("warmup_steps", int64_t{1},
                "first ProfilerSteps left out of the leak fit (allocator warm-up)")
        .Min(0)
        .Option("high_headroom_pct", 10.0,
                "HIGH when the device's free memory at peak allocated is below this % of its "
                "capacity")
        .Range(0, 100)
        .Option("medium_headroom_pct", 25.0,
                "MEDIUM when the free memory at peak allocated is below this % of capacity; "
                "also the reserved-memory bound of the fragmentation rule")
        .Range(0, 100)
        .Option("fragmentation_pct", 25.0,
                "MEDIUM when reserved − allocated at peak is at least this % of reserved while "
                "the reserved peak leaves less than medium_headroom_pct of capacity free")
        .Range(0, 100)
        .Option("leak_min_r2", 0.8, "a step-end growth counts as a leak only with this R² or more")
        .Range(0, 1)
        .Option("leak_min_bytes_per_step", int64_t{1} << 20,
                "a leak grows at least this many bytes per step")
        .Min(1)
        .Option("leak_min_steps", int64_t{3}, "steady-state steps needed to fit a leak slope")
        .Min(2)
        .Option("high_leak_steps", int64_t{100},
                "HIGH when a leak fills the headroom within this many steps")
        .Min(1)
        .Option("medium_leak_steps", int64_t{10000},
                "MEDIUM when a leak fills the headroom within this many steps (or the "
                "device's capacity is unknown)")
        .Min(1)
        .Option("top_allocations", int64_t{10}, "largest live allocations at peak, per device")
        .Min(0)
        .Option("pool_min_pct", 50.0,
                "name memory allocated before the window and held throughout it a preallocated "
                "pool (an inference server's KV cache) when it is at least this % of capacity "
                "and the trace has no backward pass; headroom is then judged on the rest")
        .Range(0, 100);
  }

  void Run(Context& ctx) override {
    Options o{ctx.GetInt("warmup_steps"),
              ctx.GetInt("leak_min_steps"),
              ctx.GetInt("leak_min_bytes_per_step"),
              ctx.GetInt("high_leak_steps"),
              ctx.GetInt("medium_leak_steps"),
              ctx.GetInt("top_allocations"),
              ctx.GetDouble("high_headroom_pct"),
              ctx.GetDouble("medium_headroom_pct"),
              ctx.GetDouble("fragmentation_pct"),
              ctx.GetDouble("leak_min_r2"),
              ctx.GetDouble("pool_min_pct")};
    std::vector<DeviceMemory> devices;
    for (const Trace& trace : ctx.traces()) {
      std::map<std::pair<int32_t, int32_t>, DeviceMemory> by_device;
      // Per memory_args row its event's start, read once: the events lie
      // scattered among the trace's (a cache miss each), the sort compares
      // them many times.
      std::vector<int64_t> starts(trace.memory_count());
      for (uint64_t r = 0; r < trace.memory_count(); ++r) {
        const uint32_t e = trace.memory_event(r);
        starts[r] = trace.ts(e);
        DeviceMemory& d = by_device[{trace.memory_device_type(r), trace.memory_device_id(r)}];
        if (trace.kind(e) == TH_EVENT_OUT_OF_MEMORY) {
          ++d.oom_events;
          d.oom_request = std::max(d.oom_request, trace.memory_bytes(r));
        } else if (trace.kind(e) == TH_EVENT_MEMORY) {
          if (d.rows.empty()) d.rows.reserve(trace.memory_count() - r);  // a bound, no growth
          d.rows.push_back(static_cast<uint32_t>(r));
        }
      }
      if (by_device.empty()) {
        NoMemoryEvents(ctx, trace);
        continue;
      }
      OpFinder ops(trace);
      const bool training = LooksLikeTraining(trace);
      for (auto& [key, d] : by_device) {
        d.rank = trace.rank();
        d.type = key.first;
        d.id = key.second;
        if (d.type != kCpuDevice)
          for (uint64_t i = 0; i < trace.device_count(); ++i)
            if (trace.device(i).id == d.id) d.capacity = trace.device(i).total_global_mem;
        Timeline(trace, starts, d);
        Held(o, training, d);
        Steps(trace, o, d);
        LiveSet(trace, o, ops, d);
        Classify(o, d);
        if (d.pool) PoolFinding(ctx, d);
        devices.push_back(std::move(d));
      }
    }
    Report(ctx, devices);
  }

 private:
  // Phase 1: the allocated (and reserved) value after every event, in time
  // order. `starts`: per memory_args row, its event's ts.
  static void Timeline(const Trace& t, const std::vector<int64_t>& starts, DeviceMemory& d) {
    const auto by_ts = [&](uint32_t a, uint32_t b) { return starts[a] < starts[b]; };
    th::sdk::StableSortFewRuns(d.rows, by_ts);
    d.measured = false;
    for (uint32_t r : d.rows) d.measured |= t.memory_total_allocated(r) != kNoValue;
    int64_t value = d.measured ? kNoValue : 0, previous = kNoValue;
    d.ts.reserve(d.rows.size());
    d.values.reserve(d.rows.size());
    d.reserved.reserve(d.rows.size());
    for (size_t i = 0; i < d.rows.size(); ++i) {
      const uint32_t r = d.rows[i];
      const int64_t bytes = t.memory_bytes(r);
      d.allocations += bytes > 0;
      d.frees += bytes < 0;
      if (d.measured) {
        const int64_t total = t.memory_total_allocated(r);
        if (total != kNoValue) {
          if (d.before == kNoValue) d.before = total - bytes;
          if (previous != kNoValue && total - previous != bytes) ++d.counter_mismatches;
          value = previous = total;
        }
      } else {
        value += bytes;  // relative to the capture's start
      }
      const int64_t reserved = t.memory_total_reserved(r);
      d.ts.push_back(starts[r]);
      d.values.push_back(value);
      d.reserved.push_back(reserved);
      if (value == kNoValue) continue;
      if (d.start == kNoValue) d.start = value;
      d.end = value;
      d.min = d.min == kNoValue ? value : std::min(d.min, value);
      if (reserved != kNoValue) d.max_reserved = std::max(d.max_reserved, reserved);
      if (d.peak == kNoValue || value > d.peak) {
        d.peak = value;
        d.peak_ts = d.ts.back();
        d.peak_index = static_cast<int64_t>(i);
        d.reserved_at_peak = reserved != kNoValue ? reserved : -1;
      }
    }
  }

  // Phase 1b: memory held from before the window to its end, and whether it
  // is a preallocated pool.
  static void Held(const Options& o, bool training, DeviceMemory& d) {
    if (!d.measured || d.before == kNoValue || d.min == kNoValue) return;
    d.held = std::max<int64_t>(0, std::min(d.before, d.min));
    d.pool =
        !training && d.capacity > 0 && d.held > 0 &&
        100.0 * static_cast<double>(d.held) / static_cast<double>(d.capacity) >= o.pool_min_pct;
  }

  // The last known value of `column` (values or reserved) at or before `ts`,
  // kNoValue if none.
  static int64_t ValueAt(const DeviceMemory& d, int64_t ts, const std::vector<int64_t>& column) {
    auto it = std::upper_bound(d.ts.begin(), d.ts.end(), ts);
    for (auto k = it - d.ts.begin(); k-- > 0;)
      if (column[k] != kNoValue) return column[k];
    return kNoValue;
  }
  static int64_t ValueAt(const DeviceMemory& d, int64_t ts) { return ValueAt(d, ts, d.values); }

  // Phase 2: step-end values after warm-up → leak fit; the step holding the
  // peak and the memory allocated within it before the peak.
  static void Steps(const Trace& t, const Options& o, DeviceMemory& d) {
    std::vector<double> y;
    for (uint64_t s = 0; s < t.step_count(); ++s) {
      const th_step& st = t.step(s);
      if (d.peak_index >= 0 && st.ts <= d.peak_ts && d.peak_ts < st.ts + st.dur)
        d.peak_step = static_cast<int64_t>(s);
      const int64_t end = st.ts + st.dur;
      StepMemory m;
      m.number = st.number;
      m.warmup = static_cast<int64_t>(s) < o.warmup_steps;
      m.at_end = ValueAt(d, end);
      if (m.at_end == kNoValue) continue;
      m.max = ValueAt(d, st.ts);
      for (auto k = std::lower_bound(d.ts.begin(), d.ts.end(), st.ts) - d.ts.begin();
           k < static_cast<ptrdiff_t>(d.ts.size()) && d.ts[k] <= end; ++k)
        m.max = std::max(m.max, d.values[k]);
      const int64_t reserved = ValueAt(d, end, d.reserved);
      m.reserved_at_end = reserved == kNoValue ? -1 : reserved;
      d.steps.push_back(m);
      if (!m.warmup) y.push_back(static_cast<double>(m.at_end));
    }
    d.fit = LeastSquares(y);
    if (d.peak_index < 0) return;
    // Baseline: the value carried into the peak's step (or the capture's
    // lowest value before the peak), lowered by any dip before the peak.
    int64_t from = INT64_MIN, baseline = kNoValue;
    if (d.peak_step >= 0) {
      from = t.step(static_cast<uint64_t>(d.peak_step)).ts;
      baseline = ValueAt(d, from - 1);
    }
    for (int64_t i = 0; i <= d.peak_index; ++i) {
      if (d.ts[i] < from || d.values[i] == kNoValue) continue;
      baseline = baseline == kNoValue ? d.values[i] : std::min(baseline, d.values[i]);
    }
    d.transient_at_peak = d.peak - baseline;
    if (d.peak_step >= 0) d.peak_step = t.step(static_cast<uint64_t>(d.peak_step)).number;
  }

  // Phase 3: the live set rebuilt from Addr and Bytes (alloc adds, free
  // removes), snapshotted at the peak event and at the end of the capture.
  static void LiveSet(const Trace& t, const Options& o, OpFinder& ops, DeviceMemory& d) {
    std::unordered_map<int64_t, LiveAllocation> live;
    std::vector<LiveAllocation> at_peak;
    for (size_t i = 0; i < d.rows.size(); ++i) {
      const uint32_t r = d.rows[i];
      const int64_t addr = t.memory_addr(r), bytes = t.memory_bytes(r);
      if (addr != 0) {
        d.addresses = true;
        if (bytes > 0) {
          live[addr] = {bytes, r};
        } else if (bytes < 0) {
          auto it = live.find(addr);
          if (it != live.end())
            live.erase(it);
          else
            ++d.unmatched_frees;  // allocated before the capture started
        }
      }
      if (static_cast<int64_t>(i) == d.peak_index)
        for (const auto& [a, l] : live) at_peak.push_back(l);
    }
    if (!d.addresses) return;
    for (const LiveAllocation& l : at_peak) d.live_at_peak += l.bytes;
    auto larger = [&](const LiveAllocation& a, const LiveAllocation& b) {
      return std::tie(b.bytes, a.row) < std::tie(a.bytes, b.row);
    };
    const size_t n = std::min(at_peak.size(), static_cast<size_t>(o.top_allocations));
    std::partial_sort(at_peak.begin(), at_peak.begin() + static_cast<ptrdiff_t>(n), at_peak.end(),
                      larger);
    for (size_t k = 0; k < n; ++k) {
      const uint32_t e = t.memory_event(at_peak[k].row);
      Attribution a = ops.Of(e);
      d.top.push_back({at_peak[k].bytes, t.ts(e), t.memory_addr(at_peak[k].row), ops.Name(a.op),
                       ops.Name(a.top), a.method});
    }
    // Retained: allocated within the steady steps (not the last, whose
    // outputs may be live legitimately) and still live at the end.
    if (d.fit.n < 2) return;
    int64_t from = INT64_MAX, to = INT64_MIN;
    for (uint64_t s = static_cast<uint64_t>(std::max<int64_t>(o.warmup_steps, 0));
         s < t.step_count(); ++s) {
      from = std::min(from, t.step(s).ts);
      to = std::max(to, t.step(s).ts);
    }
    std::map<std::string, int64_t> by_op;
    for (const auto& [a, l] : live) {
      const uint32_t e = t.memory_event(l.row);
      if (t.ts(e) < from || t.ts(e) >= to) continue;
      Attribution at = ops.Of(e);
      std::string op = at.op == kNoRow ? "(no enclosing op)" : ops.Name(at.op);
      if (at.top != at.op && at.top != kNoRow) op = ops.Name(at.top) + " › " + op;
      by_op[op] += l.bytes;
      d.retained_bytes += l.bytes;
    }
    d.retained.assign(by_op.begin(), by_op.end());
    std::sort(d.retained.begin(), d.retained.end(), [](const auto& a, const auto& b) {
      return std::tie(b.second, a.first) < std::tie(a.second, b.first);
    });
  }

  // Phase 4: the tier and why.
  static void Classify(const Options& o, DeviceMemory& d) {
    auto raise = [&](Tier t, const char* cause, std::string why) {
      if (d.cause.empty() || t > d.tier) d.cause = cause;  // the first at the highest tier
      d.tier = std::max(d.tier, t);
      d.reasons.push_back(std::string(TierName(t)) + ": " + std::move(why));
    };
    if (d.oom_events > 0)
      raise(kHigh, "out-of-memory recorded",
            std::to_string(d.oom_events) + " [OutOfMemory] event(s) recorded");
    if (d.peak == kNoValue) return;
    const double headroom = d.headroom_pct();
    if (headroom >= 0) {
      // Beside a preallocated pool, the free share of what the pool leaves.
      const double judged = d.pool ? d.pool_headroom_pct() : headroom;
      std::string what = "peak allocated " + Bytes(static_cast<double>(d.peak)) + " of " +
                         Bytes(static_cast<double>(d.capacity)) + " leaves " + Fixed(headroom, 1) +
                         "% free";
      if (d.pool)
        what = "beside a preallocated pool of " + Bytes(static_cast<double>(d.held)) + ", " + what +
               ", " + Fixed(judged, 1) + "% of the " +
               Bytes(static_cast<double>(d.capacity - d.held)) + " the pool leaves";
      d.near_capacity = judged < o.medium_headroom_pct;
      const char* cause = d.pool ? "peak near what the preallocated pool leaves"
                                 : "peak near the device's capacity";
      if (judged < o.high_headroom_pct)
        raise(kHigh, cause, what + " (< " + Fixed(o.high_headroom_pct, 0) + "%)");
      else if (d.near_capacity)
        raise(kMedium, cause, what + " (< " + Fixed(o.medium_headroom_pct, 0) + "%)");
    }
    const double reserved_headroom = d.reserved_headroom_pct();
    d.fragmented = d.fragmentation_pct() >= o.fragmentation_pct && reserved_headroom >= 0 &&
                   reserved_headroom < o.medium_headroom_pct;
    if (d.fragmented)
      raise(kMedium, "fragmented at peak",
            "fragmentation: " + Bytes(static_cast<double>(d.fragmentation())) + " (" +
                Fixed(d.fragmentation_pct(), 1) +
                "% of reserved) cached but unallocated at peak while reserved memory "
                "leaves " +
                Fixed(reserved_headroom, 1) + "% of the device free");
    const Fit& f = d.fit;
    d.leak = f.n >= o.leak_min_steps && f.slope >= static_cast<double>(o.leak_min_bytes_per_step) &&
             f.r2 >= o.leak_min_r2;
    if (!d.leak) return;
    std::string what = "allocated grows " + Bytes(f.slope) + "/step over " + std::to_string(f.n) +
                       " steady steps (R² " + Fixed(f.r2, 3) + ")";
    if (headroom >= 0) {
      d.steps_to_exhaustion = std::max(0.0, static_cast<double>(d.capacity - d.peak) / f.slope);
      what += ", filling the headroom in ~" + Fixed(d.steps_to_exhaustion, 0) + " steps";
      if (d.steps_to_exhaustion < static_cast<double>(o.high_leak_steps))
        raise(kHigh, "allocated memory grows every step", what);
      else if (d.steps_to_exhaustion < static_cast<double>(o.medium_leak_steps))
        raise(kMedium, "allocated memory grows every step", what);
      else
        d.reasons.push_back("LOW: " + what);
    } else {
      raise(kMedium, "allocated memory grows every step",
            what + (d.capacity > 0 ? "; the trace records Bytes only, so the headroom is unknown"
                                   : "; the device's capacity is unknown"));
    }
  }

  // Info: what the memory held throughout the window is.
  static void PoolFinding(Context& ctx, const DeviceMemory& d) {
    th::sdk::Scope scope;
    scope.rank = d.rank;
    scope.device = d.type == kCpuDevice ? -1 : d.id;
    const double share = 100.0 * static_cast<double>(d.held) / static_cast<double>(d.capacity);
    th::sdk::Finding f(th::sdk::kInfo, "preallocated pool (KV cache?) held throughout the window");
    f.What("On " + d.label() + ", " + Bytes(static_cast<double>(d.held)) + " (" + Fixed(share, 1) +
           "% of the device) was allocated before the trace's first allocator event and stays "
           "allocated to its end (Total Allocated never drops below it), in a trace without a "
           "backward pass: a pool the program preallocated, such as an inference server's KV "
           "cache (vLLM gpu_memory_utilization, SGLang mem_fraction_static). Headroom is judged "
           "on the " +
           Bytes(static_cast<double>(d.capacity - d.held)) +
           " it leaves: " + Fixed(d.pool_headroom_pct(), 1) + "% of that was free at peak.")
        .In(scope)
        .Confidence(0.8)
        .Evidence("preallocated_pool", static_cast<double>(d.held), "bytes", kMeasured)
        .Evidence("pool_share", share, "%", kMeasured)
        .Evidence("allocated_before_window", static_cast<double>(d.before), "bytes", kMeasured)
        .Evidence("capacity", static_cast<double>(d.capacity), "bytes", kRead)
        .Evidence("peak_allocated", static_cast<double>(d.peak), "bytes", kMeasured)
        .Evidence("pool_headroom_pct", d.pool_headroom_pct(), "%", kMeasured);
    ctx.Add(f);
  }

  // Not a finding: nothing was measured. A note of the run says so (the
  // report's "needs a new capture" names the capture that would answer it).
  static void NoMemoryEvents(Context& ctx, const Trace& t) {
    int64_t xspace = 0;
    std::vector<uint8_t> allocator_name;  // per name id: 0 not looked at, 1 no, 2 yes
    for (uint64_t i = 0; i < t.size(); ++i) {
      const uint32_t id = t.name_id(i);
      if (id >= allocator_name.size()) allocator_name.resize(id + 1, 0);
      if (allocator_name[id] == 0) {
        const std::string_view n = t.String(id);
        allocator_name[id] = n == "MemoryAllocation" || n == "MemoryDeallocation" ? 2 : 1;
      }
      xspace += allocator_name[id] == 2;
    }
    std::string note = "rank " + std::to_string(t.rank()) +
                       ": no allocator events, so peak memory, headroom, leaks and fragmentation "
                       "cannot be measured; OOM risk not assessed (capture with "
                       "torch.profiler.profile(profile_memory=True))";
    if (xspace > 0)
      note += "; it holds " + std::to_string(xspace) +
              " XSpace allocator events (MemoryAllocation/MemoryDeallocation), which tracehound "
              "does not import yet";
    ctx.Log(note);
  }

  static void Report(Context& ctx, const std::vector<DeviceMemory>& devices) {
    std::vector<int64_t> rank, device, events, allocs, frees, ooms, peak, peak_ts, peak_step,
        max_reserved, reserved_at_peak, capacity, headroom, fragmentation, transient, start, end,
        min, steps_fitted, live_at_peak, unmatched, held, pool;
    std::vector<double> headroom_pct, reserved_headroom_pct, fragmentation_pct, slope, r2,
        exhaustion, pool_headroom_pct;
    std::vector<std::string> type, source, tier, reasons;
    std::vector<int64_t> a_rank, a_device, a_order, a_bytes, a_ts, a_addr;
    std::vector<std::string> a_type, a_op, a_top, a_method;
    std::vector<int64_t> s_rank, s_device, s_step, s_warmup, s_end, s_max, s_reserved;
    std::vector<std::string> s_type;
    for (const DeviceMemory& d : devices) {
      const bool known = d.peak != kNoValue;
      rank.push_back(d.rank);
      type.push_back(DeviceTypeName(d.type));
      device.push_back(d.id);
      events.push_back(static_cast<int64_t>(d.rows.size()));
      allocs.push_back(d.allocations);
      frees.push_back(d.frees);
      ooms.push_back(d.oom_events);
      source.push_back(d.rows.empty() ? "none"
                       : d.measured   ? "Total Allocated"
                                      : "cumulative Bytes");
      peak.push_back(known ? d.peak : -1);
      peak_ts.push_back(known ? d.peak_ts : -1);
      peak_step.push_back(d.peak_step);
      max_reserved.push_back(d.max_reserved);
      reserved_at_peak.push_back(d.reserved_at_peak);
      capacity.push_back(d.capacity > 0 ? d.capacity : -1);
      headroom.push_back(d.headroom_pct() >= 0 ? d.capacity - d.peak : -1);
      headroom_pct.push_back(d.headroom_pct());
      reserved_headroom_pct.push_back(d.reserved_headroom_pct());
      fragmentation.push_back(d.fragmentation());
      fragmentation_pct.push_back(d.fragmentation_pct());
      transient.push_back(known ? d.transient_at_peak : -1);
      start.push_back(known ? d.start : -1);
      end.push_back(known ? d.end : -1);
      min.push_back(known ? d.min : -1);
      steps_fitted.push_back(d.fit.n);
      slope.push_back(d.fit.n >= 2 ? d.fit.slope : 0);
      r2.push_back(d.fit.n >= 2 ? d.fit.r2 : -1);
      exhaustion.push_back(d.steps_to_exhaustion);
      live_at_peak.push_back(d.addresses ? d.live_at_peak : -1);
      unmatched.push_back(d.unmatched_frees);
      held.push_back(d.held);
      pool.push_back(d.pool ? d.held : 0);
      pool_headroom_pct.push_back(d.pool_headroom_pct());
      tier.push_back(TierName(d.tier));
      std::string why;
      for (const auto& r : d.reasons) why += (why.empty() ? "" : "; ") + r;
      reasons.push_back(why);
      for (size_t k = 0; k < d.top.size(); ++k) {
        const Allocation& a = d.top[k];
        a_rank.push_back(d.rank);
        a_type.push_back(DeviceTypeName(d.type));
        a_device.push_back(d.id);
        a_order.push_back(static_cast<int64_t>(k + 1));
        a_bytes.push_back(a.bytes);
        a_ts.push_back(a.ts);
        a_addr.push_back(a.addr);
        a_op.push_back(a.op);
        a_top.push_back(a.top_op);
        a_method.push_back(a.method);
      }

      for (const StepMemory& m : d.steps) {
        s_rank.push_back(d.rank);
        s_type.push_back(DeviceTypeName(d.type));
        s_device.push_back(d.id);
        s_step.push_back(m.number);
        s_warmup.push_back(m.warmup);
        s_end.push_back(m.at_end);
        s_max.push_back(m.max);
        s_reserved.push_back(m.reserved_at_end);
      }

      th::sdk::Scope scope;
      scope.rank = d.rank;
      scope.device = d.type == kCpuDevice ? -1 : d.id;
      if (known) {
        ctx.Metric("peak_allocated", static_cast<double>(d.peak), "bytes",
                   d.measured ? kMeasured : kInferred, scope);
        if (d.headroom_pct() >= 0)
          ctx.Metric("headroom_pct", d.headroom_pct(), "%", kMeasured, scope);
        if (d.fit.n >= 2) ctx.Metric("leak_slope", d.fit.slope, "bytes/step", kInferred, scope);
      }
      ctx.Metric("oom_risk_tier", static_cast<double>(d.tier), "0 LOW, 1 MEDIUM, 2 HIGH", kInferred,
                 scope);
      if (d.measured && known)
        ctx.Check("Total Allocated steps by Bytes on " + d.label(), d.counter_mismatches == 0,
                  std::to_string(d.counter_mismatches) + " of " + std::to_string(d.rows.size()) +
                      " events change Total Allocated by other than their Bytes");
      if (d.addresses && known && d.measured)
        ctx.Check("live allocations at peak fit in Total Allocated on " + d.label(),
                  d.live_at_peak <= d.peak,
                  Bytes(static_cast<double>(d.live_at_peak)) + " observed live of " +
                      Bytes(static_cast<double>(d.peak)));
      if (d.tier != kLow) Finding(ctx, d, scope);
    }
    ctx.Publish(th::sdk::Table("oom_risk")
                    .Int("rank", rank)
                    .Text("device_type", type)
                    .Int("device", device)
                    .Int("memory_events", events, "count")
                    .Int("allocations", allocs, "count")
                    .Int("frees", frees, "count")
                    .Int("oom_events", ooms, "count")
                    .Text("allocated_source", source)
                    .Int("peak_allocated", peak, "bytes")
                    .Int("peak_ts", peak_ts, "ns")
                    .Int("peak_step", peak_step)
                    .Int("peak_reserved", max_reserved, "bytes")
                    .Int("reserved_at_peak", reserved_at_peak, "bytes")
                    .Int("capacity", capacity, "bytes")
                    .Int("headroom", headroom, "bytes")
                    .Real("headroom_pct", headroom_pct, "%")
                    .Real("reserved_headroom_pct", reserved_headroom_pct, "%")
                    .Int("fragmentation", fragmentation, "bytes")
                    .Real("fragmentation_pct", fragmentation_pct, "%")
                    .Int("transient_at_peak", transient, "bytes")
                    .Int("start_allocated", start, "bytes")
                    .Int("end_allocated", end, "bytes")
                    .Int("min_allocated", min, "bytes")
                    .Int("steps_fitted", steps_fitted, "count")
                    .Real("leak_slope", slope, "bytes/step")
                    .Real("leak_r2", r2)
                    .Real("steps_to_exhaustion", exhaustion, "steps")
                    .Int("live_at_peak", live_at_peak, "bytes")
                    .Int("frees_of_earlier_allocations", unmatched, "count")
                    .Int("held_from_start", held, "bytes")
                    .Int("preallocated_pool", pool, "bytes")
                    .Real("pool_headroom_pct", pool_headroom_pct, "%")
                    .Text("tier", tier)
                    .Text("reasons", reasons));
    ctx.Publish(th::sdk::Table("oom_risk_allocations")
                    .Int("rank", a_rank)
                    .Text("device_type", a_type)
                    .Int("device", a_device)
                    .Int("order", a_order)
                    .Int("bytes", a_bytes, "bytes")
                    .Int("ts", a_ts, "ns")
                    .Int("addr", a_addr)
                    .Text("op", a_op)
                    .Text("top_op", a_top)
                    .Text("attribution", a_method));
    ctx.Publish(th::sdk::Table("oom_risk_steps")
                    .Int("rank", s_rank)
                    .Text("device_type", s_type)
                    .Int("device", s_device)
                    .Int("step", s_step)
                    .Int("warmup", s_warmup)
                    .Int("allocated_at_end", s_end, "bytes")
                    .Int("max_allocated", s_max, "bytes")
                    .Int("reserved_at_end", s_reserved, "bytes"));
  }

  static void Finding(Context& ctx, const DeviceMemory& d, const th::sdk::Scope& where) {
    th::sdk::Scope scope = where;
    if (d.peak_step >= 0) scope.step_first = scope.step_last = d.peak_step;
    const bool oom = d.oom_events > 0;
    th::sdk::Finding f(oom               ? th::sdk::P0
                       : d.tier == kHigh ? th::sdk::P1
                                         : th::sdk::P2,
                       std::string("OOM risk ") + TierName(d.tier) + ": " + d.cause);
    std::string what = d.label() + ": ";
    for (size_t k = 0; k < d.reasons.size(); ++k) what += (k ? "; " : "") + d.reasons[k];
    what += ".";
    if (d.pool)
      what += " A preallocated pool (KV cache?) of " + Bytes(static_cast<double>(d.held)) +
              " is held throughout the window; the tier judges the memory it leaves.";
    if (d.peak != kNoValue) {
      what += " Peak allocated " + Bytes(static_cast<double>(d.peak));
      if (!d.measured) what += " (net of Bytes since the capture started)";
      if (d.peak_step >= 0) what += " in step " + std::to_string(d.peak_step);
      if (d.reserved_at_peak >= 0)
        what += ", reserved " + Bytes(static_cast<double>(d.reserved_at_peak));
      what += ".";
    }
    if (!d.top.empty()) {
      what += " Largest live at peak:";
      for (size_t k = 0; k < std::min<size_t>(d.top.size(), 3); ++k) {
        const Allocation& a = d.top[k];
        what += std::string(k ? "," : "") + " " + Bytes(static_cast<double>(a.bytes)) + " by " +
                (a.op.empty() ? "(no enclosing op)" : a.op) +
                (a.top_op.empty() || a.top_op == a.op ? "" : " in " + a.top_op);
      }
      what += ".";
    }
    if (d.leak && !d.retained.empty()) {
      what += " Still live at the end, allocated in steady steps: " +
              Bytes(static_cast<double>(d.retained_bytes)) + ", mostly by";
      for (size_t k = 0; k < std::min<size_t>(d.retained.size(), 3); ++k)
        what += std::string(k ? "," : "") + " " + d.retained[k].first + " (" +
                Bytes(static_cast<double>(d.retained[k].second)) + ")";
      what += ".";
    }
    f.What(what).In(scope).Confidence(d.measured ? 0.9 : 0.6);

    std::string suggest;
    if (d.peak != kNoValue)
      f.Evidence("peak_allocated", static_cast<double>(d.peak), "bytes",
                 d.measured ? kMeasured : kInferred);
    if (d.capacity > 0) f.Evidence("capacity", static_cast<double>(d.capacity), "bytes", kRead);
    if (d.headroom_pct() >= 0) {
      f.Evidence("headroom", static_cast<double>(d.capacity - d.peak), "bytes", kMeasured);
      f.Evidence("headroom_pct", d.headroom_pct(), "%", kMeasured);
    }
    if (d.max_reserved >= 0)
      f.Evidence("peak_reserved", static_cast<double>(d.max_reserved), "bytes", kMeasured);
    if (oom) {
      f.Evidence("oom_events", static_cast<double>(d.oom_events), "count", kMeasured);
      if (d.oom_request > 0)
        f.Evidence("oom_largest_request", static_cast<double>(d.oom_request), "bytes", kMeasured);
      suggest += "An allocation already failed in this capture. ";
    }
    if (d.pool) {
      f.Evidence("preallocated_pool", static_cast<double>(d.held), "bytes", kMeasured);
      f.Evidence("pool_headroom_pct", d.pool_headroom_pct(), "%", kMeasured);
      if (d.near_capacity)
        suggest +=
            "The preallocated pool is sized on purpose (vLLM gpu_memory_utilization, SGLang "
            "mem_fraction_static): if what runs beside it comes this close to the rest of the "
            "device, give the pool a smaller fraction. ";
    }
    if (d.near_capacity || oom) {
      f.Evidence("transient_at_peak", static_cast<double>(d.transient_at_peak), "bytes", kMeasured);
      f.Evidence("est_checkpointing_savings_upper_bound", static_cast<double>(d.transient_at_peak),
                 "bytes", kInferred);
      suggest +=
          "Lower the peak: activation checkpointing (torch.utils.checkpoint) on the blocks "
          "whose activations are live at peak recovers up to the " +
          Bytes(static_cast<double>(d.transient_at_peak)) +
          " allocated within the peak step; also mixed precision (autocast bf16/fp16), a "
          "smaller micro-batch with gradient accumulation, or sharding parameters and "
          "optimizer state (FSDP / ZeRO). ";
    }
    if (d.leak) {
      f.Evidence("leak_slope", d.fit.slope, "bytes/step", kInferred);
      f.Evidence("leak_r2", d.fit.r2, "ratio", kInferred);
      f.Evidence("steps_fitted", static_cast<double>(d.fit.n), "count", kMeasured);
      if (d.steps_to_exhaustion >= 0)
        f.Evidence("steps_to_exhaustion", d.steps_to_exhaustion, "steps", kInferred);
      if (d.retained_bytes > 0)
        f.Evidence("retained_in_steady_steps", static_cast<double>(d.retained_bytes), "bytes",
                   kMeasured);
      f.Evidence("est_saved_per_step", d.fit.slope, "bytes/step", kInferred);
      suggest +=
          "Stop the per-step growth: look for tensors kept across steps (a list of losses "
          "appended without .item() or .detach(), retain_graph=True, caches keyed by step or "
          "shape, metrics accumulated on the device); the ops named above made the memory that "
          "stays live. ";
    }
    if (d.fragmented) {
      f.Evidence("fragmentation_at_peak", static_cast<double>(d.fragmentation()), "bytes",
                 kMeasured);
      f.Evidence("fragmentation_pct", d.fragmentation_pct(), "%", kMeasured);
      f.Evidence("est_recoverable_cache", static_cast<double>(d.fragmentation()), "bytes",
                 kInferred);
      suggest +=
          "Reduce fragmentation: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (or "
          "max_split_size_mb / garbage_collection_threshold), and keep tensor shapes stable "
          "across steps (bucket or pad variable-length batches).";
    }
    if (!suggest.empty() && suggest.back() == ' ') suggest.pop_back();
    f.Suggest(suggest);
    ctx.Add(f);
  }
};

}  // namespace

TH_PLUGIN(OomRisk)
