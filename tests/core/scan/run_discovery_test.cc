#include "core/scan/run_discovery.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/test_files.h"

namespace th::scan {
namespace {

using th::testing::TempDir;
using th::testing::WriteTempFile;

std::vector<std::string> Locations(const std::vector<Run>& runs) {
  std::vector<std::string> out;
  for (const scan::Run& r : runs) out.push_back(r.location);
  return out;
}

TEST(DiscoverRunsTest, GroupsRankFilesXPlanesAndArchivesIntoSortedRuns) {
  const std::string d = TempDir() + "/disc";
  for (const char* f :
       {"disc/job1/rank1.pt.trace.json.gz", "disc/job1/rank0.pt.trace.json.gz",
        "disc/job1/notes.txt", "disc/job2/sampled_rank-0.json", "disc/job2/sampled_rank-1.json",
        "disc/job2/eval_worker0.json", "disc/models/bert.json.gz", "disc/models/owl.json.gz",
        "disc/jax/h0.xplane.pb", "disc/jax/h1.xplane.pb", "disc/jax/h0.trace.json.gz",
        "disc/dlrm.tar.gz"}) {
    WriteTempFile(f, "x");
  }
  auto runs = DiscoverRuns({d});
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  EXPECT_EQ(Locations(*runs),
            (std::vector<std::string>{d + "/dlrm.tar.gz", d + "/jax/*.xplane.pb", d + "/job1/rank*",
                                      d + "/job2/eval_worker*", d + "/job2/sampled_rank*",
                                      d + "/models/bert.json.gz", d + "/models/owl.json.gz"}));
  const scan::Run& job1 = (*runs)[2];
  ASSERT_EQ(job1.files.size(), 2u);
  EXPECT_EQ(job1.files[0].path, d + "/job1/rank0.pt.trace.json.gz");
  EXPECT_EQ(job1.files[1].path, d + "/job1/rank1.pt.trace.json.gz");
  EXPECT_EQ(job1.bytes, 2u);
  // Named by location: a run alone in its folder by the folder, an archive
  // or a run sharing its folder by its path, relative to the fleet's folder.
  std::vector<std::string> names;
  for (const scan::Run& r : *runs) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"dlrm.tar.gz", "jax", "job1", "job2/eval_worker*",
                                             "job2/sampled_rank*", "models/bert.json.gz",
                                             "models/owl.json.gz"}));
  // The JAX JSON copy beside its .xplane.pb is not a second rank.
  EXPECT_EQ((*runs)[1].files.size(), 2u);
}

TEST(DiscoverRunsTest, RunsSharingAFileNameInDifferentFoldersGetDifferentNames) {
  const std::string d = TempDir() + "/disc3";
  // Every job writes the same file name; they were all "trace.json".
  for (const char* f : {"disc3/team-a/job7/trace.json", "disc3/team-b/job7/trace.json",
                        "disc3/team-b/job8/trace.json", "disc3/team-b/job8/ckpt.tar.gz"})
    WriteTempFile(f, "x");
  auto runs = DiscoverRuns({d});
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  std::vector<std::string> names;
  for (const scan::Run& r : *runs) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"team-a/job7", "team-b/job7",
                                             "team-b/job8/ckpt.tar.gz", "team-b/job8/trace.json"}));
  // One run alone: named by its folder.
  auto one = DiscoverRuns({d + "/team-a/job7/trace.json"});
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].name, "job7");
}

TEST(DiscoverRunsTest, RelativeInputsInTheWorkingFolderAreNamed) {
  WriteTempFile("disc4/x.json", "x");
  WriteTempFile("disc4/y/rank0.json", "x");
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::filesystem::current_path(TempDir() + "/disc4");
  auto one = DiscoverRuns({"x.json"});
  auto two = DiscoverRuns({"x.json", "y"});
  auto dot = DiscoverRuns({"."});
  std::filesystem::current_path(cwd);
  ASSERT_TRUE(one.ok() && two.ok() && dot.ok());
  EXPECT_EQ((*one)[0].name, "x.json");
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].name, "x.json");
  EXPECT_EQ((*two)[1].name, "y");
  ASSERT_EQ(dot->size(), 2u);
  EXPECT_EQ((*dot)[0].location, "x.json");
  EXPECT_EQ((*dot)[0].name, "x.json");
  EXPECT_EQ((*dot)[1].name, "y");
}

TEST(DiscoverRunsTest, SameListWhateverTheInputOrderAndRepeats) {
  const std::string d = TempDir() + "/disc2";
  WriteTempFile("disc2/a/rank0.json", "x");
  WriteTempFile("disc2/a/rank1.json", "x");
  WriteTempFile("disc2/b.json", "x");
  auto one = DiscoverRuns({d + "/a", d + "/b.json"});
  auto two = DiscoverRuns({d + "/b.json", d + "/a/rank1.json", d + "/a", d + "/a/*.json"});
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_EQ(Locations(*one), Locations(*two));
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].files.size(), 2u);
}

TEST(DiscoverRunsTest, MissingInputIsNamed) {
  auto runs = DiscoverRuns({TempDir() + "/no-such-dir"});
  ASSERT_FALSE(runs.ok());
  EXPECT_NE(runs.status().message().find("no-such-dir"), std::string::npos);
}

}  // namespace
}  // namespace th::scan
