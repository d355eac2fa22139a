// The dispatch paths of a scan past one process, run for real: `mpirun -np 4`
// (Open MPI, oversubscribed on small machines) and shards of an array, each
// process a copy of mpi_scan_probe writing the rows of the runs it is handed.
// The database content must equal one process writing every run, each run
// handed out exactly once. (The same with `tracehound scan` itself is in
// tests/cli/fleet_scan_test.cc.)
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <map>
#include <regex>
#include <sstream>

#include "core/scan/database_merge.h"
#include "tests/core/scan/results_fixture.h"
#include "tests/support/command_runner.h"
#include "tests/support/postgres_server.h"
#include "tests/support/test_files.h"

namespace th::scan {
namespace {

constexpr size_t kRuns = 200;

using th::testing::Shell;

std::string Mpirun(int np) {
  return std::string(TRACEHOUND_MPIEXEC) + " --allow-run-as-root --oversubscribe -np " +
         std::to_string(np) + " ";
}

// Runs handed to each process ("took LABEL: i j k"), by label.
std::map<std::string, std::vector<size_t>> Took(const std::string& out) {
  std::map<std::string, std::vector<size_t>> took;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("took ", 0) != 0) continue;
    size_t colon = line.find(':');
    std::istringstream nums(line.substr(colon + 1));
    auto& v = took[line.substr(5, colon - 5)];
    for (size_t i; nums >> i;) v.push_back(i);
  }
  return took;
}

// Every run handed out exactly once over all processes.
void ExpectEachRunOnce(const std::map<std::string, std::vector<size_t>>& took, size_t runs) {
  std::vector<int> count(runs, 0);
  for (const auto& [label, v] : took)
    for (size_t i : v) {
      ASSERT_LT(i, runs) << label;
      ++count[i];
    }
  for (size_t i = 0; i < runs; ++i) EXPECT_EQ(count[i], 1) << "run " << i;
}

std::string Dump(const std::string& url) {
  auto db = OpenExistingDatabase(url);
  EXPECT_TRUE(db.ok()) << db.status().message();
  if (!db.ok()) return "";
  auto dump = DumpResultsContent(**db);
  EXPECT_TRUE(dump.ok()) << dump.status().message();
  return dump.ok() ? *dump : "";
}

// One process writing every run: the reference content.
const std::string& Reference() {
  static const std::string dump = [] {
    std::string url = "sqlite:" + th::testing::TempDir() + "/reference.db";
    auto db = OpenDatabase(url);
    EXPECT_TRUE(db.ok());
    for (size_t i = 0; i < kRuns; ++i)
      EXPECT_TRUE(th::testing::WriteFixtureRun(**db, th::testing::SyntheticRun(i)).ok());
    db->reset();
    return Dump(url);
  }();
  return dump;
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

class MpiTest : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef TRACEHOUND_WITH_MPI
    GTEST_SKIP() << "built without MPI (Debian: openmpi-bin libopenmpi-dev)";
#endif
  }
};

TEST_F(MpiTest, FourRanksOverSqliteGiveTheContentOfOneProcess) {
  const std::string dir = th::testing::TempDir();
  const std::string url = "sqlite:" + dir + "/mpi.db";
  th::testing::CommandResult r =
      Shell(Mpirun(4) + TRACEHOUND_PROBE + " " + std::to_string(kRuns) + " " + url);
  ASSERT_EQ(r.status, 0) << r.out;
  auto took = Took(r.out);
  ASSERT_EQ(took.size(), 4u) << r.out;
  ExpectEachRunOnce(took, kRuns);
  int busy = 0;
  for (const auto& [label, v] : took) busy += !v.empty();
  EXPECT_GE(busy, 2) << "runs were not shared out: " << r.out;
  EXPECT_NE(r.out.find("merged 3 rank databases"), std::string::npos) << r.out;
  for (int rank = 1; rank < 4; ++rank)
    EXPECT_FALSE(Exists(dir + "/mpi.rank" + std::to_string(rank) + ".db")) << rank;
  EXPECT_EQ(Dump(url), Reference());
}

