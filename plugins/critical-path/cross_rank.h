// Collectives across ranks in one critical path graph: every collective the
// `collectives` plugin matched gets a barrier, entered from the start of its
// kernel on every rank (weight 0) and left, after its transfer time (the
// shortest duration among the ranks), into the end of its kernel on every
// rank (weight 0). The kernels' own spans (transfer plus each rank's wait)
// leave the graph. The rank whose path into the barrier is longest gates the
// collective. Only durations measured on one rank's clock enter a weight, so
// clock offsets between ranks cannot change the path.
#pragma once

#include <tracehound/sdk.h>

#include <cstdint>
#include <map>
#include <vector>

#include "cp_graph.h"
#include "rank_graph.h"
#include "trace_index.h"

namespace th::critical_path {

struct CollectiveRun {
  int64_t rank = 0, ts = 0, dur = 0;  // ns, on the rank's clock
};
struct Collective {
  int64_t id = 0;
  int64_t transfer = 0;  // ns
  std::vector<CollectiveRun> runs;
};

// The `collectives` and `collective_ranks` tables, by collective id.
std::vector<Collective> ReadCollectives(const th_table* collectives, const th_table* ranks);

struct Barrier {
  int64_t id = 0, transfer = 0;
  uint32_t in = 0, out = 0, transfer_edge = 0;
  std::vector<uint32_t> enter_edges;  // one per rank taking part
};

// Adds a barrier for each collective whose kernel has nodes in at least two
// of `ranks` (slot s: traces[s] with rank rank_of_slot[s]).
std::vector<Barrier> AddBarriers(const std::vector<Collective>& collectives,
                                 const std::vector<RankGraph>& ranks,
                                 const std::vector<const TraceIndex*>& index,
                                 const std::map<int64_t, uint32_t>& slot_of_rank, Graph* g);

// Per trace slot, its clock's offset to the slot of the lowest rank (ns): the
// lower median, over the collectives both ran, of the difference of their
// ends (a collective ends on all ranks at about the same moment). Shifting a
// rank's clock by k shifts its offset by k exactly. Slots sharing no
// collective with the reference are absent.
std::map<uint32_t, int64_t> ClockOffsets(const std::vector<Collective>& collectives,
                                         const std::map<int64_t, uint32_t>& slot_of_rank);

// Adds a common start: an edge to every instant of a rank that no edge enters,
// weighing how much later the rank's first instant came, on clocks corrected
// by `offsets`, than the earliest rank's (inferred). Ranks without an offset
// get no edge.
void AddStartEdges(const std::vector<RankGraph>& ranks, const std::map<uint32_t, int64_t>& offsets,
                   Graph* g);

struct Gating {
  int64_t slot = -1;  // the trace slot whose path into the barrier is longest
  int64_t lead = 0;   // ns ahead of the next longest (0 when alone)
};
Gating GatingOf(const Graph& g, const LongestPath& p, const Barrier& b);

}  // namespace th::critical_path
