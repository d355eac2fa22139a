// The runs `tracehound serve` lists, grouped as scan groups them: an INPUT
// that is one run keeps its path and name; an INPUT of several runs gives a
// folder of rank files one run (its pattern, which imports all its ranks as
// one) and any other trace its own; the summaries say what the files tell.
#include "cli/serve_runs.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/serve/serve_run.h"
#include "tests/core/serve/serve_fixture.h"
#include "tests/support/test_files.h"
#include "tests/support/xspace_fixture.h"

namespace th::cli {
namespace {

namespace fs = std::filesystem;

TEST(ServeRunsTest, GroupsRanksIntoOneRunAndKeepsOtherTracesApart) {
  const std::string root = th::testing::TempDir() + "/serve_runs";
  fs::create_directories(root + "/exp1/job");
  fs::create_directories(root + "/exp2");
  const std::string trace = serve::testing::WriteServeFixture("serve_runs_fixture.json");
  fs::copy_file(trace, root + "/exp1/job/rank0.json", fs::copy_options::overwrite_existing);
  fs::copy_file(trace, root + "/exp1/job/rank1.json", fs::copy_options::overwrite_existing);
  fs::copy_file(trace, root + "/exp2/single.json", fs::copy_options::overwrite_existing);

  auto runs = DiscoverServeRuns({root, trace});
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs->size(), 3u);
  const ServeRunSpec& ranks = (*runs)[0];
  EXPECT_EQ(ranks.input, root + "/exp1/job/rank*");
  // Named as scan names runs: by the location (a run alone in its folder: the
  // folder), relative to the deepest folder holding every run.
  EXPECT_EQ(ranks.name, "exp1/job");
  EXPECT_EQ(ranks.summary.ranks, 2);
  EXPECT_EQ(ranks.summary.tags, (std::vector<std::string>{"serve_runs", "exp1", "job"}));
  EXPECT_EQ(ranks.summary.source, "files");
  EXPECT_EQ(ranks.summary.time_kind, "modified");
  EXPECT_TRUE(ranks.summary.time_ns.has_value());
  const ServeRunSpec& single = (*runs)[1];
  EXPECT_EQ(single.input, root + "/exp2/single.json");
  EXPECT_EQ(single.name, "exp2");
  EXPECT_EQ(single.summary.ranks, 1);
  EXPECT_EQ(single.summary.tags, (std::vector<std::string>{"serve_runs", "exp2"}));
  // The second INPUT is one run: imported as given, named by its file.
  EXPECT_EQ((*runs)[2].input, trace);
  EXPECT_EQ((*runs)[2].name, "serve_runs_fixture.json");

  // The pattern imports both ranks as one run.
  serve::ServeRun run(ranks.input, ranks.name);
  std::string note;
  Status loaded = serve::LoadServeRun(&run, {}, &note);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  EXPECT_EQ(run.ranks().size(), 2u);

  auto missing = DiscoverServeRuns({root + "/nothing_here"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("nothing_here"), std::string::npos);
}

// The hosts of an XProf session (.xplane.pb files of one folder) are one run
// of all its hosts.
TEST(ServeRunsTest, TheHostsOfAnXprofSessionAreOneRun) {
  const std::string root = th::testing::TempDir() + "/serve_runs_xprof";
  fs::create_directories(root + "/session");
  for (int host = 0; host < 2; ++host) {
    th::testing::XSpaceBuilder b;
    auto* gpu = b.AddPlane(1, "/device:GPU:0");
    auto* stream = b.AddLine(gpu, 1, "Stream #1(Kernel)", 1000);
    b.AddEvent(gpu, stream, "fusion_1", 0, 1000000);
    ASSERT_TRUE(b.WriteTo(root + "/session/host" + std::to_string(host) + ".xplane.pb"));
  }
  const std::string trace = serve::testing::WriteServeFixture("serve_runs_xprof_other.json");
  fs::copy_file(trace, root + "/other.json", fs::copy_options::overwrite_existing);
  auto runs = DiscoverServeRuns({root});
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs->size(), 2u);
  const ServeRunSpec& session = (*runs)[1];
  EXPECT_EQ(session.input, root + "/session/*.xplane.pb");
  EXPECT_EQ(session.name, "session");
  EXPECT_EQ(session.summary.ranks, 2);
  serve::ServeRun run(session.input, session.name);
  std::string note;
  Status loaded = serve::LoadServeRun(&run, {}, &note);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  EXPECT_EQ(run.ranks().size(), 2u);
}

// A run tracehound.capture wrote: the manifests beside its traces give the
// run's capture time (the earliest start), hosts and tags.
TEST(ServeRunsTest, CaptureManifestsGiveTimeHostsAndTags) {
  const std::string root = th::testing::TempDir() + "/serve_runs_manifest/run";
  fs::create_directories(root);
  const std::string trace = R"([{"name": "ProfilerStep#0", "ph": "X", "ts": 5, "dur": 9,
      "tid": 1, "pid": "CPU functions", "args": {}}])";
  for (int rank = 0; rank < 2; ++rank) {
    th::testing::WriteTempFile(
        "serve_runs_manifest/run/rank" + std::to_string(rank) + ".trace.json", trace);
    th::testing::WriteTempFile(
        "serve_runs_manifest/run/rank" + std::to_string(rank) + ".tracehound-manifest.json",
        R"({"tracehound_manifest": 1, "rank": )" + std::to_string(rank) + R"(, "host": "node-)" +
            std::to_string(rank) + R"(", "start_time_ns": )" +
            std::to_string(1796290477358502435 - rank) + R"(, "tags": {"model": "mlp"}})");
  }
  auto runs = DiscoverServeRuns({root});
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs->size(), 1u);
  const serve::RunSummary& s = (*runs)[0].summary;
  EXPECT_EQ(s.ranks, 2);  // the manifests are no traces
  EXPECT_EQ(s.time_kind, "captured");
  EXPECT_EQ(s.time_ns, 1796290477358502434);
  EXPECT_EQ(s.host, "node-0,node-1");
  EXPECT_EQ(s.tags, (std::vector<std::string>{"run", "model=mlp"}));
}

}  // namespace
}  // namespace th::cli
