// The longest path of small graphs built by hand: the heavier of two
// branches, a wait (weight 0) that spans time, disabled edges, a cycle; the
// topological order of graphs with a few edges to lower nodes, and of random
// ones.
#include "cp_graph.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "small_graphs.h"

namespace th::critical_path {
namespace {

TEST(LongestPath, TakesTheHeavierBranch) {
  const Graph g = Diamond();
  LongestPath p;
  std::string error;
  ASSERT_TRUE(FindLongestPath(g, &p, &error)) << error;
  EXPECT_EQ(p.length, 12);
  EXPECT_EQ(p.edges, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(p.dist, (std::vector<int64_t>{0, 5, 2, 12}));
}

TEST(LongestPath, DisabledEdgesAndNegativeWeights) {
  Graph g = Diamond();
  g.edges()[3].disabled = true;  // 2 -> 3 gone: 0-1-3, 6
  LongestPath p;
  std::string error;
  ASSERT_TRUE(FindLongestPath(g, &p, &error)) << error;
  EXPECT_EQ(p.length, 6);
  EXPECT_EQ(p.edges, (std::vector<uint32_t>{0, 1}));
  // A negative weight (clock rounding) counts as 0.
  const uint32_t e = g.AddEdge({1, 3, -7, EdgeType::kSync, Category::kNone, kNone, false});
  EXPECT_EQ(g.edges()[e].weight, 0);
}

TEST(LongestPath, ACycleIsAnErrorNotAPath) {
  Graph g = Diamond();
  g.AddEdge({3, 0, 0, EdgeType::kSync, Category::kNone, kNone, false});
  LongestPath p;
  std::string error;
  EXPECT_FALSE(FindLongestPath(g, &p, &error));
  EXPECT_EQ(error, "the graph has a cycle (4 of 4 nodes on or after one)");
}

TEST(LongestPath, EmptyGraph) {
  LongestPath p;
  std::string error;
  ASSERT_TRUE(FindLongestPath(Graph(), &p, &error));
  EXPECT_EQ(p.length, 0);
  EXPECT_TRUE(p.edges.empty());
}

// True when `order` is a permutation of g's nodes with every enabled edge
// going forward in it.
bool IsTopological(const Graph& g, const std::vector<uint32_t>& order) {
  std::vector<uint32_t> at(g.nodes().size(), kNone);
  if (order.size() != at.size()) return false;
  for (uint32_t i = 0; i < order.size(); ++i) {
    if (order[i] >= at.size() || at[order[i]] != kNone) return false;
    at[order[i]] = i;
  }
  for (const Edge& e : g.edges())
    if (!e.disabled && at[e.src] >= at[e.dst]) return false;
  return true;
}

TEST(GraphOrder, EdgesToLowerNodesReorderOnlyTheRangeTheySpan) {
  // 0 -> 1 -> 2 -> 3 -> 4 -> 5 forward, plus 3 -> 2 (so 3 before 2): the
  // range [2, 3] is reordered, nothing else.
  Graph g;
  for (int i = 0; i < 6; ++i) g.AddNode({i, static_cast<uint32_t>(i), 0, true});
  for (uint32_t v = 0; v + 1 < 6; ++v)
    if (v != 2) g.AddEdge({v, v + 1, 1, EdgeType::kOperator, Category::kHost, v, false});
  g.AddEdge({1, 3, 1, EdgeType::kOperator, Category::kHost, 1, false});
  g.AddEdge({3, 2, 0, EdgeType::kDependency, Category::kNone, kNone, false});
  g.AddEdge({2, 4, 1, EdgeType::kOperator, Category::kHost, 2, false});
  GraphOrder order;
  ASSERT_TRUE(order.Compute(g));
  EXPECT_EQ(order.order(), (std::vector<uint32_t>{0, 1, 3, 2, 4, 5}));
  EXPECT_EQ(order.reordered(), 2u);
  EXPECT_TRUE(IsTopological(g, order.order()));
  // Overlapping ranges merge: 5 -> 3 joins [2, 3] into [2, 5] (4 -> 5, edge
  // 3, disabled: it would close the cycle 3 -> 4 -> 5 -> 3).
  g.edges()[3].disabled = true;
  g.AddEdge({5, 3, 0, EdgeType::kSync, Category::kNone, kNone, false});
  ASSERT_TRUE(order.Compute(g));
  EXPECT_EQ(order.order(), (std::vector<uint32_t>{0, 1, 5, 3, 2, 4}));
  EXPECT_EQ(order.reordered(), 4u);
  // A cycle within a range: false, and the order lacks the nodes on or after it.
  g.AddEdge({2, 3, 0, EdgeType::kSync, Category::kNone, kNone, false});
  EXPECT_FALSE(order.Compute(g));
  EXPECT_LT(order.order().size(), g.nodes().size());
}

TEST(GraphOrder, RandomGraphsGetATopologicalOrderOrACycle) {
  std::mt19937 rng(5122026);
  for (int round = 0; round < 300; ++round) {
    const uint32_t n = 1 + rng() % 30;
    std::vector<uint32_t> rank(n);  // a hidden order most edges follow
    for (uint32_t i = 0; i < n; ++i) rank[i] = i;
    for (uint32_t i = 0; i < n; ++i)  // a few swaps: a few edges to lower nodes
      if (rng() % 4 == 0) std::swap(rank[i], rank[rng() % n]);
    const bool with_cycle = round % 5 == 0;
    Graph g;
    for (uint32_t i = 0; i < n; ++i) g.AddNode({int64_t{i}, i, 0, true});
    for (uint32_t k = 0, m = rng() % (3 * n + 1); k < m; ++k) {
      uint32_t a = rng() % n, b = rng() % n;
      if (a == b) continue;
      if (rank[a] > rank[b] && !(with_cycle && rng() % 8 == 0)) std::swap(a, b);
      g.AddEdge({a, b, 1, EdgeType::kOperator, Category::kHost, a, rng() % 10 == 0});
    }
    GraphOrder order;
    const bool acyclic = order.Compute(g);
    // Kahn's over the whole graph decides whether there is a cycle.
    std::vector<uint32_t> in(n, 0), kahn;
    for (const Edge& e : g.edges())
      if (!e.disabled) ++in[e.dst];
    for (uint32_t v = 0; v < n; ++v)
      if (in[v] == 0) kahn.push_back(v);
    for (size_t i = 0; i < kahn.size(); ++i)
      for (const Edge& e : g.edges())
        if (!e.disabled && e.src == kahn[i] && --in[e.dst] == 0) kahn.push_back(e.dst);
    ASSERT_EQ(acyclic, kahn.size() == n) << "round " << round;
    if (acyclic)
      EXPECT_TRUE(IsTopological(g, order.order())) << "round " << round;
    else
      EXPECT_EQ(order.order().size(), kahn.size()) << "round " << round;
  }
}

}  // namespace
}  // namespace th::critical_path
