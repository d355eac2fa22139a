// The on-disk index cache: a first load builds and stores the index, a
// second reads it (same tiles), a corrupt file is ignored with a warning and
// rebuilt, and the key follows the content, not the path.
#include "core/serve/serve_index_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/serve/serve_run.h"
#include "tests/core/serve/serve_fixture.h"
#include "tests/support/test_files.h"

namespace th::serve {
namespace {

std::unique_ptr<ServeRun> Load(const std::string& input, const std::string& cache,
                               std::string* note) {
  auto run = std::make_unique<ServeRun>(input, "run");
  Status s = LoadServeRun(run.get(), {cache}, note);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(run->ready());
  return run;
}

void ExpectSameTiles(const ServeRun& a, const ServeRun& b) {
  ASSERT_EQ(a.index().row_count(), b.index().row_count());
  for (uint32_t r = 0; r < a.index().row_count(); ++r) {
    for (int level : {0, 6, 12, 20}) {
      const int64_t first = a.index().row_index(r).first_start >> (level + 8);
      for (int64_t k = first; k < first + 3; ++k) {
        auto x = a.index().Tile(r, level, k);
        auto y = b.index().Tile(r, level, k);
        ASSERT_TRUE(x.ok() && y.ok());
        EXPECT_EQ(x->drawn, y->drawn);
        EXPECT_EQ(x->buckets, y->buckets);
      }
    }
  }
}

TEST(ServeIndexCacheTest, ReopeningReadsTheCachedIndex) {
  const std::string cache = th::testing::TempDir() + "/cache_reopen";
  const std::string input = testing::WriteServeFixture("cache_reopen.json");
  std::string note;
  auto built = Load(input, cache, &note);
  EXPECT_FALSE(built->index_from_cache());
  EXPECT_EQ(note, "");
  const std::string file = IndexCachePath(cache, built->content_key());
  ASSERT_TRUE(std::filesystem::exists(file));
  for (const auto& entry : std::filesystem::directory_iterator(cache)) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(entry.path().string() == file || name.starts_with("overview-"))
        << "a temporary file was left behind: " << name;
  }
  auto cached = Load(input, cache, &note);
  EXPECT_TRUE(cached->index_from_cache());
  EXPECT_EQ(note, "");
  ExpectSameTiles(*built, *cached);
}

TEST(ServeIndexCacheTest, CorruptFileIsIgnoredWithAWarningAndRebuilt) {
  const std::string cache = th::testing::TempDir() + "/cache_corrupt";
  const std::string input = testing::WriteServeFixture("cache_corrupt.json");
  std::string note;
  auto built = Load(input, cache, &note);
  const std::string file = IndexCachePath(cache, built->content_key());
  std::string bytes = th::testing::ReadFile(file);
  ASSERT_GT(bytes.size(), 100u);
  for (const std::string& damaged :
       {bytes.substr(0, bytes.size() / 2), bytes + "x", std::string("not an index"),
        bytes.substr(0, 60) + std::string(bytes.size() - 60, '\7')}) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << damaged;
    note.clear();
    auto rebuilt = Load(input, cache, &note);
    EXPECT_FALSE(rebuilt->index_from_cache());
    EXPECT_NE(note.find("warning: ignoring the cached index: " + file), std::string::npos) << note;
    ExpectSameTiles(*built, *rebuilt);
    note.clear();
    auto again = Load(input, cache, &note);
    EXPECT_TRUE(again->index_from_cache()) << "the rebuilt index was not stored";
    EXPECT_EQ(note, "");
  }
}

TEST(ServeIndexCacheTest, KeyFollowsTheContentNotThePath) {
  const std::string a = testing::WriteServeFixture("key_a.json");
  const std::string b = testing::WriteServeFixture("key_b.json");
  auto ka = InputContentKey(a);
  auto kb = InputContentKey(b);
  ASSERT_TRUE(ka.ok() && kb.ok());
  EXPECT_EQ(*ka, *kb);
  EXPECT_EQ(ka->size(), 32u);
  std::ofstream(b, std::ios::app) << " ";
  auto changed = InputContentKey(b);
  ASSERT_TRUE(changed.ok());
  EXPECT_NE(*changed, *ka);
  auto missing = InputContentKey(th::testing::TempDir() + "/no_such_trace.json");
  EXPECT_FALSE(missing.ok());
}

TEST(ServeIndexCacheTest, UnwritableCacheIsAWarningNotAFailure) {
  const std::string blocker = th::testing::WriteTempFile("cache_blocker", "a file, not a folder");
  const std::string input = testing::WriteServeFixture("cache_unwritable.json");
  std::string note;
  auto run = Load(input, blocker + "/sub", &note);
  EXPECT_FALSE(run->index_from_cache());
  EXPECT_NE(note.find("warning: index not cached"), std::string::npos) << note;
}

TEST(ServeIndexCacheTest, DefaultFolderFollowsXdg) {
  const char* old = std::getenv("XDG_CACHE_HOME");
  const std::string saved = old ? old : "";
  setenv("XDG_CACHE_HOME", "/tmp/xdg-here", 1);
  EXPECT_EQ(DefaultIndexCacheDir(), "/tmp/xdg-here/tracehound");
  unsetenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  if (home && *home) {
    EXPECT_EQ(DefaultIndexCacheDir(), std::string(home) + "/.cache/tracehound");
  }
  if (old) setenv("XDG_CACHE_HOME", saved.c_str(), 1);
}

TEST(ServeIndexCacheTest, FastKeyFollowsTheFileNotItsName) {
  const std::string a = testing::WriteServeFixture("fast_key_a.json");
  auto first = InputFastKey(a), again = InputFastKey(a);
  ASSERT_TRUE(first.ok() && again.ok());
  EXPECT_EQ(first->size(), 32u);
  EXPECT_EQ(*first, *again);
  // A copy is another inode: another fast key (its content key is the same).
  const std::string b = a + ".copy";
  std::filesystem::copy_file(a, b, std::filesystem::copy_options::overwrite_existing);
  auto copy = InputFastKey(b), copy_content = InputContentKey(b), content = InputContentKey(a);
  ASSERT_TRUE(copy.ok() && copy_content.ok() && content.ok());
  EXPECT_NE(*copy, *first);
  EXPECT_EQ(*copy_content, *content);
  // Rewritten in place: another size and time.
  std::ofstream(a, std::ios::app) << "\n";
  auto changed = InputFastKey(a);
  ASSERT_TRUE(changed.ok());
  EXPECT_NE(*changed, *first);
  EXPECT_FALSE(InputFastKey(th::testing::TempDir() + "/no_such_trace.json").ok());
}

}  // namespace
}  // namespace th::serve
