// collectives: every collective of every backend (NCCL/RCCL kernels on GPU
// streams, gloo's CPU collectives), matched across ranks; per collective the
// transfer time (the shortest duration among the ranks: the data movement
// itself) against each rank's synchronisation wait (its own duration minus
// the transfer), the NCCL algorithm, message size and algorithm / bus
// bandwidth (NCCL-tests' definitions).
#include <tracehound/sdk.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "collective_model.h"

namespace {

using th::collectives::BusFactor;
using th::collectives::ExtractInstances;
using th::collectives::Instance;
using th::collectives::kNoStep;
using th::collectives::Match;
using th::collectives::MatchAcrossRanks;
using th::collectives::StepIndex;
using th::sdk::Context;
using th::sdk::Declaration;

std::string Pct(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%%", v);
  return b;
}
std::string Ms(double ns) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f ms", ns / 1e6);
  return b;
}

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
        .Reads({"events", "tracks", "edges", "profiler_steps", "collective_args", "name_classes",
                "class_rules"})
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
    double all_span = 0;  // the ranks' time: their steps, else their GPU span
    for (const auto& t : traces) {
      StepIndex steps(t);
      inst.push_back(ExtractInstances(t, steps));
      if (inst.back().empty()) continue;
      int64_t span = 0;
      for (const th_step& st : steps.steps()) span += st.dur;
      if (span == 0) {
        int64_t first = INT64_MAX, last = INT64_MIN;
        for (uint64_t i = 0; i < t.size(); ++i)
          if (t.is_gpu_activity(i))
            first = std::min(first, t.ts(i)), last = std::max(last, t.end(i));
        span = last > first ? last - first : 0;
      }
      all_span += static_cast<double>(span);
    }
    std::vector<Match> matches = MatchAcrossRanks(inst);
    size_t ranks_with = 0;
    for (const auto& v : inst) ranks_with += !v.empty();

    // Per collective.
    std::vector<int64_t> id_col, ranks_col, group_size_col, bytes_col, step_col, transfer_col,
        wait_max_col, wait_total_col, skew_col, last_col;
    std::vector<std::string> key_col, backend_col, coll_col, name_col, algo_col, dtype_col,
        group_col;
    std::vector<double> algbw_col, busbw_col;
    std::vector<std::string> basis_col;
    // Per rank and collective.
    std::vector<int64_t> rr_id, rr_rank, rr_step, rr_ts, rr_dur, rr_wait, rr_bytes;
    // Per rank totals.
    std::map<int64_t, double> r_time, r_wait, r_transfer;
    std::map<int64_t, int64_t> r_count, r_unmatched, r_last;
    size_t mismatched = 0, partial = 0, matched = 0;
    double all_time = 0, all_wait = 0;

    for (size_t m = 0; m < matches.size(); ++m) {
      const Match& mt = matches[m];
      const Instance& first = inst[mt.members[0].first][mt.members[0].second];
      const size_t present = mt.members.size();
      mismatched += mt.name_mismatch;
      // Transfer = the shortest duration among the ranks present; it is only
      // measured when at least two ranks ran the collective.
      int64_t transfer = -1, min_ts = INT64_MAX, max_ts = INT64_MIN, wait_max = -1, wait_total = -1;
      int64_t last_rank = -1;
      if (present >= 2) {
        ++matched;
        transfer = INT64_MAX;
        for (auto [t, i] : mt.members) transfer = std::min(transfer, inst[t][i].dur());
        wait_max = wait_total = 0;
        for (auto [t, i] : mt.members) {
          const Instance& x = inst[t][i];
          wait_max = std::max(wait_max, x.dur() - transfer);
          wait_total += x.dur() - transfer;
          // Raw clocks: the rank that started last waited least (stragglers
          // corrects the clocks before comparing ranks).
          if (x.ts > max_ts) {
            max_ts = x.ts;
            last_rank = traces[t].rank();
          }
          min_ts = std::min(min_ts, x.ts);
        }
        ++r_last[last_rank];
      } else {
        ++r_unmatched[traces[mt.members[0].first].rank()];
      }
      const int64_t expected =
          first.group_size > 0 ? first.group_size : static_cast<int64_t>(ranks_with);
      partial += present >= 2 && static_cast<int64_t>(present) < expected;
      const int64_t bytes = first.bytes();
      // Bandwidth over the transfer time; with one rank the transfer cannot be
      // told from the wait, so its own duration gives a lower bound.
      const int64_t bw_time = transfer >= 0 ? transfer : first.dur();
      double algbw = std::nan(""), busbw = std::nan("");
      if (bytes >= 0 && bw_time > 0) {
        algbw = static_cast<double>(bytes) / static_cast<double>(bw_time);  // bytes/ns = GB/s
        const int64_t n = first.group_size > 0 ? first.group_size : static_cast<int64_t>(present);
        double f = BusFactor(first.collective, n);
        if (f > 0) busbw = algbw * f;
      }
      basis_col.push_back(bytes < 0       ? ""
                          : transfer >= 0 ? "transfer"
                                          : "own duration (lower bound)");
      id_col.push_back(static_cast<int64_t>(m));
      key_col.push_back(mt.key);
      backend_col.push_back(first.backend);
      coll_col.push_back(mt.name_mismatch ? "(mismatch)" : first.collective);
      name_col.push_back(first.name);
      algo_col.push_back(first.algorithm);
      dtype_col.push_back(first.dtype);
      group_col.push_back(first.group);
      group_size_col.push_back(first.group_size);
      bytes_col.push_back(bytes);
      ranks_col.push_back(static_cast<int64_t>(present));
      step_col.push_back(first.step == kNoStep ? -1 : first.step);
      transfer_col.push_back(transfer);
      wait_max_col.push_back(wait_max);
      wait_total_col.push_back(wait_total);
      skew_col.push_back(present >= 2 ? max_ts - min_ts : -1);
      last_col.push_back(last_rank);
      algbw_col.push_back(algbw);
      busbw_col.push_back(busbw);
      for (auto [t, i] : mt.members) {
        const Instance& x = inst[t][i];
        const int64_t rank = traces[t].rank();
        const int64_t wait = transfer >= 0 ? x.dur() - transfer : -1;
        rr_id.push_back(static_cast<int64_t>(m));
        rr_rank.push_back(rank);
        rr_step.push_back(x.step == kNoStep ? -1 : x.step);
        rr_ts.push_back(x.ts);
        rr_dur.push_back(x.dur());
        rr_wait.push_back(wait);
        rr_bytes.push_back(x.bytes());
        r_time[rank] += static_cast<double>(x.dur());
        ++r_count[rank];
        if (transfer >= 0) {
          r_wait[rank] += static_cast<double>(wait);
          r_transfer[rank] += static_cast<double>(transfer);
          all_time += static_cast<double>(x.dur());
          all_wait += static_cast<double>(wait);
        }
      }
    }

    ctx.Publish(th::sdk::Table("collectives")
                    .Int("id", id_col)
                    .Text("key", key_col)
                    .Text("backend", backend_col)
                    .Text("collective", coll_col)
                    .Text("name", name_col)
                    .Text("algorithm", algo_col)
                    .Text("dtype", dtype_col)
                    .Text("group", group_col)
                    .Int("group_size", group_size_col, "count")
                    .Int("bytes", bytes_col, "bytes")
                    .Int("ranks", ranks_col, "count")
                    .Int("step", step_col)
                    .Int("transfer", transfer_col, "ns")
                    .Int("wait_max", wait_max_col, "ns")
                    .Int("wait_total", wait_total_col, "ns")
                    .Int("start_skew", skew_col, "ns")
                    .Int("last_rank", last_col)
                    .Real("algbw", algbw_col, "GB/s")
                    .Real("busbw", busbw_col, "GB/s")
                    .Text("bw_basis", basis_col));
    ctx.Publish(th::sdk::Table("collective_ranks")
                    .Int("id", rr_id)
                    .Int("rank", rr_rank)
                    .Int("step", rr_step)
                    .Int("ts", rr_ts, "ns")
                    .Int("dur", rr_dur, "ns")
                    .Int("wait", rr_wait, "ns")
                    .Int("bytes", rr_bytes, "bytes"));

    for (const auto& [rank, count] : r_count) {
      th::sdk::Scope scope;
      scope.rank = rank;
      ctx.Metric("collectives", static_cast<double>(count), "count", th::sdk::kMeasured, scope);
      ctx.Metric("collective_time", r_time[rank], "ns", th::sdk::kMeasured, scope);
      if (matched > 0) {
        ctx.Metric("collective_wait", r_wait[rank], "ns", th::sdk::kMeasured, scope);
        ctx.Metric("collective_transfer", r_transfer[rank], "ns", th::sdk::kMeasured, scope);
        ctx.Metric("arrived_last", static_cast<double>(r_last[rank]), "count", th::sdk::kMeasured,
                   scope);
      }
    }
    ctx.Metric("matched_collectives", static_cast<double>(matched), "count", th::sdk::kMeasured);

    // Every rank issues the same collectives in the same order: each position
    // must hold the same collective on every rank that has collectives.
    if (ranks_with >= 2) {
      size_t unmatched = 0;
      for (const auto& [rank, n] : r_unmatched) unmatched += static_cast<size_t>(n);
      size_t incomplete = 0;
      for (const Match& mt : matches) incomplete += mt.members.size() < ranks_with;
      ctx.Check("collectives match across ranks", mismatched == 0 && incomplete == 0,
                std::to_string(matches.size()) + " collectives over " + std::to_string(ranks_with) +
                    " ranks: " + std::to_string(incomplete) + " not on every rank (" +
                    std::to_string(unmatched) + " on one rank only), " +
                    std::to_string(mismatched) + " where ranks disagree on the collective");
    }

    // Synchronisation wait: time ranks spend in collectives waiting for peers.
    const double threshold = ctx.GetDouble("wait_threshold_pct");
    if (all_span > 0 && 100.0 * all_wait / all_span > threshold) {
      int64_t last = -1, most = -1;
      for (const auto& [rank, n] : r_last)
        if (n > most) most = n, last = rank;
      ctx.Add(th::sdk::Finding(th::sdk::P2, "ranks wait for peers in collectives " +
                                                Pct(100.0 * all_wait / all_span) + " of the time")
                  .What("Over " + std::to_string(matched) + " collectives matched across " +
                        std::to_string(ranks_with) + " ranks, " + Ms(all_wait) + " of their " +
                        Ms(all_span) + " (steps, else GPU span) is synchronisation wait: a " +
                        "rank's collective duration beyond the fastest rank's (the transfer); " +
                        Pct(100.0 * all_wait / all_time) + " of their " + Ms(all_time) +
                        " in collectives. Rank " + std::to_string(last) +
                        " starts last most often (" + std::to_string(most) + " times, raw " +
                        "clocks): see the stragglers plugin.")
                  .Suggest("balance the work before the collectives (see stragglers), or move "
                           "them off the critical path")
                  .Confidence(partial > 0 ? 0.6 : 0.9)
                  .Evidence("collective_wait", all_wait, "ns", th::sdk::kMeasured)
                  .Evidence("collective_time", all_time, "ns", th::sdk::kMeasured)
                  .Evidence("rank_time", all_span, "ns", th::sdk::kMeasured)
                  .Evidence("matched_collectives", static_cast<double>(matched), "count",
                            th::sdk::kMeasured)
                  .Evidence("partial_collectives", static_cast<double>(partial), "count",
                            th::sdk::kMeasured));
    }
  }
};

}  // namespace

TH_PLUGIN(Collectives)
