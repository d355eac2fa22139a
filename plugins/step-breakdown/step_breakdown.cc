// step-breakdown: where each step's time goes, per rank.
//
// - Per step (the `steps` table): the PyTorch profiler plugin's categories by
//   priority, kernel > memcpy > memset > communication > runtime > dataloader
//   > CPU exec > other, which add up to the step time to the nanosecond; and
//   HTA's temporal split of the step (idle / compute / non-compute).
// - Per rank: HTA's temporal breakdown (get_temporal_breakdown) and kernel
//   type shares (get_gpu_kernel_breakdown's kernel_type_breakdown), over the
//   rows HTA keeps.
// - Warm-up and steady-state steps summarised apart (never averaged together),
//   with the range over steps and ranks.
#include <tracehound/sdk.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using th::sdk::Context;
using th::sdk::Declaration;
using th::sdk::Trace;

// The PyTorch profiler plugin's step categories, in priority order; what is
// left of the step is "other".
enum Category : uint8_t {
  kKernel,
  kMemcpy,
  kMemset,
  kCommunication,
  kRuntime,
  kDataLoader,
  kCpuExec,
  kCategories,
  kNoCategory = 0xff
};
constexpr std::array<const char*, kCategories + 1> kCategoryNames = {
    "kernel", "memcpy", "memset", "communication", "runtime", "dataloader", "cpu_exec", "other"};
// The parts of a step in table step_breakdown: the categories, then idle,
// compute and non-compute.
constexpr size_t kParts = kCategories + 1 + 3;
constexpr std::array<const char*, kParts> kPartNames = {
    "kernel",   "memcpy", "memset", "communication", "runtime",    "dataloader",
    "cpu_exec", "other",  "idle",   "compute",       "non_compute"};

Category CpuCategory(std::string_view name) {
  if (name.starts_with("ProfilerStep#")) return kNoCategory;
  if (name.starts_with("nccl:") || name.starts_with("gloo:")) return kCommunication;
  if ((name.starts_with("enumerate(DataLoader)#") && name.ends_with(".__next__")) ||
      name.starts_with("enumerate(DataPipe)#"))
    return kDataLoader;
  return kCpuExec;
}

// HTA's kernel types (hta/utils/utils.py get_kernel_type, HTA 0.6.1): the
// host's kernel class table, rule set hta (COMMUNICATION, MEMORY, the
// COMPUTATION exclusion list as OTHER, then COMPUTATION).
enum KernelType : uint8_t { kComputation, kCommunicationType, kMemoryType, kOtherType };

KernelType HtaKernelType(const Trace& t, uint64_t i) {
  switch (t.hta_kernel_class(i)) {
    case th::sdk::KernelClass::kComp:
      return kComputation;
    case th::sdk::KernelClass::kComm:
      return kCommunicationType;
    case th::sdk::KernelClass::kMem:
      return kMemoryType;
    default:
      return kOtherType;
  }
}

// The stream of a GPU activity row (-1 when the event has none).
int64_t StreamOf(const Trace& t, uint64_t i) {
  const uint32_t row = t.args_row(i);
  if (row == th::sdk::kNoRow || row >= t.gpu_rows()) return -1;
  return t.gpu_stream(row);
}

// HTA's "GPU kernel" rows for the temporal and kernel breakdowns: every row
// with a stream (kernels, memcpy, memset, CUDA syncs on a stream; a Context
// or Event Sync has stream -1 and is left out).
bool IsGpuActivityOrSync(uint32_t kind) {
  return kind == TH_EVENT_KERNEL || kind == TH_EVENT_MEMCPY || kind == TH_EVENT_MEMSET ||
         kind == TH_EVENT_GPU_SYNC;
}
bool IsHtaGpuRow(const Trace& t, uint64_t i) {
  return IsGpuActivityOrSync(t.kind(i)) && StreamOf(t, i) >= 0;
}

