// OrderIntervals against a stable sort by (group, begin), on each of its
// paths: sorted input, a counting partition by group, groups of a few
// ascending runs (merged), groups of many runs (sorted), sparse group ids.
#include "interval_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace th::kernels {
namespace {

struct Columns {
  std::vector<uint32_t> group;
  std::vector<int64_t> begin, end;
  IntervalColumns view() const { return {group, begin, end}; }
};

void ExpectStableOrder(const Columns& c) {
  std::vector<uint32_t> want(c.group.size());
  std::iota(want.begin(), want.end(), 0u);
  std::stable_sort(want.begin(), want.end(), [&](uint32_t a, uint32_t b) {
    return c.group[a] != c.group[b] ? c.group[a] < c.group[b] : c.begin[a] < c.begin[b];
  });
  const IntervalOrder o = OrderIntervals(c.view());
  std::vector<uint32_t> got(c.group.size());
  for (size_t k = 0; k < got.size(); ++k) got[k] = o.at(k);
  EXPECT_EQ(got, want);
  std::vector<size_t> runs;
  for (size_t k = 0; k < want.size(); ++k)
    if (k == 0 || c.group[want[k]] != c.group[want[k - 1]]) runs.push_back(k);
  runs.push_back(want.size());
  EXPECT_EQ(o.runs, runs);
}

// `tracks` sorted sequences of begins (ties included), laid one after the
// other: each group then holds `tracks` ascending runs, in input order.
Columns TrackMajor(size_t tracks, size_t per_track, uint32_t groups, std::mt19937_64& rng) {
  Columns c;
  for (size_t t = 0; t < tracks; ++t) {
    int64_t ts = static_cast<int64_t>(rng() % 1000);
    for (size_t i = 0; i < per_track; ++i) {
      ts += static_cast<int64_t>(rng() % 50);  // steps of 0 give equal begins
      c.group.push_back(static_cast<uint32_t>(rng() % groups));
      c.begin.push_back(ts);
      c.end.push_back(ts + 10);
    }
  }
  return c;
}

TEST(OrderIntervals, SortedInputIsNotCopied) {
  Columns c{{0, 0, 1, 3, 3}, {1, 1, 0, 5, 9}, {2, 2, 2, 6, 10}};
  const IntervalOrder o = OrderIntervals(c.view());
  EXPECT_TRUE(o.order.empty());
  EXPECT_EQ(o.runs, (std::vector<size_t>{0, 2, 3, 5}));
  ExpectStableOrder(c);
}

TEST(OrderIntervals, EmptyInputHasOnlyTheEndRun) {
  EXPECT_EQ(OrderIntervals(Columns{}.view()).runs, std::vector<size_t>{0});
}

TEST(OrderIntervals, GroupsInterleavedBeginsSortedPerGroup) {
  std::mt19937_64 rng(1);
  ExpectStableOrder(TrackMajor(1, 300000, 9, rng));
}

TEST(OrderIntervals, GroupsOfAFewAscendingRunsAreMerged) {
  std::mt19937_64 rng(2);
  for (size_t tracks : {2, 3, 7, 64}) {
    SCOPED_TRACE(std::to_string(tracks) + " tracks");
    ExpectStableOrder(TrackMajor(tracks, 20000, 5, rng));
  }
}

TEST(OrderIntervals, GroupsOfManyRunsAreSorted) {
  std::mt19937_64 rng(3);
  ExpectStableOrder(TrackMajor(65, 2000, 3, rng));
  Columns random;
  for (int i = 0; i < 200000; ++i) {
    random.group.push_back(static_cast<uint32_t>(rng() % 11));
    random.begin.push_back(static_cast<int64_t>(rng() % 1000) - 500);
    random.end.push_back(0);
  }
  ExpectStableOrder(random);
}

TEST(OrderIntervals, SparseGroupIdsAreSortedByComparison) {
  std::mt19937_64 rng(4);
  Columns c;
  for (int i = 0; i < 1000; ++i) {
    c.group.push_back(static_cast<uint32_t>(rng() % 4) * 1000000u);
    c.begin.push_back(static_cast<int64_t>(rng() % 100));
    c.end.push_back(0);
  }
  ExpectStableOrder(c);
}

}  // namespace
}  // namespace th::kernels
