// Viewport: level choice, tiles covering the window, totals against brute
// force (events overlapping the tiles' span, less narrow ones that start
// before it), and refused parameters.
#include "core/serve/lod_viewport.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "core/import/trace_loader.h"
#include "core/serve/lod_levels.h"
#include "tests/core/serve/lod_brute_force.h"
#include "tests/core/serve/lod_random_rows.h"
#include "tests/support/test_files.h"

namespace th::serve {
namespace {

TEST(LodViewportTest, LevelIsTheSmallestWhoseBucketsAreAtLeastAPixel) {
  EXPECT_EQ(ViewportLevel(100, 3840), 0);
  EXPECT_EQ(ViewportLevel(3840, 3840), 0);
  EXPECT_EQ(ViewportLevel(3840 + 1, 3840), 1);
  EXPECT_EQ(ViewportLevel(2 * 3840, 3840), 1);
  EXPECT_EQ(ViewportLevel(2 * 3840 + 1, 3840), 2);
  EXPECT_EQ(ViewportLevel(int64_t{1000000000} * 3840, 3840), 30);  // 1 s per pixel: 2^30 ns buckets
  EXPECT_EQ(ViewportLevel(int64_t{1} << 40, 1), 40);
  EXPECT_EQ(ViewportLevel((int64_t{1} << 40) + 1, 1), 41);
  EXPECT_EQ(ViewportLevel(static_cast<Int128>(INT64_MAX) * 2, 1), kMaxLevel);
  // Brute force: 2^L * width >= span > 2^(L-1) * width.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 10000; ++i) {
    const int64_t width = 1 + static_cast<int64_t>(rng() % 16384);
    const int64_t span = 1 + static_cast<int64_t>(rng() >> (rng() % 60));
    const int level = ViewportLevel(span, width);
    EXPECT_GE(Pow2(level) * width, static_cast<Int128>(span)) << span << " / " << width;
    if (level > 0) {
      EXPECT_LT(Pow2(level - 1) * width, static_cast<Int128>(span)) << span;
    }
  }
}

// Sum over the viewport = brute force over the tiles' span, per row.
void CheckTotals(const EventGraph& graph, const LodIndex& index, int64_t t0, int64_t t1,
                 int64_t width) {
  std::vector<uint32_t> rows(index.row_count());
  std::iota(rows.begin(), rows.end(), 0u);
  auto v = Viewport(index, rows, t0, t1, width);
  ASSERT_TRUE(v.ok()) << v.status().message();
  const int shift = v->level + kTileBucketsLog2;
  EXPECT_EQ(v->first_tile, FloorShift(t0, shift));
  EXPECT_EQ(v->last_tile, FloorShift(t1 - 1, shift));
  const Int128 span0 = TileStart(v->level, v->first_tile);
  const Int128 span1 = TileStart(v->level, v->last_tile) + Pow2(shift);
  uint64_t want = 0, counted = 0, drawn_entries = 0;
  for (uint32_t r : rows) {
    const LodRow row = index.row(r);
    want += testing::BruteForceInView(graph.events, testing::RowEvents(graph, row.track, row.depth),
                                      v->level, span0, span1);
  }
  for (const ViewportTile& t : v->tiles) {
    EXPECT_FALSE(t.data.empty());
    EXPECT_GE(t.tile, v->first_tile);
    EXPECT_LE(t.tile, v->last_tile);
    for (const LodBucket& b : t.data.buckets) counted += b.count;
    drawn_entries += t.data.drawn.size();
  }
  EXPECT_EQ(v->events_in_view, want) << "window [" << t0 << ", " << t1 << ") level " << v->level;
  EXPECT_EQ(v->events_in_view, counted + v->events_drawn);
  EXPECT_LE(v->events_drawn, drawn_entries);
  EXPECT_EQ(ViewportPayloadBytes(*v) > 0, !v->tiles.empty());
}

TEST(LodViewportTest, TotalsAreEveryEventInTheTilesSpan) {
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<testing::SyntheticEvent> events = testing::RandomEvents(rng, 2000, 3);
    for (const auto& e : testing::DenseEvents(rng, 20000, -3000000, 1, 2)) events.push_back(e);
    auto graph = testing::MakeGraph(events, 3);
    const LodIndex index = BuildLodIndex(*graph);
    SCOPED_TRACE("seed " + std::to_string(seed));
    CheckTotals(*graph, index, INT64_MIN, INT64_MAX, 3840);
    for (int q = 0; q < 20; ++q) {
      const int64_t ts = graph->events.ts[rng() % graph->events.size()];
      const int64_t t0 = std::max(ts, INT64_MIN + 100000) - static_cast<int64_t>(rng() % 100000);
      const int64_t len = 1 + static_cast<int64_t>(rng() >> (1 + rng() % 63));
      const int64_t t1 = t0 > INT64_MAX - len ? INT64_MAX : t0 + len;
      if (t1 <= t0) continue;
      CheckTotals(*graph, index, t0, t1, 1 + static_cast<int64_t>(rng() % 4000));
      if (HasFailure()) return;
    }
  }
}

TEST(LodViewportTest, RealTraceTotalsMatchBruteForce) {
  const std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data absent: real-trace test skipped";
  auto set =
      LoadTraceSet({data + "/hta/tests/data/trace_diff/control/control.json.gz"}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  const EventGraph& graph = set->traces[0]->graph;
  const LodIndex index = BuildLodIndex(graph);
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (size_t e = 0; e < graph.events.size(); ++e) {
    lo = std::min(lo, graph.events.ts[e]);
    hi = std::max(hi, graph.events.ts[e] + std::max<int64_t>(graph.events.dur[e], 1));
  }
  CheckTotals(graph, index, lo, hi, 3840);
  std::mt19937_64 rng(2);
  for (int q = 0; q < 10; ++q) {
    const int64_t t0 = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo));
    CheckTotals(graph, index, t0, t0 + 1 + static_cast<int64_t>(rng() % 5000000), 3840);
  }
}

TEST(LodViewportTest, BadParametersAreErrors) {
  std::mt19937_64 rng(1);
  auto graph = testing::MakeGraph(testing::RandomEvents(rng, 100, 1), 1);
  const LodIndex index = BuildLodIndex(*graph);
  const std::vector<uint32_t> row0 = {0}, unknown = {static_cast<uint32_t>(index.row_count())};
  EXPECT_FALSE(Viewport(index, row0, 10, 10, 100).ok());
  EXPECT_FALSE(Viewport(index, row0, 10, 5, 100).ok());
  EXPECT_FALSE(Viewport(index, row0, 0, 100, 0).ok());
  EXPECT_FALSE(Viewport(index, row0, 0, 100, -5).ok());
  EXPECT_FALSE(Viewport(index, row0, 0, 100, kMaxViewportWidth + 1).ok());
  auto bad_row = Viewport(index, unknown, 0, 100, 100);
  ASSERT_FALSE(bad_row.ok());
  EXPECT_NE(bad_row.status().message().find("no row"), std::string::npos);
  // The widest window at the widest width is fine: fewer than 2 * width
  // buckets (2^L <= span / width), so at most 2 * width / 256 + 1 tiles a row.
  auto widest = Viewport(index, row0, INT64_MIN, INT64_MAX, kMaxViewportWidth);
  ASSERT_TRUE(widest.ok());
  EXPECT_LE(widest->last_tile - widest->first_tile + 1, 2 * kMaxViewportWidth / kTileBuckets + 1);
}

}  // namespace
}  // namespace th::serve
