// The overview on disk: it reads back as it was written (the same
// responses), and any damage (truncation, trailing bytes, another format, a
// flipped byte) is an error naming the file, never a crash.
#include "core/serve/serve_overview_io.h"

#include <gtest/gtest.h>

#include "core/serve/lod_levels.h"
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

TEST(ServeOverviewIoTest, ReadsBackWhatWasWritten) {
  auto run = Load(testing::WriteServeFixture("overview_io.json"));
  const RunOverview& built = *run->overview();
  const std::string bytes = SerializeOverview(built);
  auto read = DeserializeOverview(bytes, "f.thov");
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->content_key, built.content_key);
  EXPECT_EQ(read->events, built.events);
  EXPECT_EQ(read->origin_ns, built.origin_ns);
  EXPECT_EQ(read->end_rel_ns, built.end_rel_ns);
  EXPECT_EQ(read->meta_tail, built.meta_tail);
  ASSERT_EQ(read->levels.size(), built.levels.size());
  std::vector<uint32_t> all(built.row_count);
  for (uint32_t r = 0; r < all.size(); ++r) all[r] = r;
  for (size_t k = 0; k < built.levels.size(); ++k) {
    const OverviewLevel& a = built.levels[k];
    const OverviewLevel& b = read->levels[k];
    EXPECT_EQ(a.row_first, b.row_first);
    const int shift = a.level + kTileBucketsLog2;
    const int64_t first = FloorShift(built.origin_ns, shift);
    const int64_t last = FloorShift(built.origin_ns + built.end_rel_ns, shift);
    EXPECT_EQ(AssembleThvp(a, all, first, last), AssembleThvp(b, all, first, last));
  }
  EXPECT_EQ(SerializeOverview(*read), bytes);
}

TEST(ServeOverviewIoTest, DamagedBytesAreAnErrorNamingTheFile) {
  auto run = Load(testing::WriteServeFixture("overview_io_damaged.json"));
  const std::string bytes = SerializeOverview(*run->overview());
  ASSERT_GT(bytes.size(), 200u);
  std::string other_version = bytes;
  other_version[8] = 9;
  std::vector<std::string> damaged = {bytes.substr(0, bytes.size() / 2), bytes + "x", "",
                                      "not an overview", other_version};
  for (size_t at = 32; at < bytes.size(); at += bytes.size() / 50) {
    std::string flipped = bytes;
    flipped[at] ^= 0x5a;
    damaged.push_back(flipped);
  }
  for (const std::string& d : damaged) {
    auto read = DeserializeOverview(d, "cache/f.thov");
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.status().message().find("cache/f.thov"), std::string::npos)
        << read.status().message();
  }
}

TEST(ServeOverviewIoTest, AMissingFileIsNotFound) {
  auto read = ReadCachedOverview(th::testing::TempDir() + "/no_such_cache", "00");
  EXPECT_EQ(read.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace th::serve
