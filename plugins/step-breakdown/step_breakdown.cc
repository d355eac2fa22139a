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
// The pure steps are the phases of step_breakdown_phases.h (CpuCategory,
// ClipToSteps, SplitStep, AddsUp, SummarizePart, KernelTypeRegions).
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

#include "step_breakdown_phases.h"

namespace {

using th::sdk::Context;
using th::sdk::Declaration;
using th::sdk::Trace;
using namespace th::step_breakdown;

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

// Columns of step_breakdown, in (rank, ts) order.
struct StepColumns {
  std::vector<int64_t> rank, number, ts, dur;
  std::vector<std::string> phase, kind;
  std::array<std::vector<int64_t>, kParts> part_ns;
  std::array<std::vector<double>, kParts> part_pct;
};

// Columns of step_breakdown_summary.
struct SummaryColumns {
  std::vector<std::string> phase, part, kind;
  std::vector<int64_t> steps, ranks, mean, min, max;
  std::vector<double> mean_pct, min_pct, max_pct;
};

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
  // Clip every event to the steps it overlaps (group = step row), then
  // cumulative unions in priority order; category j = |U_j| - |U_{j-1}|,
  // other = step - |U_last|. Temporal: busy = |U(GPU rows)|, compute =
  // |U(COMPUTATION)|, idle = step - busy.
  static void PerStep(Context& ctx, const std::vector<StepRow>& steps) {
    std::map<int64_t, const Trace*> by_rank;
    for (const Trace& t : ctx.traces()) by_rank.try_emplace(t.rank(), &t);
    std::map<int64_t, std::vector<uint32_t>> rows_of_rank;
    for (uint32_t r = 0; r < steps.size(); ++r)
      if (by_rank.count(steps[r].rank)) rows_of_rank[steps[r].rank].push_back(r);
    StepClips clips;
    for (auto& [rank, rows] : rows_of_rank) {
      std::sort(rows.begin(), rows.end(),
                [&](uint32_t a, uint32_t b) { return steps[a].ts < steps[b].ts; });
      ClipToSteps(steps, rows, ReadStepEvents(*by_rank.at(rank)), clips);
    }
    const size_t n = steps.size();
    std::array<std::vector<int64_t>, kCategories> cumulative;
    Intervals running;
    for (size_t j = 0; j < kCategories; ++j) {
      running.Append(clips.bucket[j]);
      clips.bucket[j] = Intervals();
      cumulative[j] = ctx.IntervalUnion(running.group, running.begin, running.end, n);
    }
    running = Intervals();
    const std::vector<int64_t> busy =
        ctx.IntervalUnion(clips.gpu.group, clips.gpu.begin, clips.gpu.end, n);
    const std::vector<int64_t> computing =
        ctx.IntervalUnion(clips.comp.group, clips.comp.begin, clips.comp.end, n);
    std::vector<std::array<int64_t, kParts>> parts(n);
    for (size_t r = 0; r < n; ++r) {
      std::array<int64_t, kCategories> c{};
      for (size_t j = 0; j < kCategories; ++j) c[j] = cumulative[j][r];
      parts[r] = SplitStep(steps[r].dur, c, busy[r], computing[r]);
    }
    PublishSteps(ctx, steps, by_rank, parts);
  }

  // One rank's events with a category or among HTA's GPU rows.
  static std::vector<StepEvent> ReadStepEvents(const Trace& t) {
    std::unordered_map<uint32_t, Category> cpu_category;
    std::vector<StepEvent> events;
    for (uint64_t i = 0; i < t.size(); ++i) {
      const int64_t b = t.ts(i), e = t.end(i);
      if (e <= b) continue;
      const uint32_t kind = t.kind(i);
      Category c = kNoCategory;
      if (kind == TH_EVENT_KERNEL) {
        c = kKernel;
      } else if (kind == TH_EVENT_MEMCPY) {
        c = kMemcpy;
      } else if (kind == TH_EVENT_MEMSET) {
        c = kMemset;
      } else if (kind == TH_EVENT_RUNTIME || kind == TH_EVENT_DRIVER) {
        c = kRuntime;
      } else if (kind == TH_EVENT_CPU_OP || kind == TH_EVENT_PYTHON_FUNCTION) {
        auto [it, fresh] = cpu_category.try_emplace(t.name_id(i), kNoCategory);
        if (fresh) it->second = CpuCategory(t.name(i));
        c = it->second;
      }
      const bool gpu_row = IsGpuActivityOrSync(kind) && StreamOf(t, i) >= 0;
      if (c == kNoCategory && !gpu_row) continue;
      events.push_back({b, e, c, gpu_row, gpu_row && HtaKernelType(t, i) == kComputation});
    }
    return events;
  }

