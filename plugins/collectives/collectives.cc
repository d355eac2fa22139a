// collectives: every collective of every backend (NCCL/RCCL kernels on GPU
// streams, gloo's CPU collectives), matched across ranks; per collective the
// transfer time (the shortest duration among the ranks: the data movement
// itself) against each rank's synchronisation wait (its own duration minus
// the transfer), the NCCL algorithm, message size and algorithm / bus
// bandwidth (NCCL-tests' definitions). Run() is the sequence of the phases in
// collective_phases.h (TimeMatch and MeasureBandwidth per match, inside
// SummarizeCollectives), then publishing, the match check and the wait finding.
#include <tracehound/format.h>
#include <tracehound/sdk.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "collective_model.h"
#include "collective_phases.h"

namespace {

using th::collectives::CollectiveRow;
using th::collectives::CollectiveSummary;
using th::collectives::ExtractInstances;
using th::collectives::Instance;
using th::collectives::kNoStep;
using th::collectives::Match;
using th::collectives::MatchAcrossRanks;
using th::collectives::RankCollectiveRow;
using th::collectives::StepIndex;
using th::collectives::SummarizeCollectives;
using th::sdk::Context;
using th::sdk::Declaration;

using th::sdk::Millis;
using th::sdk::Percent;

// The tables it publishes.
th::sdk::Schema CollectivesTable() {
  return th::sdk::Schema("collectives")
      .Int("id")
      .Text("key")
      .Text("backend")
      .Text("collective")
      .Text("name")
      .Text("algorithm")
      .Text("dtype")
      .Text("group")
      .Int("group_size", "count")
      .Int("bytes", "bytes")
      .Int("ranks", "count")
      .Int("step")
      .Int("transfer", "ns")
      .Int("wait_max", "ns")
      .Int("wait_total", "ns")
      .Int("start_skew", "ns")
      .Int("last_rank")
      .Real("algbw", "GB/s")
      .Real("busbw", "GB/s")
      .Text("bw_basis");
}
th::sdk::Schema CollectiveRanksTable() {
  return th::sdk::Schema("collective_ranks")
      .Int("id")
      .Int("rank")
      .Int("step")
      .Int("ts", "ns")
      .Int("dur", "ns")
      .Int("wait", "ns")
      .Int("bytes", "bytes");
}

class Collectives final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("collectives", "1.0.0", th::sdk::kAnalyzer,
                       "Collectives of every backend (NCCL/RCCL kernels, gloo CPU collectives) "
                       "matched across ranks: transfer time vs synchronisation wait per rank, "
                       "algorithm, message size, algorithm and bus bandwidth")
        .Reads({"events", "tracks", "profiler_steps", "collective_args", "name_classes",
                "class_rules", "event_launches", "gpu_activity"})
        .Publishes(CollectivesTable())
        .Publishes(CollectiveRanksTable())
        .Option("wait_threshold_pct", 10.0,
                "report when ranks spend more than this share of their time (ProfilerSteps, "
                "else GPU span) waiting for peers in collectives")
        .Range(0, 100);
  }

  void Run(Context& ctx) override {
    const auto& traces = ctx.traces();
    std::vector<std::vector<Instance>> inst;
    std::vector<int64_t> rank_of_trace;
    double all_span = 0;  // the ranks' time: their steps, else their GPU span
    for (const auto& t : traces) {
      StepIndex steps(t);
      inst.push_back(ExtractInstances(t, steps));
      rank_of_trace.push_back(t.rank());
      if (!inst.back().empty()) all_span += static_cast<double>(RankSpan(t, steps));
    }
    std::vector<Match> matches = MatchAcrossRanks(inst);
    size_t ranks_with = 0;
    for (const auto& v : inst) ranks_with += !v.empty();
    CollectiveSummary s = SummarizeCollectives(inst, matches, rank_of_trace, ranks_with);
    th::sdk::Table collectives = CollectivesRows(s);
    th::sdk::Table ranks = RankRows(s);
    RankMetrics(ctx, s);
    CheckMatches(ctx, s, matches.size(), ranks_with);
    ReportWait(ctx, s, all_span, ranks_with);
    // The tables own their values: what they were built from goes before
    // the host copies them (a trace can hold 10^5 collectives).
    s = {};
    matches = {};
    inst = {};
    ctx.Publish(collectives);
    ctx.Publish(ranks);
  }

 private:
  // The rank's steps, else the span of its GPU activity.
  static int64_t RankSpan(const th::sdk::Trace& t, const StepIndex& steps) {
    int64_t span = 0;
    for (const th_step& st : steps.steps()) span += st.dur;
    if (span != 0) return span;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (const uint32_t i : t.gpu_activity())
      first = std::min(first, t.ts(i)), last = std::max(last, t.end(i));
    return last > first ? last - first : 0;
  }

  // Columns of `rows` values each, sized once (a trace can hold 10^5
  // collectives: no doubling growth).
  template <typename... Columns>
  static void ReserveEach(size_t rows, Columns&... columns) {
    (columns.reserve(rows), ...);
  }

  // The `collectives` table: one row per collective matched across ranks.
  static th::sdk::Table CollectivesRows(const CollectiveSummary& s) {
    std::vector<int64_t> id_col, ranks_col, group_size_col, bytes_col, step_col, transfer_col,
        wait_max_col, wait_total_col, skew_col, last_col;
    std::vector<std::string> key_col, backend_col, coll_col, name_col, algo_col, dtype_col,
        group_col, basis_col;
    std::vector<double> algbw_col, busbw_col;
    ReserveEach(s.rows.size(), id_col, ranks_col, group_size_col, bytes_col, step_col, transfer_col,
                wait_max_col, wait_total_col, skew_col, last_col, key_col, backend_col, coll_col,
                name_col, algo_col, dtype_col, group_col, basis_col, algbw_col, busbw_col);
    for (size_t m = 0; m < s.rows.size(); ++m) {
      const CollectiveRow& r = s.rows[m];
      const Instance& first = *r.first;
      id_col.push_back(static_cast<int64_t>(m));
      key_col.push_back(r.match->key());
      backend_col.push_back(first.backend);
      coll_col.push_back(r.match->name_mismatch ? "(mismatch)" : first.collective);
      name_col.push_back(first.name);
      algo_col.push_back(first.algorithm);
      dtype_col.push_back(first.dtype);
      group_col.push_back(first.group);
      group_size_col.push_back(first.group_size);
      bytes_col.push_back(first.bytes());
      ranks_col.push_back(static_cast<int64_t>(r.match->members.size()));
      step_col.push_back(first.step == kNoStep ? -1 : first.step);
      transfer_col.push_back(r.timing.transfer);
      wait_max_col.push_back(r.timing.wait_max);
      wait_total_col.push_back(r.timing.wait_total);
      skew_col.push_back(r.timing.skew);
      last_col.push_back(r.timing.last_rank);
      algbw_col.push_back(r.bandwidth.algbw);
      busbw_col.push_back(r.bandwidth.busbw);
      basis_col.push_back(r.bandwidth.basis);
    }
    th::sdk::Table t("collectives");
    t.Int("id", std::move(id_col))
        .Text("key", std::move(key_col))
        .Text("backend", std::move(backend_col))
        .Text("collective", std::move(coll_col))
        .Text("name", std::move(name_col))
        .Text("algorithm", std::move(algo_col))
        .Text("dtype", std::move(dtype_col))
        .Text("group", std::move(group_col))
        .Int("group_size", std::move(group_size_col), "count")
        .Int("bytes", std::move(bytes_col), "bytes")
        .Int("ranks", std::move(ranks_col), "count")
        .Int("step", std::move(step_col))
        .Int("transfer", std::move(transfer_col), "ns")
        .Int("wait_max", std::move(wait_max_col), "ns")
        .Int("wait_total", std::move(wait_total_col), "ns")
        .Int("start_skew", std::move(skew_col), "ns")
        .Int("last_rank", std::move(last_col))
        .Real("algbw", std::move(algbw_col), "GB/s")
        .Real("busbw", std::move(busbw_col), "GB/s")
        .Text("bw_basis", std::move(basis_col));
    return t;
  }

  // The `collective_ranks` table: one row per rank's run of a collective.
  static th::sdk::Table RankRows(const CollectiveSummary& s) {
    std::vector<int64_t> rr_id, rr_rank, rr_step, rr_ts, rr_dur, rr_wait, rr_bytes;
    ReserveEach(s.rank_rows.size(), rr_id, rr_rank, rr_step, rr_ts, rr_dur, rr_wait, rr_bytes);
    for (const RankCollectiveRow& r : s.rank_rows) {
      rr_id.push_back(r.id);
      rr_rank.push_back(r.rank);
      rr_step.push_back(r.step);
      rr_ts.push_back(r.ts);
      rr_dur.push_back(r.dur);
      rr_wait.push_back(r.wait);
      rr_bytes.push_back(r.bytes);
    }
    th::sdk::Table t("collective_ranks");
    t.Int("id", std::move(rr_id))
        .Int("rank", std::move(rr_rank))
        .Int("step", std::move(rr_step))
        .Int("ts", std::move(rr_ts), "ns")
        .Int("dur", std::move(rr_dur), "ns")
        .Int("wait", std::move(rr_wait), "ns")
        .Int("bytes", std::move(rr_bytes), "bytes");
    return t;
  }

  // Per rank: its collectives, their time, wait and transfer.
  static void RankMetrics(Context& ctx, const CollectiveSummary& s) {
    for (const auto& [rank, r] : s.ranks) {
      th::sdk::Scope scope;
      scope.rank = rank;
      ctx.Metric("collectives", static_cast<double>(r.count), "count", th::sdk::kMeasured, scope);
      ctx.Metric("collective_time", r.time, "ns", th::sdk::kMeasured, scope);
      if (s.matched > 0) {
        ctx.Metric("collective_wait", r.wait, "ns", th::sdk::kMeasured, scope);
        ctx.Metric("collective_transfer", r.transfer, "ns", th::sdk::kMeasured, scope);
        ctx.Metric("arrived_last", static_cast<double>(r.last), "count", th::sdk::kMeasured, scope);
      }
    }
    ctx.Metric("matched_collectives", static_cast<double>(s.matched), "count", th::sdk::kMeasured);
  }

  // Every rank issues the same collectives in the same order: each position
  // must hold the same collective on every rank that has collectives.
  static void CheckMatches(Context& ctx, const CollectiveSummary& s, size_t matches,
                           size_t ranks_with) {
    if (ranks_with < 2) return;
    size_t unmatched = 0;
    for (const auto& [rank, r] : s.ranks) unmatched += static_cast<size_t>(r.unmatched);
    ctx.Check("collectives match across ranks", s.mismatched == 0 && s.incomplete == 0,
              std::to_string(matches) + " collectives over " + std::to_string(ranks_with) +
                  " ranks: " + std::to_string(s.incomplete) + " not on every rank (" +
                  std::to_string(unmatched) + " on one rank only), " +
                  std::to_string(s.mismatched) + " where ranks disagree on the collective");
  }

  // Synchronisation wait: time ranks spend in collectives waiting for peers.
  static void ReportWait(Context& ctx, const CollectiveSummary& s, double all_span,
                         size_t ranks_with) {
    const double threshold = ctx.GetDouble("wait_threshold_pct");
    if (!(all_span > 0 && 100.0 * s.wait / all_span > threshold)) return;
    int64_t last = -1, most = -1;
    for (const auto& [rank, r] : s.ranks)
      if (r.last > most) most = r.last, last = rank;
    ctx.Add(th::sdk::Finding(th::sdk::P2, "ranks wait for peers in collectives " +
                                              Percent(100.0 * s.wait / all_span) + " of the time")
                .What("Over " + std::to_string(s.matched) + " collectives matched across " +
                      std::to_string(ranks_with) + " ranks, " + Millis(s.wait) + " of their " +
                      Millis(all_span) + " (steps, else GPU span) is synchronisation wait: a " +
                      "rank's collective duration beyond the fastest rank's (the transfer); " +
                      Percent(100.0 * s.wait / s.time) + " of their " + Millis(s.time) +
                      " in collectives. Rank " + std::to_string(last) +
                      " starts last most often (" + std::to_string(most) + " times, raw " +
                      "clocks): see the stragglers plugin.")
                .Suggest("balance the work before the collectives (see stragglers), or move "
                         "them off the critical path")
                .Confidence(s.partial > 0 ? 0.6 : 0.9)
                .Evidence("collective_wait", s.wait, "ns", th::sdk::kMeasured)
                .Evidence("collective_time", s.time, "ns", th::sdk::kMeasured)
                .Evidence("rank_time", all_span, "ns", th::sdk::kMeasured)
                .Evidence("matched_collectives", static_cast<double>(s.matched), "count",
                          th::sdk::kMeasured)
                .Evidence("partial_collectives", static_cast<double>(s.partial), "count",
                          th::sdk::kMeasured));
  }
};

}  // namespace

TH_PLUGIN(Collectives)
