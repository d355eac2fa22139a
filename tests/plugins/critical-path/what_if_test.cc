// WhatIf::PathAndLengthsWithout: the path is FindLongestPath's, ties
// included, and each what-if length is the longest path of the same graph
// with that category's weights set to 0, on a small graph by hand and on
// random DAGs (edges both ways in index order, zero weights, disabled edges).
#include "what_if.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <string>
#include <vector>

#include "cp_graph.h"
#include "small_graphs.h"

namespace th::critical_path {
namespace {

// The longest path with one category's weights at 0, by FindLongestPath.
int64_t LengthWithout(Graph g, Category zeroed) {
  for (Edge& e : g.edges())
    if (e.category == zeroed) e.weight = 0;
  LongestPath p;
  std::string error;
  EXPECT_TRUE(FindLongestPath(g, &p, &error)) << error;
  return p.length;
}

void ExpectSameAsFindLongestPath(const Graph& g) {
  LongestPath want, got;
  std::string error;
  ASSERT_TRUE(FindLongestPath(g, &want, &error)) << error;
  GraphOrder order;
  ASSERT_TRUE(order.Compute(g));
  WhatIf what_if;
  const std::array<int64_t, 6> without = what_if.PathAndLengthsWithout(g, order, &got);
  EXPECT_EQ(got.edges, want.edges);
  EXPECT_EQ(got.length, want.length);
  EXPECT_EQ(got.dist, want.dist);
  EXPECT_EQ(got.pred, want.pred);
  EXPECT_EQ(without[0], want.length);
  for (Category c : {Category::kCompute, Category::kCommunication, Category::kLaunchOverhead,
                     Category::kKernelGap, Category::kHost})
    EXPECT_EQ(without[static_cast<size_t>(c)], LengthWithout(g, c)) << static_cast<int>(c);
}

TEST(WhatIf, DiamondLengthsWithEachCategoryAtZero) {
  const Graph g = Diamond();
  GraphOrder order;
  ASSERT_TRUE(order.Compute(g));
  LongestPath p;
  const std::array<int64_t, 6> without = WhatIf().PathAndLengthsWithout(g, order, &p);
  EXPECT_EQ(p.length, 12);
  EXPECT_EQ(p.edges, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(without, (std::array<int64_t, 6>{12, 6, 12, 10, 12, 12}));
  ExpectSameAsFindLongestPath(g);
}

TEST(WhatIf, TiesTakeTheFirstEdgeAsFindLongestPathDoes) {
  // Two ways into node 2 of the same length: edge 0 (direct) wins; the
  // path goes on to node 3.
  Graph g;
  for (int i = 0; i < 4; ++i) g.AddNode({i, static_cast<uint32_t>(i), 0, true});
  g.AddEdge({0, 2, 5, EdgeType::kOperator, Category::kCompute, 0, false});
  g.AddEdge({0, 1, 5, EdgeType::kOperator, Category::kHost, 1, false});
  g.AddEdge({1, 2, 0, EdgeType::kDependency, Category::kNone, kNone, false});
  g.AddEdge({2, 3, 1, EdgeType::kKernelKernel, Category::kKernelGap, 2, false});
  ExpectSameAsFindLongestPath(g);
  GraphOrder order;
  ASSERT_TRUE(order.Compute(g));
  LongestPath p;
  WhatIf().PathAndLengthsWithout(g, order, &p);
  EXPECT_EQ(p.edges, (std::vector<uint32_t>{0, 3}));
}

TEST(WhatIf, RandomGraphsAgreeWithFindLongestPath) {
  std::mt19937 rng(20261205);
  WhatIf reused;  // buffers kept from graph to graph
  for (int round = 0; round < 200; ++round) {
    const uint32_t n = 2 + rng() % 40;
    // A random permutation is the hidden topological order: edges go from an
    // earlier to a later node in it, so index order is not one.
    std::vector<uint32_t> rank(n);
    for (uint32_t i = 0; i < n; ++i) rank[i] = i;
    std::shuffle(rank.begin(), rank.end(), rng);
    Graph g;
    for (uint32_t i = 0; i < n; ++i) g.AddNode({int64_t{i}, i, 0, true});
    const uint32_t m = rng() % (3 * n);
    for (uint32_t k = 0; k < m; ++k) {
      uint32_t a = rng() % n, b = rng() % n;
      if (a == b) continue;
      if (rank[a] > rank[b]) std::swap(a, b);
      const auto category = static_cast<Category>(rng() % 7);
      const int64_t weight = category == Category::kNone ? 0 : int64_t(rng() % 4) * 5;
      g.AddEdge({a, b, weight, EdgeType::kOperator, category, a, rng() % 10 == 0});
    }
    ExpectSameAsFindLongestPath(g);
    GraphOrder order;
    ASSERT_TRUE(order.Compute(g));
    LongestPath p;
    LongestPath want;
    std::string error;
    ASSERT_TRUE(FindLongestPath(g, &want, &error));
    reused.PathAndLengthsWithout(g, order, &p);
    ASSERT_EQ(p.edges, want.edges) << "round " << round;
  }
}

}  // namespace
}  // namespace th::critical_path