  // step_breakdown in (rank, ts) order, its check, and the summary.
  static void PublishSteps(Context& ctx, const std::vector<StepRow>& steps,
                           const std::map<int64_t, const Trace*>& by_rank,
                           const std::vector<std::array<int64_t, kParts>>& parts) {
    std::vector<uint32_t> order;
    for (uint32_t r = 0; r < steps.size(); ++r)
      if (by_rank.count(steps[r].rank)) order.push_back(r);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return steps[a].rank != steps[b].rank ? steps[a].rank < steps[b].rank
                                            : steps[a].ts < steps[b].ts;
    });
    StepColumns cols;
    int64_t balanced = 0;
    for (uint32_t r : order) {
      const StepRow& s = steps[r];
      balanced += AddsUp(parts[r], s.dur);
      cols.rank.push_back(s.rank);
      cols.number.push_back(s.number);
      cols.ts.push_back(s.ts);
      cols.dur.push_back(s.dur);
      cols.phase.push_back(s.warmup ? "warmup" : "steady");
      cols.kind.push_back(s.inferred ? "inferred" : "measured");
      for (size_t j = 0; j < kParts; ++j) {
        cols.part_ns[j].push_back(parts[r][j]);
        cols.part_pct[j].push_back(Pct(parts[r][j], s.dur));
      }
    }
    th::sdk::Table out("step_breakdown");
    out.Int("rank", cols.rank).Int("step", cols.number).Text("phase", cols.phase);
    out.Text("kind", cols.kind).Int("ts", cols.ts, "ns").Int("dur", cols.dur, "ns");
    for (size_t j = 0; j < kParts; ++j) out.Int(kPartNames[j], cols.part_ns[j], "ns");
    for (size_t j = 0; j < kParts; ++j)
      out.Real(std::string(kPartNames[j]) + "_pct", cols.part_pct[j], "%");
    ctx.Publish(out);
    const auto total = static_cast<int64_t>(order.size());
    ctx.Check("step breakdown adds up to the step time", balanced == total,
              std::to_string(balanced) + " of " + std::to_string(total) +
                  " steps: kernel + memcpy + memset + communication + runtime + dataloader + "
                  "cpu_exec + other = step time");
    PublishSummary(ctx, cols);
  }

  // Summary: per phase and part, over every (rank, step) of that phase.
  static void PublishSummary(Context& ctx, const StepColumns& cols) {
    SummaryColumns out;
    for (const char* ph : {"warmup", "steady"}) {
      std::vector<size_t> idx;
      std::set<int64_t> ranks;
      bool inferred = false;
      for (size_t k = 0; k < cols.phase.size(); ++k) {
        if (cols.phase[k] != ph) continue;
        idx.push_back(k);
        ranks.insert(cols.rank[k]);
        inferred = inferred || cols.kind[k] == "inferred";
      }
      if (idx.empty()) continue;
      const auto n_ranks = static_cast<int64_t>(ranks.size());
      AddSummary(ctx, out, ph, "step_time", inferred, n_ranks,
                 SummarizePart(cols.dur, nullptr, idx), false);
      for (size_t j = 0; j < kParts; ++j)
        AddSummary(ctx, out, ph, kPartNames[j], inferred, n_ranks,
                   SummarizePart(cols.part_ns[j], &cols.part_pct[j], idx), true);
    }
    ctx.Publish(th::sdk::Table("step_breakdown_summary")
                    .Text("phase", out.phase)
                    .Text("part", out.part)
                    .Text("kind", out.kind)
                    .Int("steps", out.steps, "count")
                    .Int("ranks", out.ranks, "count")
                    .Int("mean", out.mean, "ns")
                    .Int("min", out.min, "ns")
                    .Int("max", out.max, "ns")
                    .Real("mean_pct", out.mean_pct, "%")
                    .Real("min_pct", out.min_pct, "%")
                    .Real("max_pct", out.max_pct, "%"));
  }

  // One summary row, and its metric (the mean %, or the mean ns of the step time).
  static void AddSummary(Context& ctx, SummaryColumns& out, const std::string& ph,
                         const std::string& part, bool inferred, int64_t ranks,
                         const PartSummary& p, bool has_pct) {
    out.phase.push_back(ph);
    out.part.push_back(part);
    out.kind.push_back(inferred ? "inferred" : "measured");
    out.steps.push_back(p.steps);
    out.ranks.push_back(ranks);
    out.mean.push_back(p.mean);
    out.min.push_back(p.min);
    out.max.push_back(p.max);
    out.mean_pct.push_back(p.mean_pct);
    out.min_pct.push_back(p.min_pct);
    out.max_pct.push_back(p.max_pct);
    th::sdk::Scope scope;
    auto k = inferred ? th::sdk::kInferred : th::sdk::kMeasured;
    if (has_pct)
      ctx.Metric(ph + "_" + part + "_pct_mean", p.mean_pct, "%", k, scope);
    else
      ctx.Metric(ph + "_" + part + "_mean", static_cast<double>(p.mean), "ns", k, scope);
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

  // HTA's GPU rows of every rank (group = trace), all and by kernel type.
  struct RankIntervals {
    Intervals all;
    std::array<Intervals, 3> type;    // computation, communication, memory
    std::vector<int64_t> filtered;    // per trace: GPU rows left out
    std::vector<std::string> window;  // per trace: which rows were kept
  };

  static RankIntervals HtaIntervals(const Context& ctx, bool include_last, bool us_rounding) {
    const auto& traces = ctx.traces();
    const size_t n = traces.size();
    RankIntervals out;
    out.filtered.assign(n, 0);
    out.window.resize(n);
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
      out.filtered[g] = static_cast<int64_t>(gpu_rows - rows.size());
      out.window[g] = gpu_rows == rows.size() ? "all GPU rows"
                                              : "GPU rows launched before the last ProfilerStep";
      for (uint64_t i : rows) {
        int64_t b = t.ts(i), e = t.end(i);
        if (fractional) {
          // HTA: ts = ceil(ts µs), end = floor(end µs), on the µs clock.
          b = (b >= 0 ? (b + 999) / 1000 : -(-b / 1000)) * 1000;
          e = (e >= 0 ? e / 1000 : -((-e + 999) / 1000)) * 1000;
          e = std::max(e, b);  // HTA's negative durations (then its asserts fail): empty here
        }
        out.all.Add(g, b, e);
        const KernelType type_of = HtaKernelType(t, i);
        if (type_of != kOtherType) out.type[type_of].Add(g, b, e);
      }
    }
    return out;
  }

  // Per rank: HTA's temporal breakdown and kernel-type regions.
  static void PerRank(Context& ctx, bool include_last, bool us_rounding) {
    const size_t n = ctx.traces().size();
    const RankIntervals ri = HtaIntervals(ctx, include_last, us_rounding);
    using R = Context::Reduce;
    // Empty groups reduce to 0 for count; min/max are read only where count > 0.
    const std::vector<int64_t> count = ctx.ReduceByKey(ri.all.group, ri.all.begin, R::kCount, n);
    const std::vector<int64_t> first = ctx.ReduceByKey(ri.all.group, ri.all.begin, R::kMin, n);
    const std::vector<int64_t> last = ctx.ReduceByKey(ri.all.group, ri.all.end, R::kMax, n);
    const std::vector<int64_t> busy = ctx.IntervalUnion(ri.all.group, ri.all.begin, ri.all.end, n);
    auto unite = [&](std::initializer_list<int> sets) {
      Intervals u;
      for (int s : sets) u.Append(ri.type[s]);
      return ctx.IntervalUnion(u.group, u.begin, u.end, n);
    };
    const std::vector<int64_t> a = unite({kComputation}), b = unite({kCommunicationType}),
                               c = unite({kMemoryType});
    const std::vector<int64_t> ab = unite({kComputation, kCommunicationType}),
                               ac = unite({kComputation, kMemoryType}),
                               bc = unite({kCommunicationType, kMemoryType}),
                               abc = unite({kComputation, kCommunicationType, kMemoryType});
    PublishTemporal(ctx, ri, count, last, first, busy, a);
    std::vector<std::array<int64_t, 7>> regions(n);
    for (size_t g = 0; g < n; ++g)
      regions[g] = KernelTypeRegions(a[g], b[g], c[g], ab[g], ac[g], bc[g], abc[g]);
    PublishKernelTypes(ctx, regions, abc);
  }

  static void PublishTemporal(Context& ctx, const RankIntervals& ri,
                              const std::vector<int64_t>& count, const std::vector<int64_t>& last,
                              const std::vector<int64_t>& first, const std::vector<int64_t>& busy,
                              const std::vector<int64_t>& compute_ns) {
    std::vector<int64_t> rank_col, kernel_time, idle, compute, non_compute, rows_out, dropped;
    std::vector<double> idle_pct, compute_pct, non_compute_pct;
    std::vector<std::string> window_col, kind_col;
    for (size_t g = 0; g < count.size(); ++g) {
      if (count[g] <= 0) continue;
      th::sdk::Scope scope;
      scope.rank = ctx.traces()[g].rank();
      const int64_t span = last[g] - first[g];
      rank_col.push_back(scope.rank);
      kernel_time.push_back(span);
      idle.push_back(span - busy[g]);
      compute.push_back(compute_ns[g]);
      non_compute.push_back(busy[g] - compute_ns[g]);
      idle_pct.push_back(Pct(span - busy[g], span));
      compute_pct.push_back(Pct(compute_ns[g], span));
      non_compute_pct.push_back(Pct(busy[g] - compute_ns[g], span));
      rows_out.push_back(count[g]);
      dropped.push_back(ri.filtered[g]);
      window_col.push_back(ri.window[g]);
      kind_col.push_back("measured");
      ctx.Metric("hta_idle_pct", idle_pct.back(), "%", th::sdk::kMeasured, scope);
      ctx.Metric("hta_compute_pct", compute_pct.back(), "%", th::sdk::kMeasured, scope);
      ctx.Metric("hta_non_compute_pct", non_compute_pct.back(), "%", th::sdk::kMeasured, scope);
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
  }

  // Kernel types: HTA's names; the regions where exactly that set of types
  // runs, per rank (share of abc, the union of all three) and over all ranks.
  static void PublishKernelTypes(Context& ctx, const std::vector<std::array<int64_t, 7>>& regions,
                                 const std::vector<int64_t>& abc) {
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
    for (size_t g = 0; g < regions.size(); ++g) {
      for (size_t k = 0; k < 7; ++k) {
        set_total[k] += regions[g][k];
        if (regions[g][k] == 0) continue;
        kt_rank.push_back(ctx.traces()[g].rank());
        kt_type.push_back(type_names[k]);
        kt_time.push_back(regions[g][k]);
        kt_share.push_back(Pct(regions[g][k], abc[g]));
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
    ctx.Publish(th::sdk::Table("kernel_type_breakdown")
                    .Int("rank", kt_rank)
                    .Text("kernel_type", kt_type)
                    .Int("time", kt_time, "ns")
                    .Real("share", kt_share, "%"));
  }
};

}  // namespace

TH_PLUGIN(StepBreakdown)
