// StableSortRuns (sdk/include/tracehound/sorted_runs.h): sorted as
// std::stable_sort sorts, whatever the runs of the input.
#include <gtest/gtest.h>
#include <tracehound/sorted_runs.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace th::sdk {
namespace {

// A key that ties often, and the position it had: stability shows in `at`.
struct Item {
  int64_t key;
  uint32_t at;
  bool operator==(const Item&) const = default;
};

bool KeyLess(const Item& a, const Item& b) { return a.key < b.key; }

// `runs` runs of random lengths, each in key order, keys from a small range.
std::vector<Item> Runs(std::mt19937_64* random, size_t runs, size_t max_run, int64_t keys) {
  std::vector<Item> items;
  for (size_t r = 0; r < runs; ++r) {
    std::vector<int64_t> run((*random)() % (max_run + 1));
    for (int64_t& k : run) k = static_cast<int64_t>((*random)() % static_cast<uint64_t>(keys));
    std::sort(run.begin(), run.end());
    for (int64_t k : run) items.push_back({k, static_cast<uint32_t>(items.size())});
  }
  return items;
}

void ExpectAsStableSort(std::vector<Item> items) {
  std::vector<Item> want = items;
  std::stable_sort(want.begin(), want.end(), KeyLess);
  StableSortRuns(items, KeyLess);
  EXPECT_EQ(items, want);
}

TEST(StableSortRuns, SortsAsStableSortForAnyNumberOfRuns) {
  std::mt19937_64 random(20261202);
  for (size_t runs : {0, 1, 2, 3, 4, 5, 7, 8, 9, 33}) {
    for (int trial = 0; trial < 20; ++trial) {
      SCOPED_TRACE(::testing::Message() << runs << " runs, trial " << trial);
      ExpectAsStableSort(Runs(&random, runs, 50, 20));
    }
  }
}

// Chunks of a file: each run in key order, overlapping the next by a few
// keys, with ties across the boundary.
std::vector<Item> Chunks(size_t runs, int64_t run_length, int64_t overlap) {
  std::vector<Item> items;
  for (size_t r = 0; r < runs; ++r) {
    const int64_t from = static_cast<int64_t>(r) * (run_length - overlap);
    for (int64_t k = 0; k < run_length; ++k)
      items.push_back({from + k, static_cast<uint32_t>(items.size())});
  }
  return items;
}

TEST(StableSortRuns, RunsThatBarelyOverlapMoveOnlyWhereTheyInterleave) {
  ExpectAsStableSort(Chunks(9, 10000, 3));
  ExpectAsStableSort(Chunks(2, 5, 5));  // the second run ties the first all along
  ExpectAsStableSort(Chunks(5, 7, 0));  // ties at each boundary only
  // 8 runs of 10,000 that overlap by 3: a merge compares the few values that
  // interleave and the binary searches', not every value of both runs.
  std::vector<Item> items = Chunks(8, 10000, 3);
  size_t compared = 0;
  StableSortRuns(items, [&](const Item& a, const Item& b) {
    ++compared;
    return a.key < b.key;
  });
  EXPECT_TRUE(std::is_sorted(items.begin(), items.end(), KeyLess));
  EXPECT_LT(compared, items.size() + 1000);  // the pass that finds the runs, then ~30 a merge
}

TEST(StableSortRuns, SortsUnorderedItemsAsStableSort) {
  std::mt19937_64 random(7);
  std::vector<Item> items;
  for (uint32_t i = 0; i < 1000; ++i)
    items.push_back({static_cast<int64_t>(random() % 30), i});  // mostly runs of one
  ExpectAsStableSort(items);
  std::vector<Item> descending;
  for (uint32_t i = 0; i < 100; ++i) descending.push_back({100 - static_cast<int64_t>(i), i});
  ExpectAsStableSort(descending);
}

TEST(StableSortRuns, MergesAscendingRuns) {
  std::vector<int> v{3, 5, 9, 1, 4, 8, 2, 6, 7, 0};  // runs 3-9, 1-8, 2-7, 0 (odd count)
  StableSortRuns(v);
  EXPECT_EQ(v, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(StableSortRuns, KeepsEqualElementsInTheirOrder) {
  // By key only: (key, input position); equal keys must stay in input order.
  std::vector<std::pair<int, int>> v{{2, 0}, {5, 1}, {1, 2}, {2, 3}, {5, 4}, {0, 5}, {2, 6}};
  std::vector<std::pair<int, int>> expected = v;
  auto by_key = [](const auto& x, const auto& y) { return x.first < y.first; };
  std::stable_sort(expected.begin(), expected.end(), by_key);
  StableSortRuns(v, by_key);
  EXPECT_EQ(v, expected);
}

TEST(StableSortRuns, DescendingSortedAndEmptyInputs) {
  std::vector<int> descending{5, 4, 3, 2, 1};
  StableSortRuns(descending);
  EXPECT_EQ(descending, (std::vector<int>{1, 2, 3, 4, 5}));
  std::vector<int> sorted{1, 1, 2, 3};
  StableSortRuns(sorted);
  EXPECT_EQ(sorted, (std::vector<int>{1, 1, 2, 3}));
  std::vector<int> empty;
  StableSortRuns(empty);
  EXPECT_TRUE(empty.empty());
}

// Few long runs (merged) and many short ones (std::stable_sort) alike give
// std::stable_sort's order, equal keys in input order.
TEST(StableSortFewRuns, EqualsStableSortForLongAndShortRuns) {
  std::mt19937 rng(5);
  for (size_t run : {size_t{1}, size_t{3}, size_t{100}, size_t{5000}}) {
    std::vector<std::pair<int, int>> v;
    int key = 0;
    for (int i = 0; i < 20000; ++i) {
      if (i % run == 0) key = static_cast<int>(rng() % 1000);
      key += static_cast<int>(rng() % 3);  // ascending within a run, with repeats
      v.push_back({key, i});
    }
    auto by_key = [](const auto& x, const auto& y) { return x.first < y.first; };
    std::vector<std::pair<int, int>> expected = v;
    std::stable_sort(expected.begin(), expected.end(), by_key);
    StableSortFewRuns(v, by_key);
    EXPECT_EQ(v, expected) << "runs of " << run;
  }
}

}  // namespace
}  // namespace th::sdk
