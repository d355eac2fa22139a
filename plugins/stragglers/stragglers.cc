// stragglers: which rank makes the others wait, how often, how sure we are,
// and what it was doing meanwhile. Run() is the sequence of the phases in
// straggler_phases.h:
//
// MatchArrivals:   collectives of every rank, matched across ranks
//                  (collective_model.h), kept when every rank ran them.
// EstimateOffsets: per-rank clock offsets from the end times of those
//                  collectives (a blocking collective completes everywhere at
//                  about the same moment): offset = median over collectives of
//                  (end - the collective's median end), centred on the median
//                  rank.
// MeasureLateness: arrival lateness = corrected start - the collective's
//                  median corrected start; per rank and step the median over
//                  the step's collectives.
// Score:           robust z-score (median/MAD) over all ranks x steps; the
//                  rank whose median z over the steps reaches the threshold is
//                  the straggler. Also: who starts last at each collective,
//                  how often, and how unlikely that is by chance (binomial
//                  tail).
// MeasureWaits:    per rank and step, compute (union of its computation
//                  kernels) against wait (its collectives' duration beyond the
//                  transfer time).
// LateWindows, TopActivities: the straggler's top kernels and CPU ops while
//                  the others waited.
// Also HTA's get_potential_stragglers (late start of one selected NCCL kernel,
// top k per step; HtaCandidates), for comparison.
#include <tracehound/format.h>
#include <tracehound/sdk.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "collective_model.h"
#include "straggler_phases.h"

