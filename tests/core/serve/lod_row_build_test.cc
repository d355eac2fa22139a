// BuildRow and the choice of pyramid levels: the rules of lod_row.h, the
// memory budget, and pyramid buckets against a count by definition.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "core/serve/lod_levels.h"
#include "core/serve/lod_row.h"
#include "tests/core/serve/lod_brute_force.h"
#include "tests/core/serve/lod_random_rows.h"

namespace th::serve {
namespace {

uint64_t Occupied(const std::vector<int64_t>& starts, int level) {
  uint64_t n = starts.empty() ? 0 : 1;
  for (size_t i = 1; i < starts.size(); ++i)
    n += FloorShift(starts[i], level) != FloorShift(starts[i - 1], level);
  return n;
}

TEST(LodRowBuildTest, PyramidLevelsFollowTheRules) {
  std::mt19937_64 rng(2);
  EXPECT_TRUE(ChoosePyramidLevels(std::vector<int64_t>(kRowEventsWithoutPyramid, 0)).empty());
  for (int trial = 0; trial < 6; ++trial) {
    std::vector<int64_t> starts;
    for (const auto& e : testing::DenseEvents(rng, 20000 + 10000 * trial, -77777, 0, 0))
      starts.push_back(e.ts);
    std::sort(starts.begin(), starts.end());
    const std::vector<int> levels = ChoosePyramidLevels(starts);
    ASSERT_FALSE(levels.empty());
    const uint64_t n = starts.size();
    for (size_t i = 0; i < levels.size(); ++i) {
      const uint64_t occupied = Occupied(starts, levels[i]);
      EXPECT_EQ(levels[i] % kLevelStep, 0);
      EXPECT_LE(occupied * kEventsPerBucketMin, n) << levels[i];
      if (i > 0) {
        EXPECT_EQ(levels[i], levels[i - 1] + kLevelStep);
      }
      if (i + 1 < levels.size()) {
        EXPECT_GT(occupied, kTopBuckets);
      }
    }
    EXPECT_LE(Occupied(starts, levels.back()), kTopBuckets);
  }
}

TEST(LodRowBuildTest, PyramidBucketsAreCountsAndBusyTimeByDefinition) {
  std::mt19937_64 rng(3);
  std::vector<testing::SyntheticEvent> events = testing::DenseEvents(rng, 30000, 1 << 20, 0, 0);
  auto graph = testing::MakeGraph(events, 1);
  std::vector<EventId> ids(graph->events.size());
  for (EventId i = 0; i < ids.size(); ++i) ids[i] = i;
  std::shuffle(ids.begin(), ids.end(), rng);  // any order in: sorted by BuildRow
  const RowIndex row = BuildRow(graph->events, 0, 0, ids);
  ASSERT_GE(row.levels.size(), 2u);  // levels above the first are built from the one below
  const RowIndex from_sorted = BuildRow(graph->events, 0, 0, testing::RowEvents(*graph, 0, 0));
  EXPECT_EQ(row.order, from_sorted.order);
  size_t entries = 0;
  for (const PyramidLevel& l : row.levels) {
    entries += l.bucket.size();
    std::map<int64_t, std::pair<uint32_t, __int128>> want;
    for (EventId e = 0; e < graph->events.size(); ++e) {
      const int64_t ts = graph->events.ts[e], dur = graph->events.dur[e];
      if (DurationClass(dur) >= l.level) continue;
      const int64_t b = FloorShift(ts, l.level);
      ++want[b].first;
      for (int64_t k = b; k <= b + 1; ++k) {
        const __int128 lo = std::max<__int128>(ts, Pow2(l.level) * k);
        const __int128 hi = std::min<__int128>(EventEnd(ts, dur), Pow2(l.level) * (k + 1));
        if (hi > lo) want[k].second += hi - lo;
      }
    }
    size_t i = 0;
    for (const auto& [bucket, cb] : want) {
      if (cb.first == 0 && cb.second == 0) continue;
      ASSERT_LT(i, l.bucket.size());
      EXPECT_EQ(l.bucket[i], bucket);
      EXPECT_EQ(l.count[i], cb.first);
      EXPECT_EQ(l.busy_ns[i], static_cast<int64_t>(cb.second));
      ++i;
    }
    EXPECT_EQ(i, l.bucket.size()) << "level " << l.level;
  }
  EXPECT_LE(entries * kEventsPerPyramidBucket, row.size());
}

}  // namespace
}  // namespace th::serve