// Intervals with a dense group id each, for the compute primitives.
struct Intervals {
  std::vector<uint32_t> group;
  std::vector<int64_t> begin, end;
  void Add(uint32_t g, int64_t b, int64_t e) {
    group.push_back(g);
    begin.push_back(b);
    end.push_back(e);
  }
  void Append(const Intervals& o) {
    group.insert(group.end(), o.group.begin(), o.group.end());
    begin.insert(begin.end(), o.begin.begin(), o.begin.end());
    end.insert(end.end(), o.end.begin(), o.end.end());
  }
};

struct StepRow {
  int64_t rank, number, ts, dur;
  bool warmup, inferred;
};

std::vector<StepRow> ReadSteps(const th::sdk::TableView& t) {
  const auto rank = t.Ints("rank"), step = t.Ints("step"), ts = t.Ints("ts"), dur = t.Ints("dur"),
             warm = t.Ints("warmup");
  const auto kind = t.Texts("kind");
  std::vector<StepRow> out;
  for (uint64_t r = 0; r < t.rows(); ++r)
    out.push_back(
        {rank[r], step[r], ts[r], dur[r], warm[r] != 0, std::string_view(kind[r]) == "inferred"});
  return out;
}

double Pct(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// The tables it publishes.
th::sdk::Schema StepBreakdownTable() {
  th::sdk::Schema s("step_breakdown");
  s.View("step-breakdown").Int("rank").Int("step").Text("phase").Text("kind");
  s.Int("ts", "ns").Int("dur", "ns");
  for (const char* part : kPartNames) s.Int(part, "ns");
  for (const char* part : kPartNames) s.Real(std::string(part) + "_pct", "%");
  return s;
}
th::sdk::Schema StepBreakdownSummaryTable() {
  return th::sdk::Schema("step_breakdown_summary")
      .View("step-breakdown-summary")
      .Text("phase")
      .Text("part")
      .Text("kind")
      .Int("steps", "count")
      .Int("ranks", "count")
      .Int("mean", "ns")
      .Int("min", "ns")
      .Int("max", "ns")
      .Real("mean_pct", "%")
      .Real("min_pct", "%")
      .Real("max_pct", "%");
}
th::sdk::Schema TemporalBreakdownTable() {
  return th::sdk::Schema("temporal_breakdown")
      .Int("rank")
      .Int("kernel_time", "ns")
      .Int("idle", "ns")
      .Int("compute", "ns")
      .Int("non_compute", "ns")
      .Real("idle_pct", "%")
      .Real("compute_pct", "%")
      .Real("non_compute_pct", "%")
      .Int("gpu_rows", "count")
      .Int("gpu_rows_left_out", "count")
      .Text("window")
      .Text("kind");
}
th::sdk::Schema KernelTypeBreakdownTable() {
  return th::sdk::Schema("kernel_type_breakdown")
      .Int("rank")
      .Text("kernel_type")
      .Int("time", "ns")
      .Real("share", "%");
}

class StepBreakdown final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("step-breakdown", "1.0.0", th::sdk::kAnalyzer,
                       "Per rank and step: the PyTorch profiler plugin's priority categories "
                       "(adding up to the step time) and HTA's idle / compute / non-compute "
                       "split; per rank HTA's temporal breakdown and kernel type shares; "
                       "warm-up and steady state apart")
        .Reads({"events", "gpu_args", "name_classes", "class_rules", "steps"})
        .Publishes(StepBreakdownTable())
        .Publishes(StepBreakdownSummaryTable())
        .Publishes(TemporalBreakdownTable())
        .Publishes(KernelTypeBreakdownTable())
        .Option("include_last_step", false,
                "rank-level tables: keep the GPU work of the last ProfilerStep (HTA's "
                "include_last_profiler_step; HTA leaves it out by default)")
        .Option("hta_us_rounding", false,
                "rank-level tables: round every GPU interval to whole microseconds (start up, "
                "end down) when the trace has fractional-µs timestamps, as HTA 0.6.1 does; off: "
                "exact nanoseconds");
  }

  void Run(Context& ctx) override {
    const th_table* table = ctx.FindTable("steps");
    if (!table)
      throw std::invalid_argument(
          "step-breakdown reads the table 'steps' of the steps plugin; add 'steps: {}' to the "
          "pipeline");
    const std::vector<StepRow> steps = ReadSteps(th::sdk::TableView(table));
    PerStep(ctx, steps);
    PerRank(ctx, ctx.GetBool("include_last_step"), ctx.GetBool("hta_us_rounding"));
  }

 private:
  // Phase 1: clip every event to the steps it overlaps (group = step row).
  // Phase 2: cumulative unions in priority order; category j = |U_j| -
  // |U_{j-1}|, other = step - |U_last|. Temporal: busy = |U(GPU rows)|,
  // compute = |U(COMPUTATION)|, idle = step - busy.
  static void PerStep(Context& ctx, const std::vector<StepRow>& steps) {
    std::map<int64_t, const Trace*> by_rank;
    for (const Trace& t : ctx.traces()) by_rank.try_emplace(t.rank(), &t);
    std::array<Intervals, kCategories> bucket;
    Intervals gpu, comp;
    std::map<int64_t, std::vector<uint32_t>> rows_of_rank;
    for (uint32_t r = 0; r < steps.size(); ++r)
      if (by_rank.count(steps[r].rank)) rows_of_rank[steps[r].rank].push_back(r);
    for (auto& [rank, rows] : rows_of_rank) {
      const Trace& t = *by_rank.at(rank);
      std::sort(rows.begin(), rows.end(),
                [&](uint32_t a, uint32_t b) { return steps[a].ts < steps[b].ts; });
      std::vector<int64_t> starts;
      int64_t longest = 0;
      for (uint32_t r : rows) {
        starts.push_back(steps[r].ts);
        longest = std::max(longest, steps[r].dur);
      }
      std::unordered_map<uint32_t, Category> cpu_category;
      for (uint64_t i = 0; i < t.size(); ++i) {
        const int64_t b = t.ts(i), e = t.end(i);
        if (e <= b) continue;
        const uint32_t kind = t.kind(i);
        Category c = kNoCategory;
        switch (kind) {
          case TH_EVENT_KERNEL:
            c = kKernel;
            break;
          case TH_EVENT_MEMCPY:
            c = kMemcpy;
            break;
          case TH_EVENT_MEMSET:
            c = kMemset;
            break;
          case TH_EVENT_RUNTIME:
          case TH_EVENT_DRIVER:
            c = kRuntime;
            break;
          case TH_EVENT_CPU_OP:
          case TH_EVENT_PYTHON_FUNCTION: {
            auto [it, fresh] = cpu_category.try_emplace(t.name_id(i), kNoCategory);
            if (fresh) it->second = CpuCategory(t.name(i));
            c = it->second;
            break;
          }
          default:
            break;
        }
        const bool gpu_row = IsGpuActivityOrSync(kind) && StreamOf(t, i) >= 0;
        if (c == kNoCategory && !gpu_row) continue;
        const bool compute = gpu_row && HtaKernelType(t, i) == kComputation;
        // Steps overlapping [b, e): walk back from the last one starting before e.
        auto it = std::lower_bound(starts.begin(), starts.end(), e);
        for (auto k = static_cast<size_t>(it - starts.begin()); k-- > 0;) {
          const StepRow& s = steps[rows[k]];
          if (s.ts + longest <= b) break;
          const int64_t cb = std::max(b, s.ts), ce = std::min(e, s.ts + s.dur);
          if (ce <= cb) continue;
          if (c != kNoCategory) bucket[c].Add(rows[k], cb, ce);
          if (gpu_row) gpu.Add(rows[k], cb, ce);
          if (compute) comp.Add(rows[k], cb, ce);
        }
      }
    }
    const size_t n = steps.size();
    std::array<std::vector<int64_t>, kCategories> cumulative;
    Intervals running;
    for (size_t j = 0; j < kCategories; ++j) {
      running.Append(bucket[j]);
      bucket[j] = Intervals();
      cumulative[j] = ctx.IntervalUnion(running.group, running.begin, running.end, n);
    }
    running = Intervals();
    const std::vector<int64_t> busy = ctx.IntervalUnion(gpu.group, gpu.begin, gpu.end, n);
    const std::vector<int64_t> computing = ctx.IntervalUnion(comp.group, comp.begin, comp.end, n);

    // Rows in (rank, ts) order.
    std::vector<uint32_t> order;
    for (uint32_t r = 0; r < n; ++r)
      if (by_rank.count(steps[r].rank)) order.push_back(r);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return steps[a].rank != steps[b].rank ? steps[a].rank < steps[b].rank
                                            : steps[a].ts < steps[b].ts;
    });
    std::vector<int64_t> rank_col, number, ts, dur;
    std::vector<std::string> phase, kind;
    std::array<std::vector<int64_t>, kParts> part_ns;
    std::array<std::vector<double>, kParts> part_pct;
    int64_t balanced = 0;
    for (uint32_t r : order) {
      const StepRow& s = steps[r];
      std::array<int64_t, kParts> v{};
      int64_t prev = 0;
      for (size_t j = 0; j < kCategories; ++j) {
        v[j] = cumulative[j][r] - prev;
        prev = cumulative[j][r];
      }
      v[kCategories] = s.dur - prev;
      v[kCategories + 1] = s.dur - busy[r];         // idle
      v[kCategories + 2] = computing[r];            // compute
      v[kCategories + 3] = busy[r] - computing[r];  // non-compute
      int64_t sum = 0;
      bool nonnegative = true;
      for (size_t j = 0; j <= kCategories; ++j) {
        sum += v[j];
        nonnegative = nonnegative && v[j] >= 0;
      }
      balanced += nonnegative && sum == s.dur;
      rank_col.push_back(s.rank);
      number.push_back(s.number);
      ts.push_back(s.ts);
      dur.push_back(s.dur);
      phase.push_back(s.warmup ? "warmup" : "steady");
      kind.push_back(s.inferred ? "inferred" : "measured");
      for (size_t j = 0; j < kParts; ++j) {
        part_ns[j].push_back(v[j]);
        part_pct[j].push_back(Pct(v[j], s.dur));
      }
    }
    th::sdk::Table out("step_breakdown");
    out.Int("rank", rank_col).Int("step", number).Text("phase", phase).Text("kind", kind);
    out.Int("ts", ts, "ns").Int("dur", dur, "ns");
    for (size_t j = 0; j < kParts; ++j) out.Int(kPartNames[j], part_ns[j], "ns");
    for (size_t j = 0; j < kParts; ++j)
      out.Real(std::string(kPartNames[j]) + "_pct", part_pct[j], "%");
    ctx.Publish(out);

    const auto total = static_cast<int64_t>(order.size());
    ctx.Check("step breakdown adds up to the step time", balanced == total,
              std::to_string(balanced) + " of " + std::to_string(total) +
                  " steps: kernel + memcpy + memset + communication + runtime + dataloader + "
                  "cpu_exec + other = step time");

    // Summary: per phase and part, over every (rank, step) of that phase.
    std::vector<std::string> s_phase, s_part, s_kind;
    std::vector<int64_t> s_steps, s_ranks, s_mean, s_min, s_max;
    std::vector<double> s_mean_pct, s_min_pct, s_max_pct;
    for (const char* ph : {"warmup", "steady"}) {
      std::vector<size_t> idx;
      std::set<int64_t> ranks;
      bool inferred = false;
      for (size_t k = 0; k < order.size(); ++k) {
        if (phase[k] != ph) continue;
        idx.push_back(k);
        ranks.insert(rank_col[k]);
        inferred = inferred || kind[k] == "inferred";
      }
      if (idx.empty()) continue;
      auto add = [&](const std::string& part, const std::vector<int64_t>& ns,
                     const std::vector<double>* pct) {
        int64_t sum = 0, lo = std::numeric_limits<int64_t>::max(), hi = 0;
        double psum = 0, plo = 1e300, phi = -1e300;
        for (size_t k : idx) {
          sum += ns[k];
          lo = std::min(lo, ns[k]);
          hi = std::max(hi, ns[k]);
          double p = pct ? (*pct)[k] : 100.0;
          psum += p;
          plo = std::min(plo, p);
          phi = std::max(phi, p);
        }
        const auto cnt = static_cast<int64_t>(idx.size());
        s_phase.push_back(ph);
        s_part.push_back(part);
        s_kind.push_back(inferred ? "inferred" : "measured");
        s_steps.push_back(cnt);
        s_ranks.push_back(static_cast<int64_t>(ranks.size()));
        s_mean.push_back(sum / cnt);
        s_min.push_back(lo);
        s_max.push_back(hi);
        s_mean_pct.push_back(psum / static_cast<double>(cnt));
        s_min_pct.push_back(plo);
        s_max_pct.push_back(phi);
        th::sdk::Scope scope;
        auto k = inferred ? th::sdk::kInferred : th::sdk::kMeasured;
        if (pct)
          ctx.Metric(std::string(ph) + "_" + part + "_pct_mean", psum / static_cast<double>(cnt),
                     "%", k, scope);
        else
          ctx.Metric(std::string(ph) + "_" + part + "_mean", static_cast<double>(sum / cnt), "ns",
                     k, scope);
      };
      add("step_time", dur, nullptr);
      for (size_t j = 0; j < kParts; ++j) add(kPartNames[j], part_ns[j], &part_pct[j]);
    }
    ctx.Publish(th::sdk::Table("step_breakdown_summary")
                    .Text("phase", s_phase)
                    .Text("part", s_part)
                    .Text("kind", s_kind)
                    .Int("steps", s_steps, "count")
                    .Int("ranks", s_ranks, "count")
                    .Int("mean", s_mean, "ns")
                    .Int("min", s_min, "ns")
                    .Int("max", s_max, "ns")
                    .Real("mean_pct", s_mean_pct, "%")
                    .Real("min_pct", s_min_pct, "%")
                    .Real("max_pct", s_max_pct, "%"));
  }

  // HTA's rows of one trace (hta/common/trace.py _filter_irrelevant_gpu_kernels).
  // When the trace set names two or more distinct ProfilerStep events, only
  // the GPU rows whose correlation id is that of a host row starting before
  // the last ProfilerStep starts are kept (with include_last: starting no later
  // than the last one ends); GPU work launched before the capture has no such
  // host row and is left out too. Host rows are every event but GPU activity,
  // syncs and flows (HTA reads no flow ids); a sync without a correlation id is
  // kept, as HTA's merge on the missing id keeps it.
  static std::vector<uint64_t> HtaRows(const Trace& t, bool filter, bool include_last) {
    std::unordered_map<uint32_t, bool> is_step;
    auto step_name = [&](uint64_t i) {
      auto [it, fresh] = is_step.try_emplace(t.name_id(i), false);
      if (fresh) it->second = t.name(i).find("ProfilerStep") != std::string_view::npos;
      return it->second;
    };
    auto host = [&](uint64_t i) {
      return !IsGpuActivityOrSync(t.kind(i)) && t.kind(i) != TH_EVENT_FLOW;
    };
    int64_t last_start = std::numeric_limits<int64_t>::min();
    int64_t last_end = std::numeric_limits<int64_t>::min();
    for (uint64_t i = 0; filter && i < t.size(); ++i) {
      if (!host(i) || !step_name(i)) continue;
      last_start = std::max(last_start, t.ts(i));
      last_end = std::max(last_end, t.end(i));
    }
    filter = filter && last_start != std::numeric_limits<int64_t>::min();
    constexpr int64_t kNone = std::numeric_limits<int64_t>::min();
    std::unordered_set<int64_t> launched;
    for (uint64_t i = 0; filter && i < t.size(); ++i) {
      if (!host(i) || (include_last ? t.ts(i) > last_end : t.ts(i) >= last_start)) continue;
      const int64_t c = t.correlation(i);
      if (c != kNone) launched.insert(c);
    }
    std::vector<uint64_t> rows;
    for (uint64_t i = 0; i < t.size(); ++i) {
      if (!IsHtaGpuRow(t, i)) continue;
      if (filter) {
        const int64_t c = t.correlation(i);
        if (c != kNone && !launched.count(c)) continue;
      }
      rows.push_back(i);
    }
    return rows;
  }

  // Distinct event names holding "ProfilerStep" over every trace of the set
  // (HTA looks them up in its symbol table, shared by the ranks).
  static size_t ProfilerStepNames(const Context& ctx) {
    std::set<std::string> names;
    for (const Trace& t : ctx.traces()) {
      std::unordered_set<uint32_t> seen;
      for (uint64_t i = 0; i < t.size(); ++i)
        if (seen.insert(t.name_id(i)).second &&
            t.name(i).find("ProfilerStep") != std::string_view::npos)
          names.emplace(t.name(i));
    }
    return names.size();
  }

  // Per rank: HTA's temporal breakdown and kernel-type regions.
  static void PerRank(Context& ctx, bool include_last, bool us_rounding) {
    const auto& traces = ctx.traces();
    const size_t n = traces.size();
    Intervals all, type[3];
    std::vector<int64_t> filtered(n, 0);
    std::vector<std::string> window(n);
    const bool filter = ProfilerStepNames(ctx) >= 2;
    for (uint32_t g = 0; g < n; ++g) {
      const Trace& t = traces[g];
      std::vector<uint64_t> rows = HtaRows(t, filter, include_last);
      bool fractional = false;
      if (us_rounding)
        for (uint64_t i = 0; i < t.size() && !fractional; ++i)
          fractional = t.ts(i) % 1000 != 0;  // pandas then holds ts as float64
      uint64_t gpu_rows = 0;
      for (uint64_t i = 0; i < t.size(); ++i) gpu_rows += IsHtaGpuRow(t, i);
      filtered[g] = static_cast<int64_t>(gpu_rows - rows.size());
      window[g] = gpu_rows == rows.size() ? "all GPU rows"
                                          : "GPU rows launched before the last ProfilerStep";
      for (uint64_t i : rows) {
        int64_t b = t.ts(i), e = t.end(i);
        if (fractional) {
          // HTA: ts = ceil(ts µs), end = floor(end µs), on the µs clock.
          b = (b >= 0 ? (b + 999) / 1000 : -(-b / 1000)) * 1000;
          e = (e >= 0 ? e / 1000 : -((-e + 999) / 1000)) * 1000;
          e = std::max(e, b);  // HTA's negative durations (then its asserts fail): empty here
        }
        all.Add(g, b, e);
        const KernelType type_of = HtaKernelType(t, i);
        if (type_of != kOtherType) type[type_of].Add(g, b, e);
      }
    }
    using R = Context::Reduce;
    // Empty groups reduce to 0 for count; min/max are read only where count > 0.
    const std::vector<int64_t> count = ctx.ReduceByKey(all.group, all.begin, R::kCount, n);
    const std::vector<int64_t> first = ctx.ReduceByKey(all.group, all.begin, R::kMin, n);
    const std::vector<int64_t> last = ctx.ReduceByKey(all.group, all.end, R::kMax, n);
    const std::vector<int64_t> busy = ctx.IntervalUnion(all.group, all.begin, all.end, n);
    auto unite = [&](std::initializer_list<int> sets) {
      Intervals u;
      for (int s : sets) u.Append(type[s]);
      return ctx.IntervalUnion(u.group, u.begin, u.end, n);
    };
    const std::vector<int64_t> a = unite({kComputation}), b = unite({kCommunicationType}),
                               c = unite({kMemoryType});
    const std::vector<int64_t> ab = unite({kComputation, kCommunicationType}),
                               ac = unite({kComputation, kMemoryType}),
                               bc = unite({kCommunicationType, kMemoryType}),
                               abc = unite({kComputation, kCommunicationType, kMemoryType});

    std::vector<int64_t> rank_col, kernel_time, idle, compute, non_compute, rows_out, dropped;
    std::vector<double> idle_pct, compute_pct, non_compute_pct;
    std::vector<std::string> window_col, kind_col;
    // Kernel types: HTA's names; the regions where exactly that set of types runs.
    const std::array<const char*, 7> type_names = {
        "COMPUTATION",
        "COMMUNICATION",
        "MEMORY",
        "COMPUTATION overlapping COMMUNICATION",
        "COMPUTATION overlapping MEMORY",
        "COMMUNICATION overlapping MEMORY",
        "COMPUTATION overlapping COMMUNICATION overlapping MEMORY"};
    std::vector<int64_t> kt_rank, kt_time;
    std::vector<std::string> kt_type;
    std::vector<double> kt_share;
    std::array<int64_t, 7> set_total{};
    for (size_t g = 0; g < n; ++g) {
      const Trace& t = traces[g];
      th::sdk::Scope scope;
      scope.rank = t.rank();
      if (count[g] > 0) {
        const int64_t span = last[g] - first[g];
        rank_col.push_back(t.rank());
        kernel_time.push_back(span);
        idle.push_back(span - busy[g]);
        compute.push_back(a[g]);
        non_compute.push_back(busy[g] - a[g]);
        idle_pct.push_back(Pct(span - busy[g], span));
        compute_pct.push_back(Pct(a[g], span));
        non_compute_pct.push_back(Pct(busy[g] - a[g], span));
        rows_out.push_back(count[g]);
        dropped.push_back(filtered[g]);
        window_col.push_back(window[g]);
        kind_col.push_back("measured");
        ctx.Metric("hta_idle_pct", idle_pct.back(), "%", th::sdk::kMeasured, scope);
        ctx.Metric("hta_compute_pct", compute_pct.back(), "%", th::sdk::kMeasured, scope);
        ctx.Metric("hta_non_compute_pct", non_compute_pct.back(), "%", th::sdk::kMeasured, scope);
      }
      const std::array<int64_t, 7> region = {abc[g] - bc[g],
                                             abc[g] - ac[g],
                                             abc[g] - ab[g],
                                             ac[g] + bc[g] - c[g] - abc[g],
                                             ab[g] + bc[g] - b[g] - abc[g],
                                             ab[g] + ac[g] - a[g] - abc[g],
                                             0};
      std::array<int64_t, 7> r = region;
      int64_t others = 0;
      for (size_t k = 0; k < 6; ++k) others += r[k];
      r[6] = abc[g] - others;
      for (size_t k = 0; k < 7; ++k) {
        set_total[k] += r[k];
        if (r[k] == 0) continue;
        kt_rank.push_back(t.rank());
        kt_type.push_back(type_names[k]);
        kt_time.push_back(r[k]);
        kt_share.push_back(Pct(r[k], abc[g]));
      }
    }
    int64_t grand = 0;
    for (int64_t v : set_total) grand += v;
    for (size_t k = 0; k < 7; ++k) {
      if (set_total[k] == 0) continue;
      kt_rank.push_back(-1);
      kt_type.push_back(type_names[k]);
      kt_time.push_back(set_total[k]);
      kt_share.push_back(Pct(set_total[k], grand));
    }
    ctx.Publish(th::sdk::Table("temporal_breakdown")
                    .Int("rank", rank_col)
                    .Int("kernel_time", kernel_time, "ns")
                    .Int("idle", idle, "ns")
                    .Int("compute", compute, "ns")
                    .Int("non_compute", non_compute, "ns")
                    .Real("idle_pct", idle_pct, "%")
                    .Real("compute_pct", compute_pct, "%")
                    .Real("non_compute_pct", non_compute_pct, "%")
                    .Int("gpu_rows", rows_out, "count")
                    .Int("gpu_rows_left_out", dropped, "count")
                    .Text("window", window_col)
                    .Text("kind", kind_col));
    ctx.Publish(th::sdk::Table("kernel_type_breakdown")
                    .Int("rank", kt_rank)
                    .Text("kernel_type", kt_type)
                    .Int("time", kt_time, "ns")
                    .Real("share", kt_share, "%"));
  }
};

}  // namespace

TH_PLUGIN(StepBreakdown)