namespace {

using th::collectives::ExtractInstances;
using th::collectives::Instance;
using th::collectives::kNoStep;
using th::collectives::kNoTime;
using th::collectives::Match;
using th::collectives::MatchAcrossRanks;
using th::collectives::StepIndex;
using th::sdk::Context;
using th::sdk::Declaration;
using namespace th::stragglers;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The tables it publishes.
th::sdk::Schema StragglerStepsTable() {
  return th::sdk::Schema("straggler_steps")
      .View("straggler-steps")
      .Int("rank")
      .Int("step")
      .Int("compute", "ns")
      .Int("wait", "ns")
      .Int("collective", "ns")
      .Real("lateness", "ns")
      .Real("z");
}
th::sdk::Schema StragglersTable() {
  return th::sdk::Schema("stragglers")
      .View("stragglers")
      .Int("rank")
      .Real("clock_offset", "ns")
      .Real("clock_residual", "ns")
      .Int("arrived_last", "count")
      .Real("arrived_last_pct", "%")
      .Real("p_chance")
      .Real("lateness", "ns")
      .Real("z")
      .Int("steps_flagged", "count")
      .Int("steps_latest", "count")
      .Int("straggler");
}
th::sdk::Schema StragglerActivityTable() {
  return th::sdk::Schema("straggler_activity")
      .Int("rank")
      .Text("source")
      .Text("name")
      .Int("overlap", "ns")
      .Real("share", "%");
}
th::sdk::Schema StragglersHtaTable() {
  return th::sdk::Schema("stragglers_hta").Int("rank").Int("count", "count").Int("candidate");
}

class Stragglers final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("stragglers", "1.0.0", th::sdk::kDetector,
                       "The rank that arrives late at collectives: robust z-score of arrival "
                       "lateness over ranks x steps after clock-offset correction, last-arrival "
                       "counts, compute vs wait per rank and step, and what the straggler did "
                       "while the others waited")
        .Reads({"events", "tracks", "profiler_steps", "collective_args", "name_classes",
                "class_rules", "event_launches", "gpu_activity"})
        .Publishes(StragglersTable())
        .Publishes(StragglerStepsTable())
        .Publishes(StragglerActivityTable())
        .Publishes(StragglersHtaTable())
        .Option("z_threshold", 3.5,
                "robust z-score (median/MAD) of lateness at which a rank is a straggler")
        .Min(0)
        .Option("min_lateness_us", 10.0,
                "a straggler is also at least this late (median over the collectives) after "
                "the median rank: µs of lateness can be outliers without mattering")
        .Min(0)
        .Option("min_ranks", int64_t{3},
                "ranks needed to report a straggler (the robust z needs 3; with 2, a rank latest "
                "in significantly many steps)")
        .Min(2)
        .Option("top_activities", int64_t{5},
                "kernels and CPU ops listed for the straggler's late windows")
        .Range(1, 100)
        .Option("hta_candidates", int64_t{2},
                "k of HTA's get_potential_stragglers (num_candidates), reported for comparison")
        .Min(1);
  }

  void Run(Context& ctx) override {
    const auto& traces = ctx.traces();
    std::vector<StepIndex> steps;
    std::vector<std::vector<Instance>> inst;
    for (const auto& t : traces) {
      steps.emplace_back(t);
      inst.push_back(ExtractInstances(t, steps.back()));
    }
    HtaStragglers(ctx, steps);

    const std::vector<Match> matches = MatchAcrossRanks(inst);
    const ArrivalMatrix arrivals = MatchArrivals(inst, matches);
    const size_t R = arrivals.ranks();
    if (arrivals.collectives() == 0) {
      ctx.Warn(R < 2 ? "needs collectives on two ranks or more; found " + std::to_string(R)
                     : "no collective ran on every rank; nothing to compare");
      ctx.Metric("straggler_ranks", static_cast<double>(R), "count", th::sdk::kMeasured);
      PublishEmpty(ctx);
      return;
    }
    const ClockOffsets clocks = EstimateOffsets(arrivals);
    const Lateness lateness = MeasureLateness(arrivals, clocks);
    ScoreOptions options;
    options.z_threshold = ctx.GetDouble("z_threshold");
    options.min_lateness_ns = ctx.GetDouble("min_lateness_us") * 1e3;
    options.min_ranks = static_cast<size_t>(ctx.GetInt("min_ranks"));
    const StragglerVerdict verdict = Score(lateness, clocks, options);

    PublishSteps(ctx, steps, arrivals, lateness, verdict, MeasureWaits(inst, matches));
    PublishRanks(ctx, arrivals, clocks, lateness, verdict);
    ctx.Metric("straggler_ranks", static_cast<double>(R), "count", th::sdk::kMeasured);
    ctx.Metric("straggler_collectives", static_cast<double>(arrivals.collectives()), "count",
               th::sdk::kMeasured);
    ctx.Metric("clock_residual", clocks.clock_residual, "ns", th::sdk::kInferred);
    ctx.Metric("straggler_confidence", verdict.confidence, "", th::sdk::kInferred);
    const LateActivity activity =
        PublishActivity(ctx, traces[arrivals.part[verdict.candidate]],
                        LateWindows(arrivals, clocks, lateness, verdict.candidate));
    Report(ctx, arrivals, clocks, lateness, verdict, activity);
  }

 private:
  // What the candidate did while the others waited.
  struct LateActivity {
    int64_t window_total = 0;  // ns in the merged late windows
    int64_t gpu_busy = 0;      // ns of computation kernels inside them
    std::string summary;       // TopActivityList::summary
  };

  // Host events whose self time names what a thread was doing.
  static bool IsHost(uint32_t kind) {
    return kind == TH_EVENT_CPU_OP || kind == TH_EVENT_USER_ANNOTATION ||
           kind == TH_EVENT_PYTHON_FUNCTION || kind == TH_EVENT_RUNTIME || kind == TH_EVENT_DRIVER;
  }

  static void PublishEmpty(Context& ctx) {
    ctx.Publish(th::sdk::Table(StragglersTable()));
    ctx.Publish(th::sdk::Table(StragglerStepsTable()));
    ctx.Publish(th::sdk::Table(StragglerActivityTable()));
  }

  // Rows of straggler_steps: per participating rank, the steps holding
  // matched collectives and the rank's own steps.
  static std::vector<std::pair<size_t, int64_t>> StepRows(const std::vector<StepIndex>& steps,
                                                          const ArrivalMatrix& a,
                                                          const Lateness& l) {
    std::vector<std::pair<size_t, int64_t>> rows;  // (trace, step)
    for (size_t t : a.part) {
      std::set<int64_t> ns(l.step_numbers.begin(), l.step_numbers.end());
      for (int64_t n : steps[t].Numbers()) ns.insert(n);
      for (int64_t n : ns) rows.push_back({t, n});
    }
    return rows;
  }

  // Per row: the union of the trace's computation kernels in the step.
  static std::vector<int64_t> ComputePerRow(Context& ctx, const std::vector<StepIndex>& steps,
                                            const std::vector<std::pair<size_t, int64_t>>& rows) {
    std::map<std::pair<size_t, int64_t>, uint32_t> row_of;
    for (size_t r = 0; r < rows.size(); ++r) row_of[rows[r]] = static_cast<uint32_t>(r);
    std::set<size_t> row_traces;
    for (const auto& row : rows) row_traces.insert(row.first);
    std::vector<uint32_t> g;
    std::vector<int64_t> b, e;
    for (size_t trace : row_traces) {
      const auto& t = ctx.traces()[trace];
      size_t hint = 0;
      uint64_t launch_cursor = 0;
      for (const uint32_t i : t.gpu_activity()) {  // the GPU events only, by row
        if (t.kind(i) != TH_EVENT_KERNEL || t.kernel_class(i) != th::sdk::KernelClass::kComp)
          continue;
        auto it = row_of.find({trace, steps[trace].StepOf(i, hint, launch_cursor)});
        if (it == row_of.end()) continue;
        g.push_back(it->second);
        b.push_back(t.ts(i));
        e.push_back(t.end(i));
      }
    }
    return ctx.IntervalUnion(g, b, e, rows.size());
  }

  static void PublishSteps(Context& ctx, const std::vector<StepIndex>& steps,
                           const ArrivalMatrix& a, const Lateness& l, const StragglerVerdict& v,
                           CollectiveWaits waits) {
    const auto rows = StepRows(steps, a, l);
    const std::vector<int64_t> compute = ComputePerRow(ctx, steps, rows);
    std::vector<int64_t> rank_col, step_col, compute_col, wait_col, coll_col;
    std::vector<double> late_col, z_col;
    for (size_t r = 0; r < rows.size(); ++r) {
      auto [t, n] = rows[r];
      const size_t p = a.slot[t];
      const size_t s = l.StepSlot(n);
      const bool has = s < l.step_numbers.size();
      rank_col.push_back(ctx.traces()[t].rank());
      step_col.push_back(n == kNoStep ? -1 : n);
      compute_col.push_back(compute[r]);
      wait_col.push_back(static_cast<int64_t>(waits.wait[{t, n}]));
      coll_col.push_back(static_cast<int64_t>(waits.collective[{t, n}]));
      late_col.push_back(has ? l.cell[p][s] : kNaN);
      z_col.push_back(has ? v.z[p][s] : kNaN);
    }
    ctx.Publish(th::sdk::Table("straggler_steps")
                    .Int("rank", rank_col)
                    .Int("step", step_col)
                    .Int("compute", compute_col, "ns")
                    .Int("wait", wait_col, "ns")
                    .Int("collective", coll_col, "ns")
                    .Real("lateness", late_col, "ns")
                    .Real("z", z_col));
  }

  static void PublishRanks(Context& ctx, const ArrivalMatrix& a, const ClockOffsets& clocks,
                           const Lateness& l, const StragglerVerdict& v) {
    const size_t C = a.collectives();
    std::vector<int64_t> rank_col, last_col, flagged_col, latest_col, straggler_col;
    std::vector<double> offset_col, residual_col, last_pct_col, p_col, late_col, score_col;
    for (size_t p = 0; p < a.ranks(); ++p) {
      rank_col.push_back(ctx.traces()[a.part[p]].rank());
      offset_col.push_back(clocks.offset[p]);
      residual_col.push_back(clocks.residual[p]);
      last_col.push_back(l.last_count[p]);
      last_pct_col.push_back(100.0 * static_cast<double>(l.last_count[p]) / static_cast<double>(C));
      p_col.push_back(v.p_last[p]);
      late_col.push_back(v.typical_late[p]);
      score_col.push_back(v.score[p]);
      flagged_col.push_back(v.flagged_steps[p]);
      latest_col.push_back(v.latest_steps[p]);
      straggler_col.push_back(v.is_straggler && p == v.candidate);
      th::sdk::Scope scope;
      scope.rank = ctx.traces()[a.part[p]].rank();
      ctx.Metric("clock_offset", clocks.offset[p], "ns", th::sdk::kInferred, scope);
      ctx.Metric("arrived_last", static_cast<double>(l.last_count[p]), "count", th::sdk::kMeasured,
                 scope);
      if (v.robust) ctx.Metric("lateness_z", v.score[p], "", th::sdk::kInferred, scope);
    }
    ctx.Publish(th::sdk::Table("stragglers")
                    .Int("rank", rank_col)
                    .Real("clock_offset", offset_col, "ns")
                    .Real("clock_residual", residual_col, "ns")
                    .Int("arrived_last", last_col, "count")
                    .Real("arrived_last_pct", last_pct_col, "%")
                    .Real("p_chance", p_col)
                    .Real("lateness", late_col, "ns")
                    .Real("z", score_col)
                    .Int("steps_flagged", flagged_col, "count")
                    .Int("steps_latest", latest_col, "count")
                    .Int("straggler", straggler_col));
  }

  // Kernels by their time inside the windows; host events by their self time
  // there (the innermost op, annotation, Python frame or runtime call on each
  // thread gets the time, so nesting counts once). The GPU busy time is the
  // union of the kernels, clipped per window.
  static LateActivity PublishActivity(Context& ctx, const th::sdk::Trace& t,
                                      const std::vector<Window>& windows) {
    LateActivity out;
    for (auto w : windows) out.window_total += w.second - w.first;
    std::map<std::string, int64_t> kernels, host;
    std::vector<int64_t> self(t.size(), 0);
    std::vector<uint32_t> gpu_g;
    std::vector<int64_t> gpu_b, gpu_e;
    for (uint64_t i = 0; i < t.size() && !windows.empty(); ++i) {
      const uint32_t k = t.kind(i);
      const int64_t o = OverlapWithWindows(windows, t.ts(i), t.end(i));
      if (o == 0) continue;
      if (k == TH_EVENT_KERNEL && t.kernel_class(i) == th::sdk::KernelClass::kComp) {
        kernels[std::string(t.name(i))] += o;
        for (const auto& w : windows) {
          int64_t lo = std::max(t.ts(i), w.first), hi = std::min(t.end(i), w.second);
          if (hi > lo) gpu_g.push_back(0), gpu_b.push_back(lo), gpu_e.push_back(hi);
        }
      } else if (IsHost(k)) {
        self[i] += o;
        if (t.parent(i) != th::sdk::kNoRow && IsHost(t.kind(t.parent(i)))) self[t.parent(i)] -= o;
      }
    }
    for (uint64_t i = 0; i < t.size(); ++i)
      if (self[i] > 0) host[std::string(t.name(i))] += self[i];
    if (!gpu_g.empty()) out.gpu_busy = ctx.IntervalUnion(gpu_g, gpu_b, gpu_e, 1)[0];
    const TopActivityList top = TopActivities(
        host, kernels, static_cast<size_t>(ctx.GetInt("top_activities")), out.window_total);
    out.summary = top.summary;
    std::vector<std::string> source_col, name_col;
    std::vector<int64_t> rank_col, overlap_col;
    std::vector<double> share_col;
    for (const Activity& a : top.rows) {
      rank_col.push_back(t.rank());
      source_col.push_back(a.source);
      name_col.push_back(a.name);
      overlap_col.push_back(a.overlap);
      share_col.push_back(a.share);
    }
    ctx.Publish(th::sdk::Table("straggler_activity")
                    .Int("rank", rank_col)
                    .Text("source", source_col)
                    .Text("name", name_col)
                    .Int("overlap", overlap_col, "ns")
                    .Real("share", share_col, "%"));
    return out;
  }

  // Logs the candidate; a finding when it is a straggler.
  static void Report(Context& ctx, const ArrivalMatrix& a, const ClockOffsets& clocks,
                     const Lateness& l, const StragglerVerdict& v, const LateActivity& act) {
    const size_t R = a.ranks(), C = a.collectives(), S = l.step_numbers.size();
    const size_t cand = v.candidate;
    const int64_t cand_rank = ctx.traces()[a.part[cand]].rank();
    ctx.Log("candidate rank " + std::to_string(cand_rank) + ", " +
            (v.robust ? "robust z " + th::sdk::Fixed(v.score[cand], 2)
                      : std::string("no robust z (") + std::to_string(R) + " ranks)") +
            ", last at " + std::to_string(l.last_count[cand]) + "/" + std::to_string(C) +
            " collectives, confidence " + th::sdk::Fixed(v.confidence, 2) +
            (v.is_straggler ? "" : ": not a straggler"));
    if (!v.is_straggler) return;
    const double typical_late = v.typical_late[cand];
    // P1; a pipeline's `severity:` for the plugin changes it (the host applies it).
    const th_severity severity = th::sdk::P1;
    th::sdk::Scope scope;
    scope.rank = cand_rank;
    std::string what =
        "Rank " + std::to_string(cand_rank) + " starts last at " +
        std::to_string(l.last_count[cand]) + " of " + std::to_string(C) +
        " collectives run by all " + std::to_string(R) +
        " ranks (chance p = " + th::sdk::Significant(v.p_last[cand], 2) + "); typical lateness " +
        th::sdk::Micros(typical_late, "µs") + " after the median rank" +
        (v.robust ? ", robust z " + th::sdk::Fixed(v.score[cand], 1) + " over " +
                        std::to_string(R) + " ranks x " + std::to_string(S) + " steps"
                  : ", latest in " + std::to_string(v.latest_steps[cand]) + " of " +
                        std::to_string(S) + " steps (chance p = " +
                        th::sdk::Significant(v.p_steps, 2) + "; with " + std::to_string(R) +
                        " ranks there is no robust z: it may be the others that are early)") +
        ". Clocks corrected by per-rank offsets from collective end times (residual " +
        th::sdk::Micros(clocks.clock_residual, "µs") + ")." +
        (act.window_total > 0 ? " While the others waited (" +
                                    th::sdk::Micros(static_cast<double>(act.window_total), "µs") +
                                    " in all) its GPU was busy " +
                                    th::sdk::Fixed(100.0 * static_cast<double>(act.gpu_busy) /
                                                       static_cast<double>(act.window_total),
                                                   0) +
                                    "%" + " of the time" +
                                    (act.summary.empty() ? "" : "; it ran: " + act.summary) + "."
                              : std::string());
    ctx.Add(th::sdk::Finding(severity,
                             "rank " + std::to_string(cand_rank) + " is a straggler: last at " +
                                 th::sdk::Fixed(100.0 * static_cast<double>(l.last_count[cand]) /
                                                    static_cast<double>(C),
                                                0) +
                                 "%" + " of collectives")
                .What(what)
                .Suggest("look at what the rank runs before the collectives (the kernels and ops "
                         "in straggler_activity): data loading, uneven shards, a slower GPU")
                .Confidence(v.confidence)
                .In(scope)
                .Evidence("arrived_last", static_cast<double>(l.last_count[cand]), "count",
                          th::sdk::kMeasured)
                .Evidence("collectives", static_cast<double>(C), "count", th::sdk::kMeasured)
                .Evidence("p_chance", v.p_last[cand], "", th::sdk::kInferred)
                .Evidence("lateness", typical_late, "ns", th::sdk::kInferred)
                .Evidence("z", v.robust ? v.score[cand] : kNaN, "", th::sdk::kInferred)
                .Evidence("steps_latest", static_cast<double>(v.latest_steps[cand]), "count",
                          th::sdk::kInferred)
                .Evidence("clock_residual", clocks.clock_residual, "ns", th::sdk::kInferred)
                .Evidence("late_window", static_cast<double>(act.window_total), "ns",
                          th::sdk::kInferred)
                .Evidence("late_window_gpu_busy", static_cast<double>(act.gpu_busy), "ns",
                          th::sdk::kMeasured));
  }

  // HTA 0.6.1's get_potential_stragglers(num_candidates = k) with its default
  // metric (hta/analyzers/straggler.py), on the raw clocks: the steps HTA keeps
  // (the last dropped when there are two or more); the NCCL kernels
  // ("ncclKernel*", stream > 0, step > 0) at least 1 % of the mean step time
  // long; the last one per (rank, stream, step, name); the (stream, name)
  // whose duration varies most across ranks; its start time; per step the
  // ranks at or above the k-th latest start; the k ranks counted most often
  // (HtaCandidates).
  static void HtaStragglers(Context& ctx, const std::vector<StepIndex>& steps) {
    const auto& traces = ctx.traces();
    const auto k = static_cast<size_t>(ctx.GetInt("hta_candidates"));
    std::set<int64_t> valid;
    for (const StepIndex& s : steps) {
      std::vector<int64_t> n = s.Numbers();
      if (n.size() >= 2) n.pop_back();
      valid.insert(n.begin(), n.end());
    }
    std::vector<int64_t> rank_col, count_col, cand_col;
    if (!valid.empty()) {
      const HtaKernels kernels = HtaCommKernels(traces, steps, valid);
      std::vector<int64_t> rank_of_trace;
      for (const auto& t : traces) rank_of_trace.push_back(t.rank());
      const HtaResult hta = HtaCandidates(kernels.comm, kernels.mean_step, k, rank_of_trace);
      for (size_t i = 0; i < hta.order.size(); ++i) {
        rank_col.push_back(hta.order[i].rank);
        count_col.push_back(hta.order[i].count);
        cand_col.push_back(i < k && hta.selected ? 1 : 0);
      }
    }
    ctx.Publish(th::sdk::Table("stragglers_hta")
                    .Int("rank", rank_col)
                    .Int("count", count_col, "count")
                    .Int("candidate", cand_col));
  }

  struct HtaKernels {
    std::vector<HtaKernel> comm;
    double mean_step = 0;  // the span of every event in the valid steps over their count
  };

  // The NCCL kernels of HTA's valid steps.
  static HtaKernels HtaCommKernels(const std::vector<th::sdk::Trace>& traces,
                                   const std::vector<StepIndex>& steps,
                                   const std::set<int64_t>& valid) {
    int64_t t_min = INT64_MAX, t_max = INT64_MIN;
    std::vector<HtaKernel> comm;
    for (size_t t = 0; t < traces.size(); ++t) {
      const auto& tr = traces[t];
      std::vector<uint8_t> gpu_track(tr.track_count());
      for (uint32_t k = 0; k < gpu_track.size(); ++k)
        gpu_track[k] = tr.track(k).kind == TH_TRACK_GPU_STREAM;
      size_t hint = 0;
      uint64_t launch_cursor = 0;
      int64_t last_step = kNoStep;
      bool last_valid = valid.count(kNoStep) > 0;
      th::collectives::ByName nccl_names;  // 2: a name HTA reads as NCCL ("ncclKernel*"), 1: not
      for (uint64_t i = 0; i < tr.size(); ++i) {
        const uint32_t kind = tr.kind(i);
        if (kind == TH_EVENT_METADATA || kind == TH_EVENT_FLOW || kind == TH_EVENT_COUNTER)
          continue;
        const bool gpu = gpu_track[tr.track_index(i)];
        int64_t step = kNoStep;
        if (gpu) {
          const int64_t launch = steps[t].LaunchTs(i, launch_cursor);
          if (launch != kNoTime) step = steps[t].StepAt(launch, hint);
        } else {
          step = steps[t].StepAt(tr.ts(i), hint);
        }
        if (step != last_step) {
          last_step = step;
          last_valid = valid.count(step) > 0;
        }
        if (!last_valid) continue;
        t_min = std::min(t_min, tr.ts(i));
        t_max = std::max(t_max, tr.end(i));
        if (kind != TH_EVENT_KERNEL || step <= 0 || tr.track_of(i).stream <= 0) continue;
        const bool nccl = nccl_names.At(tr.name_id(i), i, [&](uint64_t event) {
          return tr.name(event).substr(0, 10) == "ncclKernel" ? 2 : 1;
        }) == 2;
        if (nccl)
          comm.push_back(
              {t, tr.track_of(i).stream, step, tr.ts(i), tr.dur(i), std::string(tr.name(i))});
      }
    }
    return {comm, static_cast<double>(t_max - t_min) / static_cast<double>(valid.size())};
  }
};

}  // namespace

TH_PLUGIN(Stragglers)
