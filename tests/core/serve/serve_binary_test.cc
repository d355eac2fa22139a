// THVP encoding: the busy level byte at its boundaries, and the exact bytes
// of a tile's bucket section (map, varint counts, busy levels).
#include "core/serve/serve_binary.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/core/serve/serve_fixture.h"

namespace th::serve {
namespace {

TEST(ThvpBusyLevelTest, BoundariesOfEachLevel) {
  // Level 8: buckets of 256 ns; q = 1 + floor(254 * busy / 256) below 256.
  EXPECT_EQ(ThvpBusyLevel(0, 8), 0);
  EXPECT_EQ(ThvpBusyLevel(-5, 8), 0);
  EXPECT_EQ(ThvpBusyLevel(1, 8), 1);
  EXPECT_EQ(ThvpBusyLevel(2, 8), 2);  // 254 * 2 / 256 = 1.98
  EXPECT_EQ(ThvpBusyLevel(128, 8), 128);
  EXPECT_EQ(ThvpBusyLevel(255, 8), 254);
  EXPECT_EQ(ThvpBusyLevel(256, 8), kThvpBusyFull);
  EXPECT_EQ(ThvpBusyLevel(1000, 8), kThvpBusyFull);  // overlapping events
  // Level 0: one ns buckets: busy or not.
  EXPECT_EQ(ThvpBusyLevel(1, 0), kThvpBusyFull);
  // The widest level: no overflow, and the range still holds busy.
  const int64_t w = int64_t{1} << 62;
  EXPECT_EQ(ThvpBusyLevel(w - 1, 62), 254);
  EXPECT_EQ(ThvpBusyLevel(w / 2, 62), 128);
  EXPECT_EQ(ThvpBusyLevel(INT64_MAX, 62), kThvpBusyFull);
  EXPECT_EQ(ThvpBusyLevel(1, 62), 1);
  for (int level : {3, 20, 40}) {
    const int64_t width = int64_t{1} << level;
    for (int64_t busy = 1; busy < width; busy += width / 7 + 1) {
      const int q = ThvpBusyLevel(busy, level);
      ASSERT_GE(q, 1);
      ASSERT_LE(q, 254);
      // busy lies in [(q - 1) * w / 254, q * w / 254).
      EXPECT_LE(static_cast<__int128>(q - 1) * width, static_cast<__int128>(busy) * 254);
      EXPECT_GT(static_cast<__int128>(q) * width, static_cast<__int128>(busy) * 254);
    }
  }
}

TEST(ThvpTileTest, BucketSectionBytes) {
  ServeRun run(testing::WriteServeFixture("serve_binary_test.json"), "run");
  std::string note;
  ASSERT_TRUE(LoadServeRun(&run, {}, &note).ok());
  ViewportTile t;
  t.row = 2;
  t.tile = -3;
  t.data.buckets = {{0, 1, 64}, {9, 200, 300}, {255, 0, 7}};  // level 8: 256 ns buckets
  const std::string bytes = EncodeThvpTile(run, t, 8, {});
  std::string want;
  auto u32 = [&](uint32_t v) { want.append(reinterpret_cast<const char*>(&v), 4); };
  u32(2);                   // row
  u32(0);                   // drawn
  u32(3);                   // buckets
  u32(32 + 1 + 2 + 1 + 3);  // map, counts 1 / 200 (two bytes) / 0, three levels
  const int64_t tile = -3;
  want.append(reinterpret_cast<const char*>(&tile), 8);
  std::string map(32, '\0');
  map[0] = 0x01;                      // bucket 0
  map[1] = 0x02;                      // bucket 9
  map[31] = static_cast<char>(0x80);  // bucket 255
  want += map;
  want += std::string("\x01\xc8\x01\x00", 4);  // counts 1, 200, 0
  want += std::string("\x40\xff\x07", 3);      // 1 + 254 * 64 / 256 = 64; 300 >= 256; 1 + 6
  EXPECT_EQ(bytes, want);
}

}  // namespace
}  // namespace th::serve
