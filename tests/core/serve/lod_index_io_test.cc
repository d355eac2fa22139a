// The index as bytes: round trip, and every kind of bad input refused with an
// error that names the source (never a crash).
#include "core/serve/lod_index_io.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "core/serve/lod_levels.h"
#include "tests/core/serve/lod_brute_force.h"
#include "tests/core/serve/lod_random_rows.h"

namespace th::serve {
namespace {

std::unique_ptr<EventGraph> Graph(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<testing::SyntheticEvent> events = testing::RandomEvents(rng, 3000, 3);
  for (const auto& e : testing::DenseEvents(rng, 5000, 1000, 1, 1)) events.push_back(e);
  return testing::MakeGraph(events, 3);
}

void ExpectRefused(std::string_view bytes, const EventGraph& graph, const std::string& needle) {
  auto got = DeserializeLodIndex(bytes, graph, "cache/abc.lod");
  ASSERT_FALSE(got.ok()) << "accepted; expected: " << needle;
  EXPECT_NE(got.status().message().find("cache/abc.lod"), std::string::npos)
      << got.status().message();
  EXPECT_NE(got.status().message().find(needle), std::string::npos) << got.status().message();
}

TEST(LodIndexIoTest, RoundTripGivesTheSameTiles) {
  auto graph = Graph(1);
  const LodIndex built = BuildLodIndex(*graph);
  const std::string bytes = SerializeLodIndex(built);
  auto loaded = DeserializeLodIndex(bytes, *graph, "mem");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(SerializeLodIndex(*loaded), bytes);
  ASSERT_EQ(loaded->row_count(), built.row_count());
  std::mt19937_64 rng(9);
  for (int q = 0; q < 500; ++q) {
    const uint32_t r = static_cast<uint32_t>(rng() % built.row_count());
    const int level = static_cast<int>(rng() % (kMaxLevel + 1));
    const int64_t ts = graph->events.ts[built.row_index(r).order[rng() % built.row(r).events]];
    const int64_t k = FloorShift(ts, level + kTileBucketsLog2);
    const LodTile a = built.Tile(r, level, k).value(), b = loaded->Tile(r, level, k).value();
    EXPECT_EQ(a.drawn, b.drawn);
    EXPECT_EQ(a.buckets, b.buckets);
  }
}

TEST(LodIndexIoTest, EmptyGraphRoundTrips) {
  auto graph = testing::MakeGraph({}, 0);
  const std::string bytes = SerializeLodIndex(BuildLodIndex(*graph));
  auto loaded = DeserializeLodIndex(bytes, *graph, "mem");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->row_count(), 0u);
}

TEST(LodIndexIoTest, RefusesOtherBytesVersionsAndGraphs) {
  auto graph = Graph(2);
  const std::string bytes = SerializeLodIndex(BuildLodIndex(*graph));
  ExpectRefused("", *graph, "not a tracehound level-of-detail index");
  ExpectRefused("{\"traceEvents\": []}", *graph, "not a tracehound level-of-detail index");
  std::string version = bytes;
  version[8] = 7;
  ExpectRefused(version, *graph, "version 7");
  auto other = Graph(3);
  other->events.ts.push_back(0);  // one event more
  ExpectRefused(bytes, *other, "built for a graph of");
}

TEST(LodIndexIoTest, RefusesTruncatedTrailingAndCorruptBytes) {
  auto graph = Graph(4);
  const std::string bytes = SerializeLodIndex(BuildLodIndex(*graph));
  for (size_t keep :
       {size_t{9}, size_t{20}, size_t{47}, size_t{48}, bytes.size() / 2, bytes.size() - 1})
    ExpectRefused(std::string_view(bytes).substr(0, keep), *graph, "truncated");
  ExpectRefused(bytes + "x", *graph, "trailing bytes");
  std::mt19937_64 rng(5);
  for (int i = 0; i < 50; ++i) {
    std::string corrupt = bytes;
    corrupt[48 + rng() % (bytes.size() - 48)] ^= static_cast<char>(1 + rng() % 255);
    ExpectRefused(corrupt, *graph, "checksum");
  }
}

// Damage behind a valid checksum (a writer's bug, not a disk's) is caught by
// the range checks.
TEST(LodIndexIoTest, RefusesOutOfRangeValuesBehindAValidChecksum) {
  auto graph = Graph(6);
  const std::string bytes = SerializeLodIndex(BuildLodIndex(*graph));
  auto reseal = [](std::string b) {
    const uint64_t sum = LodChecksum(std::string_view(b).substr(48));
    std::memcpy(b.data() + 40, &sum, 8);
    return b;
  };
  // Row 0: track at 48, event ids from 48 + 32.
  std::string bad_track = bytes;
  const uint32_t track = 99;
  std::memcpy(bad_track.data() + 48, &track, 4);
  ExpectRefused(reseal(bad_track), *graph, "track 99 not in the trace");
  std::string bad_id = bytes;
  const uint32_t id = 0xfffffff0u;
  std::memcpy(bad_id.data() + 48 + 32, &id, 4);
  ExpectRefused(reseal(bad_id), *graph, "event id out of range");
  std::string swapped = bytes;  // the first two events of row 0 swapped, classes too
  uint32_t n = 0;
  std::memcpy(&n, bytes.data() + 48 + 8, 4);
  std::memcpy(swapped.data() + 48 + 32, bytes.data() + 48 + 36, 4);
  std::memcpy(swapped.data() + 48 + 36, bytes.data() + 48 + 32, 4);
  std::swap(swapped[48 + 32 + 4 * n], swapped[48 + 32 + 4 * n + 1]);
  ExpectRefused(reseal(swapped), *graph, "out of time order");
  std::string bad_tree = bytes;
  bad_tree[48 + 12] ^= 0x40;  // tree leaves
  ExpectRefused(reseal(bad_tree), *graph, "tree size");
  // Fuzz the payload behind a valid checksum: errors or indexes, never a crash.
  std::mt19937_64 rng(8);
  for (int i = 0; i < 300; ++i) {
    std::string b = bytes;
    for (int k = 0; k < 4; ++k) b[48 + rng() % (b.size() - 48)] = static_cast<char>(rng());
    auto got = DeserializeLodIndex(reseal(b), *graph, "fuzz");
    if (!got.ok()) continue;
    for (uint32_t r = 0; r < got->row_count(); ++r)
      (void)got->Tile(r, static_cast<int>(rng() % 63), 0);
  }
}

}  // namespace
}  // namespace th::serve
