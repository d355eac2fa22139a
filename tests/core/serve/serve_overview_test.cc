// The encoded overview: every viewport and tile at a level it holds,
// assembled from it, is byte for byte what EncodeThvp computes from the
// index (the whole trace, random windows, some rows in another order, and
// every tile of every row), on the generated fixture and real traces; and
// so is the overview read back from its cache file.
#include "core/serve/serve_overview.h"

#include <gtest/gtest.h>

#include <random>

#include "core/serve/lod_levels.h"
#include "core/serve/lod_viewport.h"
#include "core/serve/serve_binary.h"
#include "core/serve/serve_overview_io.h"
#include "tests/core/serve/serve_fixture.h"
#include "tests/support/test_files.h"

namespace th::serve {
namespace {

std::unique_ptr<ServeRun> Load(const std::string& input) {
  auto run = std::make_unique<ServeRun>(input, "run");
  std::string note;
  Status s = LoadServeRun(run.get(), {}, &note);
  EXPECT_TRUE(s.ok()) << s.message();
  return run;
}

// The viewport of [t0, t1) at `width`, assembled and computed, when its
// level is held; false when it is not.
bool ExpectSameViewport(const ServeRun& run, std::span<const uint32_t> rows, int64_t t0, int64_t t1,
                        int64_t width) {
  const int level = ViewportLevel(static_cast<Int128>(t1) - t0, width);
  const OverviewLevel* held = run.overview()->Level(level);
  if (!held) return false;
  auto v = Viewport(run.index(), rows, t0, t1, width);
  EXPECT_TRUE(v.ok());
  const std::string assembled = AssembleThvp(*held, rows, FloorShift(t0, level + kTileBucketsLog2),
                                             FloorShift(t1 - 1, level + kTileBucketsLog2));
  EXPECT_EQ(assembled, EncodeThvp(run, *v))
      << "level " << level << ", [" << t0 << ", " << t1 << ") at " << width << " px";
  return true;
}

void CheckOverview(const ServeRun& run) {
  ASSERT_NE(run.overview(), nullptr);
  const RunOverview& o = *run.overview();
  ASSERT_FALSE(o.levels.empty());
  EXPECT_EQ(o.row_count, run.index().row_count());
  const int64_t origin = run.origin_ns(), end = origin + run.end_rel_ns() + 1;
  std::vector<uint32_t> all(run.index().row_count());
  for (uint32_t r = 0; r < all.size(); ++r) all[r] = r;
  std::vector<uint32_t> some;
  for (uint32_t r = static_cast<uint32_t>(all.size()); r-- > 0;)
    if (r % 3 != 1) some.push_back(r);
  // The whole-trace view at 3,840 px is held.
  EXPECT_TRUE(ExpectSameViewport(run, all, origin, end, kOverviewWidthPx));
  std::mt19937_64 rng(5);
  for (const OverviewLevel& l : o.levels) {
    // The whole trace at a width that picks this level, then random windows.
    const int64_t width = std::clamp<int64_t>((end - origin) >> l.level, 1, kMaxViewportWidth);
    ExpectSameViewport(run, all, origin, end, width);
    for (int q = 0; q < 10; ++q) {
      const int64_t span =
          (int64_t{kTileBuckets} << l.level) * (1 + static_cast<int64_t>(rng() % 8));
      const int64_t t0 = origin - span / 2 + static_cast<int64_t>(rng() % uint64_t(end - origin));
      ExpectSameViewport(run, q % 2 ? all : some, t0, t0 + span,
                         std::max<int64_t>(1, span >> l.level));
    }
    // Every tile of every row, and one on each side.
    const int shift = l.level + kTileBucketsLog2;
    for (uint32_t r = 0; r < all.size(); ++r) {
      const uint32_t one[] = {r};
      for (int64_t k = FloorShift(origin, shift) - 1; k <= FloorShift(end, shift) + 1; ++k) {
        auto tile = run.index().Tile(r, l.level, k);
        ASSERT_TRUE(tile.ok());
        EXPECT_EQ(AssembleThvp(l, one, k, k),
                  EncodeThvp(run, TileViewport(r, l.level, k, std::move(*tile))))
            << "row " << r << ", level " << l.level << ", tile " << k;
      }
    }
    if (::testing::Test::HasFailure()) return;
  }
  // As read back from its cache file: the same answers.
  auto read = DeserializeOverview(SerializeOverview(o), "overview.thov");
  ASSERT_TRUE(read.ok()) << read.status().message();
  ASSERT_EQ(read->levels.size(), o.levels.size());
  for (size_t k = 0; k < o.levels.size(); ++k) {
    const int shift = o.levels[k].level + kTileBucketsLog2;
    const int64_t first = FloorShift(origin, shift), last = FloorShift(end, shift);
    EXPECT_EQ(AssembleThvp(read->levels[k], all, first, last),
              AssembleThvp(o.levels[k], all, first, last));
  }
}

TEST(ServeOverviewTest, GeneratedFixtureAssemblesWhatTheIndexComputes) {
  auto run = Load(testing::WriteServeFixture("overview_fixture.json"));
  CheckOverview(*run);
}

TEST(ServeOverviewTest, RealTracesAssembleWhatTheIndexComputes) {
  const std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data absent: real-trace test skipped";
  for (const char* trace : {"hta/tests/data/trace_diff/control/control.json.gz",
                            "xprof/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb"}) {
    SCOPED_TRACE(trace);
    auto run = Load(data + "/" + trace);
    CheckOverview(*run);
  }
}

}  // namespace
}  // namespace th::serve
