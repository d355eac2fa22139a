// What-if lengths of a critical path graph: the longest path with the
// weights of one category set to 0 ("if this cause went away"). The
// topological order is computed once; each scenario is one pass over it, in
// time linear in nodes + edges. Also the path's weights by event and category.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "cp_graph.h"

namespace th::critical_path {

class WhatIf {
 public:
  // `g` must be acyclic (FindLongestPath succeeded on it) and outlive this.
  explicit WhatIf(const Graph& g);
  // The longest path's length (ns) with every enabled edge of one category at
  // 0, for each category at once (index: the Category value; kNone: no
  // category zeroed, the path itself), in one pass over the order.
  std::array<int64_t, 6> LengthsWithout() const;

 private:
  const Graph& g_;
  std::vector<uint32_t> order_;        // nodes, topologically ordered
  std::vector<uint32_t> first_, out_;  // outgoing enabled edges (CSR)
};

// (rank slot, event or kNone, category) -> ns of the path's length. A weight
// with no attributed event (a collective's transfer) counts to the slot in
// `transfer_slot` (its gating rank) with event kNone.
using PathSpans = std::map<std::tuple<uint32_t, uint32_t, Category>, int64_t>;
PathSpans SpansOf(const Graph& g, const LongestPath& p,
                  const std::map<uint32_t, uint32_t>& transfer_slot);

}  // namespace th::critical_path
