#include "core/import/xspace/stable_sort_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace th::xspace {
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
  StableSortRuns(&items, KeyLess);
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

}  // namespace
}  // namespace th::xspace