TEST_F(MpiTest, RankZeroCanOnlyServe) {
  const std::string url = "sqlite:" + th::testing::TempDir() + "/serve.db";
  th::testing::CommandResult r =
      Shell(Mpirun(3) + TRACEHOUND_PROBE + " 40 " + url + " --serve-only");
  ASSERT_EQ(r.status, 0) << r.out;
  auto took = Took(r.out);
  ASSERT_EQ(took.size(), 3u) << r.out;
  EXPECT_TRUE(took["MPI rank 0 of 3"].empty()) << r.out;
  ExpectEachRunOnce(took, 40);
}

TEST_F(MpiTest, FourRanksIntoPostgres) {
  std::string why;
  auto* server = th::testing::PostgresServer::Shared(&why);
  if (!server) GTEST_SKIP() << "no PostgreSQL server: " << why;
  const std::string url = server->NewDatabase();
  th::testing::CommandResult r =
      Shell(Mpirun(4) + TRACEHOUND_PROBE + " " + std::to_string(kRuns) + " " + url);
  ASSERT_EQ(r.status, 0) << r.out;
  ExpectEachRunOnce(Took(r.out), kRuns);
  EXPECT_EQ(Dump(url), Reference());
}

TEST_F(MpiTest, RanksThatDiscoverDifferentRunsAreRefused) {
  const std::string url = "sqlite:" + th::testing::TempDir() + "/skew.db";
  th::testing::CommandResult r =
      Shell(Mpirun(2) + TRACEHOUND_PROBE + " 10 " + url + " --count-skew");
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("every rank must see the same inputs"), std::string::npos) << r.out;
}

TEST(Shards, FourShardsThenMergeGiveTheContentOfOneProcess) {
  const std::string dir = th::testing::TempDir();
  std::map<std::string, std::vector<size_t>> took;
  for (int s = 0; s < 4; ++s) {
    // Shard 2 as a Slurm array task would run it (--array=1-4: id 3 = index 2).
    std::string shard = " --shard " + std::to_string(s) + "/4";
    std::string env;
    if (s == 2) {
      shard = " --shard auto";
      env = "SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=4 ";
    }
    th::testing::CommandResult r = Shell(env + TRACEHOUND_PROBE + " " + std::to_string(kRuns) +
                                         " 'sqlite:" + dir + "/shard{shard}.db'" + shard);
    ASSERT_EQ(r.status, 0) << r.out;
    for (auto& [label, v] : Took(r.out)) {
      EXPECT_NE(label.find("shard " + std::to_string(s) + "/4"), std::string::npos) << label;
      took[label] = v;
    }
  }
  ASSERT_EQ(took.size(), 4u);
  ExpectEachRunOnce(took, kRuns);
  auto out = OpenDatabase("sqlite:" + dir + "/merged.db");
  ASSERT_TRUE(out.ok());
  for (int s = 0; s < 4; ++s) {
    auto in = OpenExistingDatabase("sqlite:" + dir + "/shard" + std::to_string(s) + ".db");
    ASSERT_TRUE(in.ok()) << in.status().message();
    auto stats = MergeResults(**in, **out);
    ASSERT_TRUE(stats.ok()) << stats.status().message();
    EXPECT_EQ(stats->runs_copied, stats->runs_in);
  }
  out->reset();
  EXPECT_EQ(Dump("sqlite:" + dir + "/merged.db"), Reference());
}

TEST(Shards, WithoutMpirunOneProcessTakesEveryRun) {
  th::testing::CommandResult r =
      Shell(std::string(TRACEHOUND_PROBE) + " 25 sqlite:" + th::testing::TempDir() + "/local.db");
  ASSERT_EQ(r.status, 0) << r.out;
  auto took = Took(r.out);
  ASSERT_EQ(took.size(), 1u) << r.out;
  EXPECT_EQ(took.begin()->first, "local");
  ExpectEachRunOnce(took, 25);
}

}  // namespace
}  // namespace th::scan
