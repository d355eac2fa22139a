// The longest path of small graphs built by hand: the heavier of two
// branches, a wait (weight 0) that spans time, disabled edges, a cycle.
#include "cp_graph.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace th::critical_path {
namespace {

Graph Diamond() {
  // 0 -> 1 (5) -> 3 (1); 0 -> 2 (2) -> 3 (10): the path is 0-2-3, 12.
  Graph g;
  for (int i = 0; i < 4; ++i) g.AddNode({i * 10, static_cast<uint32_t>(i), 0, true});
  g.AddEdge({0, 1, 5, EdgeType::kOperator, Category::kHost, 0, false});
  g.AddEdge({1, 3, 1, EdgeType::kOperator, Category::kHost, 1, false});
  g.AddEdge({0, 2, 2, EdgeType::kLaunch, Category::kLaunchOverhead, 2, false});
  g.AddEdge({2, 3, 10, EdgeType::kOperator, Category::kCompute, 2, false});
  return g;
}

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

}  // namespace
}  // namespace th::critical_path
