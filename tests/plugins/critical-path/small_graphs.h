// Small critical path graphs built by hand, shared by the graph tests.
#pragma once

#include <cstdint>

#include "cp_graph.h"

namespace th::critical_path {

// 0 -> 1 (host 5) -> 3 (host 1); 0 -> 2 (launch 2) -> 3 (compute 10): the
// longest path is 0-2-3, 12 ns (edges 2, 3).
inline Graph Diamond() {
  Graph g;
  for (int i = 0; i < 4; ++i) g.AddNode({i * 10, static_cast<uint32_t>(i), 0, true});
  g.AddEdge({0, 1, 5, EdgeType::kOperator, Category::kHost, 0, false});
  g.AddEdge({1, 3, 1, EdgeType::kOperator, Category::kHost, 1, false});
  g.AddEdge({0, 2, 2, EdgeType::kLaunch, Category::kLaunchOverhead, 2, false});
  g.AddEdge({2, 3, 10, EdgeType::kOperator, Category::kCompute, 2, false});
  return g;
}

}  // namespace th::critical_path
