// LodIndex against brute force (lod_brute_force.h): random rows, dense rows
// that go through the bucket pyramid, the int64 extremes, and real Kineto and
// XSpace traces from ../shared/data.
#include "core/serve/lod_index.h"

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <random>

#include "core/import/trace_loader.h"
#include "core/serve/lod_index_io.h"
#include "core/serve/lod_levels.h"
#include "tests/core/serve/lod_brute_force.h"
#include "tests/core/serve/lod_random_rows.h"
#include "tests/support/test_files.h"

namespace th::serve {
namespace {

using testing::BruteForceTile;
using testing::RowEvents;

void ExpectSameTile(const LodTile& got, const LodTile& want, const std::string& where) {
  EXPECT_EQ(got.drawn, want.drawn) << where;
  EXPECT_EQ(got.buckets.size(), want.buckets.size()) << where;
  if (got.buckets != want.buckets) {
    for (size_t i = 0; i < std::min(got.buckets.size(), want.buckets.size()); ++i) {
      const LodBucket &g = got.buckets[i], &w = want.buckets[i];
      if (g == w) continue;
      ADD_FAILURE() << where << ": bucket " << w.bucket << " count " << w.count << " busy "
                    << w.busy_ns << ", index says bucket " << g.bucket << " count " << g.count
                    << " busy " << g.busy_ns;
      break;
    }
  }
}

// Checks `queries` tiles of every row: tiles around random events of the row
// at random levels, and their neighbours.
void CheckAgainstBruteForce(const EventGraph& graph, const LodIndex& index, std::mt19937_64& rng,
                            int queries_per_row) {
  for (uint32_t r = 0; r < index.row_count(); ++r) {
    const LodRow row = index.row(r);
    const std::vector<EventId> events = RowEvents(graph, row.track, row.depth);
    ASSERT_EQ(events.size(), row.events);
    for (int q = 0; q < queries_per_row; ++q) {
      const int level = static_cast<int>(rng() % (kMaxLevel + 1));
      const int64_t ts = graph.events.ts[events[rng() % events.size()]];
      const int64_t tile =
          FloorShift(ts, level + kTileBucketsLog2) + static_cast<int64_t>(rng() % 3) - 1;
      auto got = index.Tile(r, level, tile);
      ASSERT_TRUE(got.ok()) << got.status().message();
      ExpectSameTile(*got, BruteForceTile(graph.events, events, level, tile),
                     "row " + std::to_string(r) + " level " + std::to_string(level) + " tile " +
                         std::to_string(tile));
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(LodIndexTest, RandomRowsMatchBruteForce) {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    std::mt19937_64 rng(seed);
    auto graph = testing::MakeGraph(testing::RandomEvents(rng, 50 + rng() % 3000, 3), 3);
    const LodIndex index = BuildLodIndex(*graph);
    EXPECT_EQ(index.indexed_events(), graph->events.size());
    SCOPED_TRACE("seed " + std::to_string(seed));
    CheckAgainstBruteForce(*graph, index, rng, 60);
    if (HasFailure()) return;
  }
}

TEST(LodIndexTest, DenseRowsGoThroughThePyramidAndMatchBruteForce) {
  std::mt19937_64 rng(7);
  std::vector<testing::SyntheticEvent> events = testing::DenseEvents(rng, 40000, -5000000, 0, 0);
  for (const auto& e : testing::DenseEvents(rng, 20000, 123456789, 0, 1)) events.push_back(e);
  auto graph = testing::MakeGraph(events, 1);
  const LodIndex index = BuildLodIndex(*graph);
  ASSERT_EQ(index.row_count(), 2u);
  for (uint32_t r = 0; r < 2; ++r) EXPECT_GE(index.row_index(r).levels.size(), 3u) << r;
  CheckAgainstBruteForce(*graph, index, rng, 400);
  // Every level, tiles over the whole first row.
  const std::vector<EventId> row0 = RowEvents(*graph, 0, 0);
  for (int level = 0; level <= kMaxLevel; ++level) {
    const int shift = level + kTileBucketsLog2;
    const int64_t first = FloorShift(graph->events.ts[row0.front()], shift);
    const int64_t last = FloorShift(graph->events.ts[row0.back()], shift);
    for (int64_t k = first; k <= last && k < first + 6; ++k) {
      ExpectSameTile(index.Tile(0, level, k).value(), BruteForceTile(graph->events, row0, level, k),
                     "level " + std::to_string(level) + " tile " + std::to_string(k));
      if (HasFailure()) return;
    }
  }
}

TEST(LodIndexTest, Int64ExtremesDoNotOverflow) {
  const std::vector<testing::SyntheticEvent> events = {
      {0, 0, INT64_MIN, INT64_MAX}, {0, 0, -1, INT64_MAX}, {0, 0, INT64_MAX - 1, INT64_MAX},
      {0, 0, INT64_MAX, 0},         {0, 0, INT64_MIN, 0},  {0, 1, INT64_MIN, 1},
      {0, 1, INT64_MAX, INT64_MAX}, {0, 1, 0, INT64_MAX},  {0, 1, 0, INT64_MAX}};
  auto graph = testing::MakeGraph(events, 1);
  const LodIndex index = BuildLodIndex(*graph);
  for (uint32_t r = 0; r < index.row_count(); ++r) {
    const LodRow row = index.row(r);
    const std::vector<EventId> row_events = RowEvents(*graph, row.track, row.depth);
    for (int level : {0, 1, 30, 54, 55, 56, 61, 62}) {
      const int shift = level + kTileBucketsLog2;
      // Ends pass INT64_MAX: tiles up to 2^64 hold events.
      const int64_t beyond = shift >= 64 ? 0 : static_cast<int64_t>(UINT64_MAX >> shift);
      for (int64_t k : {FloorShift(INT64_MIN, shift), FloorShift(INT64_MIN, shift) + 1, int64_t{-1},
                        int64_t{0}, FloorShift(INT64_MAX, shift) - 1, FloorShift(INT64_MAX, shift),
                        FloorShift(INT64_MAX, shift) + 1, beyond})
        ExpectSameTile(index.Tile(r, level, k).value(),
                       BruteForceTile(graph->events, row_events, level, k),
                       "row " + std::to_string(r) + " level " + std::to_string(level) + " tile " +
                           std::to_string(k));
      // Tiles past the clock hold nothing.
      EXPECT_TRUE(index.Tile(r, level, INT64_MAX)->empty());
      EXPECT_TRUE(index.Tile(r, level, INT64_MIN)->empty() || shift >= 63);
    }
  }
}

TEST(LodIndexTest, RowsAreTrackThenDepthAndHoldEveryTrackEvent) {
  std::mt19937_64 rng(3);
  auto graph = testing::MakeGraph(testing::RandomEvents(rng, 500, 4), 4);
  const LodIndex index = BuildLodIndex(*graph);
  uint64_t total = 0;
  for (uint32_t r = 0; r < index.row_count(); ++r) {
    const LodRow row = index.row(r);
    EXPECT_GT(row.events, 0u);
    EXPECT_EQ(row.events, RowEvents(*graph, row.track, row.depth).size());
    if (r > 0) {
      const LodRow prev = index.row(r - 1);
      EXPECT_TRUE(prev.track < row.track || (prev.track == row.track && prev.depth < row.depth));
    }
    total += row.events;
  }
  EXPECT_EQ(total, graph->track_offsets.back());
}

TEST(LodIndexTest, BadRowOrLevelIsAnError) {
  std::mt19937_64 rng(4);
  auto graph = testing::MakeGraph(testing::RandomEvents(rng, 100, 1), 1);
  const LodIndex index = BuildLodIndex(*graph);
  EXPECT_FALSE(index.Tile(static_cast<uint32_t>(index.row_count()), 0, 0).ok());
  EXPECT_FALSE(index.Tile(0, -1, 0).ok());
  auto too_high = index.Tile(0, kMaxLevel + 1, 0);
  ASSERT_FALSE(too_high.ok());
  EXPECT_NE(too_high.status().message().find("level 63"), std::string::npos);
}

TEST(LodIndexTest, BuildDoesNotDependOnThreads) {
  std::mt19937_64 rng(5);
  std::vector<testing::SyntheticEvent> events = testing::RandomEvents(rng, 5000, 8);
  for (const auto& e : testing::DenseEvents(rng, 5000, 0, 2, 0)) events.push_back(e);
  auto graph = testing::MakeGraph(events, 8);
  std::string parallel = SerializeLodIndex(BuildLodIndex(*graph));
  tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
  EXPECT_EQ(SerializeLodIndex(BuildLodIndex(*graph)), parallel);
}

// Real traces: every row, tiles at random levels around its events.
void CheckRealTrace(const std::string& relative) {
  const std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data absent: real-trace test skipped";
  auto set = LoadTraceSet({data + "/" + relative}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set->traces.size(), 1u);
  const EventGraph& graph = set->traces[0]->graph;
  const LodIndex index = BuildLodIndex(graph);
  EXPECT_EQ(index.indexed_events(), graph.track_offsets.back());
  EXPECT_GT(index.row_count(), 1u);
  std::mt19937_64 rng(11);
  CheckAgainstBruteForce(graph, index, rng, 25);
}

TEST(LodIndexTest, RealKinetoTraceMatchesBruteForce) {
  CheckRealTrace(
      "tracelens/tests/traces/h100/google_owlv2-large-patch14-ensemble__1016001.json.gz");
}

TEST(LodIndexTest, RealXSpaceTraceMatchesBruteForce) {
  CheckRealTrace("xprof/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb");
}

}  // namespace
}  // namespace th::serve
