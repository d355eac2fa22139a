// What-if lengths of a critical path graph: the longest path with the
// weights of one category set to 0 ("if this cause went away"). The
// topological order is computed once; each scenario is one pass over it, in
// time linear in nodes + edges. Also the path's weights by event and category.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "cp_graph.h"
#include "event_slots.h"

namespace th::critical_path {

class WhatIf {
 public:
  // In one pass over `order` (computed on `g`, which it found acyclic): the
  // longest path, into *path exactly as FindLongestPath gives it, and the
  // longest path's length (ns) with every enabled edge of one category at 0,
  // for each category at once (index: the Category value; kNone: no category
  // zeroed, the path itself). The buffers are kept for the next graph (no
  // allocation once they are big enough).
  std::array<int64_t, 6> PathAndLengthsWithout(const Graph& g, const GraphOrder& order,
                                               LongestPath* path);

 private:
  static constexpr size_t kLanes = 5;  // lane c: Category c + 1 at 0
  std::vector<std::array<int64_t, kLanes>> dist_;
};

// The path's length by (rank slot, event or kNone, category), each key once,
// in the order the path first reaches it. A weight with no attributed event
// (a collective's transfer) counts to the slot in `transfer_slot` (its gating
// rank). `scratch`: one kNone entry per event of each slot, left kNone;
// `next`: a buffer of its own, kept from call to call.
struct PathSpan {
  uint32_t slot = 0, event = kNone;
  Category category = Category::kNone;
  int64_t time = 0;  // ns
};
std::vector<PathSpan> SpansOf(const Graph& g, const LongestPath& p,
                              const std::map<uint32_t, uint32_t>& transfer_slot,
                              std::vector<EventSlots>* scratch, std::vector<uint32_t>* next);

}  // namespace th::critical_path
