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
// StepUnions, SplitStep, AddsUp, SummarizePart, KernelTypeRegions).
#include <tracehound/id_set.h>
#include <tracehound/sdk.h>
#include <tracehound/time_order.h>
#include <tracehound/zeroed_array.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
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
        .Reads({"events", "gpu_args", "name_classes", "class_rules", "steps", "tracks",
                "track_events", "track_order"})
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
  // Per rank, its events by start united per step they overlap (StepUnions):
  // the cumulative unions in priority order give category j = |U_j| -
  // |U_{j-1}|, other = step - |U_last|. Temporal: busy = |U(GPU rows)|,
  // compute = |U(COMPUTATION)|, idle = step - busy.
  static void PerStep(Context& ctx, const std::vector<StepRow>& steps) {
    std::map<int64_t, const Trace*> by_rank;
    for (const Trace& t : ctx.traces()) by_rank.try_emplace(t.rank(), &t);
    std::map<int64_t, std::vector<uint32_t>> rows_of_rank;
    for (uint32_t r = 0; r < steps.size(); ++r)
      if (by_rank.count(steps[r].rank)) rows_of_rank[steps[r].rank].push_back(r);
    std::vector<std::array<int64_t, kParts>> parts(steps.size());
    for (auto& [rank, rows] : rows_of_rank) {
      std::sort(rows.begin(), rows.end(),
                [&](uint32_t a, uint32_t b) { return steps[a].ts < steps[b].ts; });
      StepUnions unions(steps, std::move(rows));
      UniteRankEvents(*by_rank.at(rank), unions);
      for (size_t k = 0; k < unions.size(); ++k) {
        const uint32_t r = unions.row(k);
        parts[r] =
            SplitStep(steps[r].dur, unions.Cumulative(k), unions.Busy(k), unions.Computing(k));
      }
    }
    PublishSteps(ctx, steps, by_rank, parts);
  }

  // An event's label for the step sweep: its category (kCategories when
  // none), whether it is one of HTA's GPU rows, whether a COMPUTATION one;
  // kSkip when it has neither category nor GPU row, or lies outside the steps.
  static constexpr uint8_t kSkip = 0xff, kGpuRowBit = 0x10, kComputeBit = 0x20;

  // Feeds one rank's events with a category or among HTA's GPU rows to
  // `unions`, by start: each track's events in order, the tracks merged.
  static void UniteRankEvents(const Trace& t, StepUnions& unions) {
    constexpr uint8_t kUnknown = 0xfe;
    std::vector<uint8_t> cpu_category;  // per name id, kUnknown until looked up
    std::vector<uint8_t> label(t.size(), kSkip);
    // The columns read for every event, as spans (no per-read check).
    const th::sdk::TableView events = t.Table("events");
    const std::span<const int64_t> ts = events.Ints("ts"), dur = events.Ints("dur");
    const std::span<const uint8_t> kinds = events.Values<uint8_t>("kind", TH_TYPE_U8);
    const std::span<const uint32_t> names = events.Values<uint32_t>("name", TH_TYPE_STRING_ID);
    const std::span<const uint32_t> parents = events.Values<uint32_t>("parent", TH_TYPE_U32);
    auto keep = [&](uint32_t i) {
      const int64_t b = ts[i], e = ts[i] + dur[i];
      if (e <= b || !unions.Overlaps(b, e)) return false;
      const uint32_t kind = kinds[i];
      uint8_t c = kNoCategory;
      if (kind == TH_EVENT_KERNEL) {
        c = kKernel;
      } else if (kind == TH_EVENT_MEMCPY) {
        c = kMemcpy;
      } else if (kind == TH_EVENT_MEMSET) {
        c = kMemset;
      } else if (kind == TH_EVENT_RUNTIME || kind == TH_EVENT_DRIVER) {
        c = kRuntime;
      } else if (kind == TH_EVENT_CPU_OP || kind == TH_EVENT_PYTHON_FUNCTION) {
        const uint32_t name = names[i];
        if (name >= cpu_category.size()) cpu_category.resize(name + 1, kUnknown);
        if (cpu_category[name] == kUnknown) cpu_category[name] = CpuCategory(t.name(i));
        c = cpu_category[name];
      }
      const bool gpu_row = IsGpuActivityOrSync(kind) && StreamOf(t, i) >= 0;
      if (c == kNoCategory && !gpu_row) return false;
      uint8_t l = c == kNoCategory ? uint8_t{kCategories} : c;
      if (gpu_row) l |= kGpuRowBit;
      if (gpu_row && HtaKernelType(t, i) == kComputation) l |= kComputeBit;
      // Inside an enclosing event whose label covers it (a category of the
      // same or a higher priority, every flag of its own), it adds nothing
      // to any union: left out, and its label becomes the cover's, against
      // which its own children are judged (they lie inside it, so inside the
      // cover). Parents come first in track order.
      const uint32_t p = parents[i];
      if (p != th::sdk::kNoRow) {
        const uint8_t cover = label[p];
        if (cover != kSkip && (cover & 0x0f) <= (l & 0x0f) &&
            (l & ~cover & (kGpuRowBit | kComputeBit)) == 0 && ts[p] <= b && e <= ts[p] + dur[p]) {
          label[i] = cover;
          return false;
        }
      }
      label[i] = l;
      return true;
    };
    const th::sdk::TrackRows by_track = th::sdk::KeepInTrackOrder(
        static_cast<uint32_t>(t.track_count()), [&](uint32_t k) { return t.track_events(k); },
        keep);
    std::vector<th::sdk::StartList> lists;
    for (size_t k = 0; k < by_track.lists(); ++k)
      lists.push_back({by_track.Of(k), by_track.track[k]});
    // The kept rows are sparse in the columns (a cache miss each): their
    // start, duration and label are asked for a few rows ahead.
    th::sdk::MergeByStart(
        lists, [&](uint32_t, uint32_t i) { return ts[i]; },
        [&](uint32_t, uint32_t i) {
          const uint8_t l = label[i];
          const uint8_t c = l & 0x0f;
          unions.Add({ts[i], ts[i] + dur[i],
                      c == kCategories ? kNoCategory : static_cast<Category>(c),
                      (l & kGpuRowBit) != 0, (l & kComputeBit) != 0});
        },
        [&](uint32_t, uint32_t i) {
          __builtin_prefetch(&ts[i]);
          __builtin_prefetch(&dur[i]);
          __builtin_prefetch(&label[i]);
        });
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

  // Per name id of one trace: whether the name holds "ProfilerStep" (names
  // no event carries: kUnseen).
  static constexpr uint8_t kUnseen = 0, kOtherName = 1, kStepName = 2;
  using StepNameFlags = std::vector<uint8_t>;

  // Per trace its step-name flags; `names`: the distinct names holding
  // "ProfilerStep" over every trace of the set (HTA looks them up in its symbol
  // table, shared by the ranks).
  static std::vector<StepNameFlags> ProfilerStepNames(const Context& ctx,
                                                      std::set<std::string>& names) {
    std::vector<StepNameFlags> flags;
    for (const Trace& t : ctx.traces()) {
      StepNameFlags& f = flags.emplace_back();
      // No string of the trace holds "ProfilerStep": no event is named so,
      // and none needs reading.
      const uint64_t strings = t.string_count();
      bool any = false;
      for (uint32_t id = 0; id < strings && !any; ++id)
        any = t.String(id).find("ProfilerStep") != std::string_view::npos;
      if (!any) {
        f.assign(strings, kOtherName);
        continue;
      }
      for (uint64_t i = 0; i < t.size(); ++i) {
        const uint32_t id = t.name_id(i);
        if (id >= f.size()) f.resize(id + 1, kUnseen);
        if (f[id] != kUnseen) continue;
        const std::string_view name = t.name(i);
        f[id] = name.find("ProfilerStep") != std::string_view::npos ? kStepName : kOtherName;
        if (f[id] == kStepName) names.emplace(name);
      }
    }
    return flags;
  }

  // The correlation ids that keep a GPU row under HTA's filter
  // (hta/common/trace.py _filter_irrelevant_gpu_kernels): those of host rows
  // starting before the last ProfilerStep starts (with include_last: no later
  // than the last one ends). Host rows are every event but GPU activity, syncs
  // and flows (HTA reads no flow ids). Null when the trace has no host
  // ProfilerStep row, so that nothing is filtered.
  static std::optional<th::sdk::IdSet> LaunchedIds(const Trace& t, const StepNameFlags& step_name,
                                                   bool include_last) {
    auto host = [&](uint64_t i) {
      return !IsGpuActivityOrSync(t.kind(i)) && t.kind(i) != TH_EVENT_FLOW;
    };
    int64_t last_start = std::numeric_limits<int64_t>::min();
    int64_t last_end = std::numeric_limits<int64_t>::min();
    for (uint64_t i = 0; i < t.size(); ++i) {
      if (!host(i) || step_name[t.name_id(i)] != kStepName) continue;
      last_start = std::max(last_start, t.ts(i));
      last_end = std::max(last_end, t.end(i));
    }
    if (last_start == std::numeric_limits<int64_t>::min()) return std::nullopt;
    return th::sdk::IdSet::Of([&](auto add) {
      for (uint64_t i = 0; i < t.size(); ++i) {
        if (!host(i) || (include_last ? t.ts(i) > last_end : t.ts(i) >= last_start)) continue;
        const int64_t c = t.correlation(i);
        if (c != kNoCorrelation) add(c);
      }
    });
  }
  static constexpr int64_t kNoCorrelation = std::numeric_limits<int64_t>::min();

  // One trace's HTA GPU rows: how many, which were kept, their span and the
  // unions of the kept rows: all, and per set of kernel types (index: bit 1
  // computation, 2 communication, 4 memory).
  struct RankUnions {
    int64_t gpu_rows = 0, kept = 0;
    int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
    int64_t busy = 0;
    std::array<int64_t, 8> by_types{};
  };

  // HTA's rows of one trace, filtered by `launched` when there is one: the GPU
  // rows whose correlation id is in it, and those without a correlation id (as
  // HTA's merge on the missing id keeps them); GPU work launched before the
  // capture has no host row and is left out.
  static RankUnions UniteHtaRows(const Trace& t, const th::sdk::IdSet* launched, bool us_rounding) {
    bool fractional = false;
    if (us_rounding)
      for (uint64_t i = 0; i < t.size() && !fractional; ++i)
        fractional = t.ts(i) % 1000 != 0;  // pandas then holds ts as float64
    auto interval = [&](uint64_t i) {
      int64_t b = t.ts(i), e = t.end(i);
      if (fractional) {
        // HTA: ts = ceil(ts µs), end = floor(end µs), on the µs clock.
        b = (b >= 0 ? (b + 999) / 1000 : -(-b / 1000)) * 1000;
        e = (e >= 0 ? e / 1000 : -((-e + 999) / 1000)) * 1000;
        e = std::max(e, b);  // HTA's negative durations (then its asserts fail): empty here
      }
      return std::pair{b, e};
    };
    RankUnions out;
    // Kept rows with a length: their KernelType (read for those rows only; the
    // pages of other events are never touched).
    th::sdk::ZeroedArray<uint8_t> type(t.size());
    auto keep = [&](uint32_t i) {
      if (!IsHtaGpuRow(t, i)) return false;
      ++out.gpu_rows;
      if (launched) {
        const int64_t c = t.correlation(i);
        if (c != kNoCorrelation && !launched->Contains(c)) return false;
      }
      ++out.kept;
      const auto [b, e] = interval(i);
      out.first = std::min(out.first, b);
      out.last = std::max(out.last, e);
      if (e <= b) return false;
      type[i] = HtaKernelType(t, i);
      return true;
    };
    // Only the tracks that hold a GPU row (a gpu_args row) are walked.
    std::vector<uint8_t> has_gpu_row(t.track_count(), 0);
    for (uint64_t r = 0; r < t.gpu_rows(); ++r) has_gpu_row[t.track_index(t.gpu_event(r))] = 1;
    auto gpu_track_events = [&](uint32_t k) {
      return has_gpu_row[k] ? t.track_events(k) : Trace::TrackEvents{};
    };
    const th::sdk::TrackRows by_track =
        th::sdk::KeepInTrackOrder(static_cast<uint32_t>(t.track_count()), gpu_track_events, keep);
    std::vector<th::sdk::StartList> lists;
    for (size_t k = 0; k < by_track.lists(); ++k)
      lists.push_back({by_track.Of(k), by_track.track[k]});
    th::sdk::UnionCover all;
    std::array<th::sdk::UnionCover, 8> by_types;
    // Rounding keeps the order of starts, so the rows come by rounded start too.
    const th::sdk::TableView events = t.Table("events");
    const std::span<const int64_t> ts = events.Ints("ts"), dur = events.Ints("dur");
    th::sdk::MergeByStart(
        lists, [&](uint32_t, uint32_t i) { return ts[i]; },
        [&](uint32_t, uint32_t i) {
          const auto [b, e] = interval(i);
          all.Add(b, e);
          if (type[i] == kOtherType) return;
          const unsigned bit = 1u << type[i];
          for (unsigned set = 1; set < 8; ++set)
            if (set & bit) by_types[set].Add(b, e);
        },
        [&](uint32_t, uint32_t i) {  // sparse rows: their columns asked for ahead
          __builtin_prefetch(&ts[i]);
          __builtin_prefetch(&dur[i]);
          __builtin_prefetch(&type[i]);
        });
    out.busy = all.total;
    for (size_t set = 1; set < 8; ++set) out.by_types[set] = by_types[set].total;
    return out;
  }

  // Per rank: HTA's temporal breakdown and kernel-type regions.
  static void PerRank(Context& ctx, bool include_last, bool us_rounding) {
    const auto& traces = ctx.traces();
    std::set<std::string> step_names;
    const std::vector<StepNameFlags> step_name = ProfilerStepNames(ctx, step_names);
    const bool filter = step_names.size() >= 2;
    std::vector<RankUnions> ranks;
    for (size_t g = 0; g < traces.size(); ++g) {
      std::optional<th::sdk::IdSet> launched;
      if (filter) launched = LaunchedIds(traces[g], step_name[g], include_last);
      ranks.push_back(UniteHtaRows(traces[g], launched ? &*launched : nullptr, us_rounding));
    }
    PublishTemporal(ctx, ranks);
    std::vector<std::array<int64_t, 7>> regions;
    std::vector<int64_t> abc;
    for (const RankUnions& r : ranks) {
      const auto& u = r.by_types;
      regions.push_back(KernelTypeRegions(u[1], u[2], u[4], u[3], u[5], u[6], u[7]));
      abc.push_back(u[7]);
    }
    PublishKernelTypes(ctx, regions, abc);
  }

  static void PublishTemporal(Context& ctx, const std::vector<RankUnions>& ranks) {
    std::vector<int64_t> rank_col, kernel_time, idle, compute, non_compute, rows_out, dropped;
    std::vector<double> idle_pct, compute_pct, non_compute_pct;
    std::vector<std::string> window_col, kind_col;
    for (size_t g = 0; g < ranks.size(); ++g) {
      const RankUnions& r = ranks[g];
      if (r.kept <= 0) continue;
      th::sdk::Scope scope;
      scope.rank = ctx.traces()[g].rank();
      const int64_t span = r.last - r.first, busy = r.busy, computing = r.by_types[1];
      rank_col.push_back(scope.rank);
      kernel_time.push_back(span);
      idle.push_back(span - busy);
      compute.push_back(computing);
      non_compute.push_back(busy - computing);
      idle_pct.push_back(Pct(span - busy, span));
      compute_pct.push_back(Pct(computing, span));
      non_compute_pct.push_back(Pct(busy - computing, span));
      rows_out.push_back(r.kept);
      dropped.push_back(r.gpu_rows - r.kept);
      window_col.push_back(r.gpu_rows == r.kept ? "all GPU rows"
                                                : "GPU rows launched before the last ProfilerStep");
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
