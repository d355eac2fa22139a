// The phases of the collectives analyzer, each a function of plain inputs (no
// plugin context, no trace), so that each is tested on hand-built inputs:
//
//   TimeMatch             transfer, waits, start skew and last rank of one match
//   MeasureBandwidth      algorithm and bus bandwidth of one collective
//   SummarizeCollectives  every match: its row, its ranks' rows, per-rank totals
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "collective_model.h"

namespace th::collectives {

// One collective across the ranks that ran it. With one rank, nothing is
// measured (-1 throughout).
struct MatchTiming {
  int64_t transfer = -1;    // the shortest duration among the ranks: the data movement
  int64_t wait_max = -1;    // the largest duration beyond the transfer
  int64_t wait_total = -1;  // the durations beyond the transfer, summed
  int64_t skew = -1;        // latest start - earliest start, raw clocks
  int64_t last_rank = -1;   // the rank that started last (the first of equal starts)
};

MatchTiming TimeMatch(const Match& m, const std::vector<std::vector<Instance>>& inst,
                      const std::vector<int64_t>& rank_of_trace);

// Bytes over the transfer time (GB/s = bytes/ns), NCCL-tests' algorithm
// bandwidth; bus bandwidth = algbw x BusFactor(collective, group size, else
// the ranks present). Without a transfer (one rank) the instance's own
// duration gives a lower bound. NaN when the size or the time is unknown.
struct Bandwidth {
  double algbw, busbw;
  std::string basis;  // "transfer", "own duration (lower bound)", "" without a size
};

Bandwidth MeasureBandwidth(const Instance& first, int64_t transfer, size_t present);

// A row of the `collectives` table.
struct CollectiveRow {
  const Match* match;
  const Instance* first;  // the first rank's instance
  MatchTiming timing;
  Bandwidth bandwidth;
};

// A row of the `collective_ranks` table.
struct RankCollectiveRow {
  int64_t id, rank, step, ts, dur, wait, bytes;  // wait -1 without a transfer
};

struct RankTotals {
  int64_t count = 0;              // collectives
  int64_t unmatched = 0;          // collectives run by this rank only
  int64_t last = 0;               // matched collectives it started last
  double time = 0;                // ns in collectives
  double wait = 0, transfer = 0;  // over matched collectives
};

struct CollectiveSummary {
  std::vector<CollectiveRow> rows;
  std::vector<RankCollectiveRow> rank_rows;
  std::map<int64_t, RankTotals> ranks;  // by rank
  size_t matched = 0;                   // run by two ranks or more
  size_t mismatched = 0;                // ranks disagree on the collective
  size_t partial = 0;                   // matched, but fewer ranks than the group
  size_t incomplete = 0;                // fewer ranks than have collectives
  double time = 0, wait = 0;            // over matched collectives, all ranks
};

// `ranks_with`: the ranks that have collectives.
CollectiveSummary SummarizeCollectives(const std::vector<std::vector<Instance>>& inst,
                                       const std::vector<Match>& matches,
                                       const std::vector<int64_t>& rank_of_trace,
                                       size_t ranks_with);

}  // namespace th::collectives
