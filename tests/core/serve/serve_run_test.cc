// Loading a run with the cache: a start whose overview is cached answers
// /runs, meta and the overview's viewports and tiles before the import ends
// (the import is held in `before_import` while the test asks), with the
// bytes a ready run gives; the rest answers 503 meanwhile. An overview
// found by the fast key but of other content is dropped with a warning; a
// damaged one is ignored with a warning and stored again.
#include "core/serve/serve_run.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/serve/serve_api.h"
#include "core/serve/serve_index_cache.h"
#include "core/serve/serve_overview.h"
#include "core/serve/serve_overview_io.h"
#include "core/serve/serve_runs_api.h"
#include "tests/core/serve/serve_fixture.h"
#include "tests/support/test_files.h"

namespace th::serve {
namespace {

// What the API answers for one run (number 0).
struct Answers {
  std::string runs, meta, overview, tile;
  int overview_status = 0, fine_status = 0, event_status = 0, search_status = 0;
};

Answers Ask(const Runs& runs, int64_t end_ns) {
  Answers a;
  a.runs = RunsResponse(runs, {}, {}).body;
  ApiResponse meta = MetaResponse(runs, "0");
  a.meta = meta.status == 200 ? meta.body : "";
  ApiResponse v =
      ViewportResponse(runs, "0", {{"t0", "0"}, {"t1", std::to_string(end_ns)}, {"width", "3840"}});
  a.overview_status = v.status;
  a.overview = v.body;
  const RunOverview* o = runs[0]->overview();
  if (o) {
    const OverviewLevel& top = o->levels.back();
    ApiResponse t = TileResponse(runs, "0",
                                 {{"row", "0"},
                                  {"level", std::to_string(top.level)},
                                  {"tile", std::to_string(top.tiles.front().tile)}},
                                 "");
    a.tile = t.status == 200 ? t.body : "";
  }
  a.fine_status =
      ViewportResponse(runs, "0", {{"t0", "0"}, {"t1", "1000"}, {"width", "3840"}}).status;
  a.event_status = EventResponse(runs, "0", "0").status;
  a.search_status = SearchResponse(runs, "0", {{"q", "kernel"}}).status;
  return a;
}

// Loads `input` as run 0 with the cache; `during` runs before the import.
Runs LoadWith(const std::string& input, const std::string& cache, std::string* note,
              ServeLoadTimes* times, std::function<void(const Runs&)> during = nullptr) {
  Runs runs;
  runs.push_back(std::make_unique<ServeRun>(input, "run"));
  ServeLoadOptions options;
  options.cache_dir = cache;
  if (during) options.before_import = [&] { during(runs); };
  Status s = LoadServeRun(runs[0].get(), options, note, times);
  EXPECT_TRUE(s.ok()) << s.message();
  return runs;
}

TEST(ServeRunTest, ACachedStartAnswersTheOverviewBeforeTheImport) {
  const std::string cache = th::testing::TempDir() + "/run_early";
  std::filesystem::remove_all(cache);
  const std::string input = testing::WriteServeFixture("run_early.json");
  std::string note;
  ServeLoadTimes times;
  Runs cold = LoadWith(input, cache, &note, &times);
  EXPECT_FALSE(times.overview_early);
  EXPECT_EQ(note, "");
  const int64_t end = cold[0]->end_rel_ns();
  const Answers ready = Ask(cold, end);
  Answers early;
  bool asked = false;
  Runs warm = LoadWith(input, cache, &note, &times, [&](const Runs& runs) {
    EXPECT_FALSE(runs[0]->ready());
    early = Ask(runs, end);
    asked = true;
  });
  ASSERT_TRUE(asked);
  EXPECT_TRUE(times.overview_early);
  EXPECT_EQ(note, "");
  EXPECT_NE(early.runs.find("\"ready\":false,\"overview_ready\":true"), std::string::npos)
      << early.runs;
  EXPECT_EQ(early.runs.substr(0, early.runs.find("\"ready\"")),
            ready.runs.substr(0, ready.runs.find("\"ready\"")));
  EXPECT_EQ(early.meta, ready.meta);
  EXPECT_FALSE(ready.meta.empty());
  EXPECT_EQ(early.overview_status, 200);
  EXPECT_EQ(early.overview, ready.overview);
  EXPECT_FALSE(early.tile.empty());
  EXPECT_EQ(early.tile, ready.tile);
  // What the overview does not hold waits for the import.
  EXPECT_EQ(early.fine_status, 503);
  EXPECT_EQ(early.event_status, 503);
  EXPECT_EQ(early.search_status, 503);
  EXPECT_EQ(ready.fine_status, 200);
  const Answers after = Ask(warm, end);
  EXPECT_EQ(after.meta, ready.meta);
  EXPECT_EQ(after.overview, ready.overview);
  EXPECT_EQ(after.runs, ready.runs);
}

TEST(ServeRunTest, AnOverviewOfOtherContentIsDroppedWithAWarning) {
  const std::string cache = th::testing::TempDir() + "/run_mismatch";
  std::filesystem::remove_all(cache);
  const std::string a = testing::WriteServeFixture("run_mismatch_a.json");
  const std::string b = testing::WriteServeFixture("run_mismatch_b.json");
  std::ofstream(b, std::ios::app) << "\n";  // the same events, other bytes
  std::string note;
  ServeLoadTimes times;
  Runs first = LoadWith(a, cache, &note, &times);
  // As if b's fast key found a's entry (b changed in place, same size and time).
  auto fast_a = InputFastKey(a), fast_b = InputFastKey(b);
  ASSERT_TRUE(fast_a.ok() && fast_b.ok());
  ASSERT_NE(*fast_a, *fast_b);
  std::filesystem::copy_file(OverviewCachePath(cache, *fast_a), OverviewCachePath(cache, *fast_b));
  std::string early_key;
  Runs second = LoadWith(b, cache, &note, &times,
                         [&](const Runs& runs) { early_key = runs[0]->overview()->content_key; });
  EXPECT_EQ(early_key, first[0]->content_key());
  EXPECT_NE(second[0]->content_key(), first[0]->content_key());
  EXPECT_NE(note.find("warning: ignoring the cached overview " + OverviewCachePath(cache, *fast_b) +
                      ": it is of other content"),
            std::string::npos)
      << note;
  ASSERT_NE(second[0]->overview(), nullptr);
  EXPECT_EQ(second[0]->overview()->content_key, second[0]->content_key());
  EXPECT_NE(MetaResponse(second, "0").body.find(second[0]->content_key()), std::string::npos);
  // b's entry was stored again, for b.
  note.clear();
  Runs third = LoadWith(b, cache, &note, &times);
  EXPECT_TRUE(times.overview_early);
  EXPECT_EQ(note, "");
  EXPECT_EQ(third[0]->overview()->content_key, second[0]->content_key());
}

TEST(ServeRunTest, ADamagedOverviewIsIgnoredWithAWarningAndStoredAgain) {
  const std::string cache = th::testing::TempDir() + "/run_damaged";
  std::filesystem::remove_all(cache);
  const std::string input = testing::WriteServeFixture("run_damaged.json");
  std::string note;
  ServeLoadTimes times;
  Runs built = LoadWith(input, cache, &note, &times);
  auto fast = InputFastKey(input);
  ASSERT_TRUE(fast.ok());
  const std::string file = OverviewCachePath(cache, *fast);
  std::string bytes = th::testing::ReadFile(file);
  ASSERT_GT(bytes.size(), 100u);
  bytes[bytes.size() / 2] ^= 1;
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  Runs again = LoadWith(input, cache, &note, &times, [&](const Runs& runs) {
    EXPECT_EQ(runs[0]->overview(), nullptr);
    EXPECT_EQ(MetaResponse(runs, "0").status, 503);
  });
  EXPECT_FALSE(times.overview_early);
  EXPECT_NE(note.find("warning: ignoring the cached overview: " + file), std::string::npos) << note;
  EXPECT_EQ(MetaResponse(again, "0").body, MetaResponse(built, "0").body);
  note.clear();
  Runs third = LoadWith(input, cache, &note, &times);
  EXPECT_TRUE(times.overview_early) << "the overview was not stored again";
  EXPECT_EQ(note, "");
}

}  // namespace
}  // namespace th::serve
