// StartsAndEnds: every start and end once, in the (ts, event, start first)
// order a sort of all of them gives, on nested calls, zero durations, ties
// on ts and random intervals; the heap never holds more than the open events.
#include "starts_and_ends.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

namespace th::critical_path {
namespace {

using Node = std::tuple<int64_t, uint32_t, bool>;  // (ts, event, is_end): start first

// The order of the plugin before StartsAndEnds: every node sorted.
std::vector<Node> Sorted(const std::vector<int64_t>& ts, const std::vector<int64_t>& end) {
  std::vector<Node> all;
  for (uint32_t e = 0; e < ts.size(); ++e) {
    all.emplace_back(ts[e], e, false);
    all.emplace_back(end[e], e, true);
  }
  std::sort(all.begin(), all.end());
  return all;
}

std::vector<Node> Merged(const std::vector<int64_t>& ts, const std::vector<int64_t>& end,
                         size_t* most_open = nullptr) {
  std::vector<EventKey> starts;
  for (uint32_t e = 0; e < ts.size(); ++e) starts.emplace_back(ts[e], e);
  std::sort(starts.begin(), starts.end());
  std::vector<Node> out;
  std::vector<EventKey> open;
  size_t most = 0;
  StartsAndEnds(
      starts, [&](uint32_t e) { return end[e]; }, &open,
      [&](const EventKey& k, bool is_end) {
        out.emplace_back(k.first, k.second, is_end);
        most = std::max(most, open.size());
      });
  if (most_open != nullptr) *most_open = most;
  return out;
}

TEST(StartsAndEnds, NestedCallsEndBeforeTheirParent) {
  // 0: [0, 100) holds 1: [10, 20) and 2: [30, 40); 3: [100, 100) starts as 0 ends.
  const std::vector<int64_t> ts{0, 10, 30, 100}, end{100, 20, 40, 100};
  EXPECT_EQ(Merged(ts, end), (std::vector<Node>{{0, 0, false},
                                                {10, 1, false},
                                                {20, 1, true},
                                                {30, 2, false},
                                                {40, 2, true},
                                                {100, 0, true},
                                                {100, 3, false},
                                                {100, 3, true}}));
}

TEST(StartsAndEnds, TiesOnTsGoByEventThenStartFirst) {
  // Every event at ts 5: zero durations and one ending at 5 too.
  const std::vector<int64_t> ts{5, 5, 5, 5}, end{5, 9, 5, 7};
  EXPECT_EQ(Merged(ts, end), Sorted(ts, end));
  EXPECT_EQ(Merged(ts, end).front(), (Node{5, 0, false}));
  EXPECT_EQ(Merged(ts, end)[1], (Node{5, 0, true}));
}

TEST(StartsAndEnds, RandomIntervalsInTheSortedOrder) {
  std::mt19937_64 rng(20261205);
  for (int round = 0; round < 300; ++round) {
    const size_t n = 1 + rng() % 200;
    std::vector<int64_t> ts(n), end(n);
    for (size_t e = 0; e < n; ++e) {
      ts[e] = static_cast<int64_t>(rng() % 50);  // many ties
      end[e] = ts[e] + static_cast<int64_t>(rng() % (round % 3 == 0 ? 2 : 60));
    }
    ASSERT_EQ(Merged(ts, end), Sorted(ts, end)) << "round " << round;
  }
}

TEST(StartsAndEnds, TheHeapHoldsOnlyTheOpenEvents) {
  // 10,000 back-to-back calls on one thread, each holding one child: never
  // more than two open at a time, whatever the window's length.
  std::vector<int64_t> ts, end;
  for (int64_t i = 0; i < 10000; ++i) {
    ts.push_back(10 * i);
    end.push_back(10 * i + 9);
    ts.push_back(10 * i + 1);
    end.push_back(10 * i + 2);
  }
  size_t most = 0;
  EXPECT_EQ(Merged(ts, end, &most), Sorted(ts, end));
  EXPECT_LE(most, 2u);
}

}  // namespace
}  // namespace th::critical_path
