// SortByRuns (plugins/idle-launch/sorted_runs.h): sorted like a stable sort
// whatever the runs of the input.
#include "sorted_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace th::idle_launch {
namespace {

TEST(SortByRuns, MergesAscendingRuns) {
  std::vector<int> v{3, 5, 9, 1, 4, 8, 2, 6, 7, 0};  // runs 3-9, 1-8, 2-7, 0 (odd count)
  SortByRuns(v);
  EXPECT_EQ(v, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(SortByRuns, KeepsEqualElementsInTheirOrder) {
  // By key only: (key, input position); equal keys must stay in input order.
  std::vector<std::pair<int, int>> v{{2, 0}, {5, 1}, {1, 2}, {2, 3}, {5, 4}, {0, 5}, {2, 6}};
  std::vector<std::pair<int, int>> expected = v;
  auto by_key = [](const auto& x, const auto& y) { return x.first < y.first; };
  std::stable_sort(expected.begin(), expected.end(), by_key);
  SortByRuns(v, by_key);
  EXPECT_EQ(v, expected);
}

TEST(SortByRuns, DescendingSortedAndEmptyInputs) {
  std::vector<int> descending{5, 4, 3, 2, 1};
  SortByRuns(descending);
  EXPECT_EQ(descending, (std::vector<int>{1, 2, 3, 4, 5}));
  std::vector<int> sorted{1, 1, 2, 3};
  SortByRuns(sorted);
  EXPECT_EQ(sorted, (std::vector<int>{1, 1, 2, 3}));
  std::vector<int> empty;
  SortByRuns(empty);
  EXPECT_TRUE(empty.empty());
}

}  // namespace
}  // namespace th::idle_launch
