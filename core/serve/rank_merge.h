// MergeRanks: the ranks of a job as one EventGraph, so that `serve` answers a
// directory or archive of ranks as one run on one time axis.
//
// Contract: rank k's events, tracks, argument rows and edges follow rank k-1's
// in rank order (the TraceSet's order); a merged id is the rank's offset plus
// its own id (event ids: RankSpan::first_event + local id; tracks likewise).
// Times stay on each rank's own clock (raw, not aligned). Strings are
// re-interned into one pool; XLA data is not carried (hlo details stay null).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/graph/trace.h"

namespace th::serve {

// Where one rank lies in the merged graph.
struct RankSpan {
  int64_t rank = 0;
  EventId first_event = 0;
  uint32_t events = 0;
  TrackId first_track = 0;
  uint32_t tracks = 0;
};

struct MergedRanks {
  std::unique_ptr<TraceSet> set;  // one Trace: the merged graph, rank 0's info
  std::vector<RankSpan> ranks;    // in rank order
};

// Merges `set` (two traces or more); the result holds rank 0's info and the
// trust rows of the set and of every rank.
MergedRanks MergeRanks(const TraceSet& set);

}  // namespace th::serve
