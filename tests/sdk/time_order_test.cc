// GroupByTrack, KeepInTrackOrder, MergeByStart and UnionCover (sdk/include/tracehound/time_order.h)
// on hand-built rows.
#include <gtest/gtest.h>
#include <tracehound/time_order.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

namespace th::sdk {
namespace {

TEST(GroupByTrack, KeptRowsPerTrackInRunsByStart) {
  // Row: track, start. Track 0 is by start in file order; track 2 is two
  // runs; row 3 is left out; track 1 has no rows.
  const std::vector<uint32_t> track = {0, 2, 0, 0, 2, 2, 0};
  const std::vector<int64_t> start = {10, 50, 20, 5, 30, 30, 20};
  auto group = [&](uint32_t min_run) {
    return GroupByTrack(
        track.size(), 3, [](uint64_t i) { return i != 3; }, [&](uint64_t i) { return track[i]; },
        [&](uint64_t i) { return start[i]; }, min_run);
  };
  TrackRows runs = group(1);
  EXPECT_EQ(runs.rows, (std::vector<uint32_t>{0, 2, 6, 1, 4, 5}));
  EXPECT_EQ(runs.offsets, (std::vector<uint32_t>{0, 3, 4, 6}));
  EXPECT_EQ(runs.track, (std::vector<uint32_t>{0, 2, 2}));
  ASSERT_EQ(runs.lists(), 3u);
  EXPECT_EQ(runs.Of(1).size(), 1u);
  // Runs shorter than 2 rows on average (3 rows in 2 runs): the track
  // sorted into one list, ties by row.
  TrackRows sorted = group(2);
  EXPECT_EQ(sorted.rows, (std::vector<uint32_t>{0, 2, 6, 4, 5, 1}));
  EXPECT_EQ(sorted.offsets, (std::vector<uint32_t>{0, 3, 6}));
  EXPECT_EQ(sorted.track, (std::vector<uint32_t>{0, 2}));
}

TEST(GroupByTrack, NothingKept) {
  TrackRows none = GroupByTrack(
      4, 2, [](uint64_t) { return false; }, [](uint64_t i) { return uint32_t(i % 2); },
      [](uint64_t i) { return int64_t(i); });
  EXPECT_TRUE(none.rows.empty());
  EXPECT_EQ(none.lists(), 0u);
  EXPECT_EQ(none.offsets, (std::vector<uint32_t>{0}));
}

TEST(KeepInTrackOrder, OneListPerTrackThatKeepsARowInTheGivenOrder) {
  // Tracks by start as a trace lists them; track 1 keeps nothing, row 3 is
  // left out, track 2 is empty.
  const std::vector<std::vector<uint32_t>> order = {{3, 0, 2, 6}, {7}, {}, {1, 4, 5}};
  const TrackRows lists = KeepInTrackOrder(
      4, [&](uint32_t t) { return order[t]; }, [](uint32_t row) { return row != 3 && row != 7; });
  EXPECT_EQ(lists.rows, (std::vector<uint32_t>{0, 2, 6, 1, 4, 5}));
  EXPECT_EQ(lists.offsets, (std::vector<uint32_t>{0, 3, 6}));
  EXPECT_EQ(lists.track, (std::vector<uint32_t>{0, 3}));
}

TEST(MergeByStart, EveryRowOfEveryListByStart) {
  const std::vector<int64_t> start = {0, 5, 9, 1, 5, 20, 2};  // by row
  const std::vector<uint32_t> a = {0, 1, 2}, b = {3, 4, 5}, c = {6}, none = {};
  const std::vector<StartList> lists = {{a, 7}, {none, 8}, {b, 9}, {c, 10}};
  std::vector<std::pair<uint32_t, uint32_t>> seen;
  MergeByStart(
      lists, [&](uint32_t, uint32_t row) { return start[row]; },
      [&](uint32_t id, uint32_t row) { seen.emplace_back(id, row); });
  ASSERT_EQ(seen.size(), 7u);
  for (size_t k = 1; k < seen.size(); ++k)
    EXPECT_LE(start[seen[k - 1].second], start[seen[k].second]);
  EXPECT_EQ(seen.front(), std::make_pair(7u, 0u));
  EXPECT_EQ(seen[1], std::make_pair(9u, 3u));
  EXPECT_EQ(seen[2], std::make_pair(10u, 6u));
  EXPECT_EQ(seen.back(), std::make_pair(9u, 5u));
}

// Against a stable sort by (start, list, position), on many lists (not a
// power of two, some empty), with ties within and across lists and starts at
// both ends of the int64 range.
TEST(MergeByStart, MatchesAStableSortOnManyListsWithTies) {
  std::mt19937 rng(11);
  for (uint32_t k : {1u, 2u, 3u, 37u, 64u, 65u}) {
    std::vector<int64_t> start;
    std::vector<std::vector<uint32_t>> rows(k);
    for (uint32_t l = 0; l < k; ++l) {
      const uint32_t n = rng() % 5 == 0 ? 0 : rng() % 40;
      int64_t t = rng() % 3 == 0 ? std::numeric_limits<int64_t>::min() : 0;
      for (uint32_t j = 0; j < n; ++j) {
        if (rng() % 4 != 0) t += rng() % 3;  // ties within the list too
        const bool at_max = rng() % 50 == 0;
        rows[l].push_back(static_cast<uint32_t>(start.size()));
        start.push_back(at_max ? std::numeric_limits<int64_t>::max() : t);
        if (at_max) break;  // a list is by start: nothing follows the largest
      }
    }
    std::vector<StartList> lists;
    std::vector<std::tuple<int64_t, uint32_t, uint32_t>> want;  // (start, list, row)
    for (uint32_t l = 0; l < k; ++l) {
      lists.push_back({rows[l], l});
      for (uint32_t r : rows[l]) want.emplace_back(start[r], l, r);
    }
    std::stable_sort(want.begin(), want.end(), [](const auto& a, const auto& b) {
      return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b)
                                              : std::get<1>(a) < std::get<1>(b);
    });
    std::vector<std::tuple<int64_t, uint32_t, uint32_t>> got;
    MergeByStart(
        lists, [&](uint32_t, uint32_t row) { return start[row]; },
        [&](uint32_t id, uint32_t row) { got.emplace_back(start[row], id, row); });
    EXPECT_EQ(got, want) << k << " lists";
  }
}

// The prefetch hook names, as each list advances, the row `ahead` places
// further down it, each such row once, before that row is visited.
TEST(MergeByStart, PrefetchesRowsAheadOfEachList) {
  const std::vector<int64_t> start = {0, 2, 4, 6, 8, 1, 3, 5, 7};  // by row
  const std::vector<uint32_t> a = {0, 1, 2, 3, 4}, b = {5, 6, 7, 8};
  const std::vector<StartList> lists = {{a, 0}, {b, 1}};
  std::vector<uint32_t> visited, prefetched;
  std::vector<bool> prefetched_before_visit;
  MergeByStart(
      lists, [&](uint32_t, uint32_t row) { return start[row]; },
      [&](uint32_t, uint32_t row) {
        visited.push_back(row);
        if (std::find(prefetched.begin(), prefetched.end(), row) != prefetched.end())
          prefetched_before_visit.push_back(true);
      },
      [&](uint32_t, uint32_t row) { prefetched.push_back(row); }, 1);
  EXPECT_EQ(visited, (std::vector<uint32_t>{0, 5, 1, 6, 2, 7, 3, 8, 4}));
  std::sort(prefetched.begin(), prefetched.end());
  EXPECT_EQ(prefetched, (std::vector<uint32_t>{2, 3, 4, 7, 8}));  // positions 2 and on
  EXPECT_EQ(prefetched_before_visit.size(), prefetched.size());
}

TEST(UnionCover, OverlapsCountedOnce) {
  UnionCover u;
  u.Add(0, 10);
  u.Add(2, 5);    // nested: nothing
  u.Add(8, 15);   // overlapping: 5
  u.Add(15, 20);  // touching: 5
  u.Add(17, 17);  // empty: nothing
  u.Add(30, 31);  // a gap, then 1
  EXPECT_EQ(u.total, 21);
  UnionCover negative;
  negative.Add(-100, -50);
  negative.Add(-60, 0);
  EXPECT_EQ(negative.total, 100);
}

}  // namespace
}  // namespace th::sdk
