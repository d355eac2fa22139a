// `tracehound scan` past one process, for real: under `mpirun -np 4` (Open
// MPI, oversubscribed on a small machine; SQLite rank files merged by rank 0,
// and a real PostgreSQL server every rank writes to) and as 4 shards joined by
// `tracehound merge`. Over 200 generated runs the database content (every row
// but the runs' bookkeeping columns) must equal one process's scan.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <set>
#include <string>

#include "core/scan/database_merge.h"
#include "core/synth/kineto_generator.h"
#include "tests/support/command_runner.h"
#include "tests/support/postgres_server.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

using testing::CommandResult;
using testing::Tracehound;

constexpr int kRuns = 200;

// 200 small 2-rank runs, one folder each; every fifth has a straggler.
const std::string& FleetDir() {
  static const std::string dir = [] {
    std::string d = testing::TempDir() + "/fleet";
    for (int i = 0; i < kRuns; ++i) {
      synth::Scenario s;
      s.ranks = 2;
      s.steps = 3;
      s.kernels_per_step = 8;
      s.collectives_per_step = 2;
      s.memory_events = false;
      s.seed = static_cast<uint64_t>(1 + i);
      s.straggler_rank = i % 5 == 0 ? 1 : -1;
      char sub[32];
      std::snprintf(sub, sizeof sub, "/run%03d", i);
      auto paths = synth::WriteKinetoTraces(s, d + sub, false, nullptr);
      EXPECT_TRUE(paths.ok()) << paths.status().message();
    }
    return d;
  }();
  return dir;
}

std::string Dump(const std::string& url) {
  auto db = scan::OpenExistingDatabase(url);
  if (!db.ok()) return db.status().message();
  auto dump = scan::DumpResultsContent(**db);
  return dump.ok() ? *dump : dump.status().message();
}

// One process: the reference.
const std::string& Reference() {
  static const std::string dump = [] {
    std::string url = "sqlite:" + testing::TempDir() + "/single.db";
    CommandResult r = Tracehound("scan " + FleetDir() + " --db " + url + " --progress none");
    EXPECT_EQ(r.status, 0) << r.out;
    std::string d = Dump(url);
    EXPECT_NE(d.find("table runs (200 rows)"), std::string::npos) << d.substr(0, 200);
    return d;
  }();
  return dump;
}

std::set<std::string> Workers(const std::string& url) {
  std::set<std::string> workers;
  auto db = scan::OpenDatabase(url);
  if (!db.ok()) return workers;
  auto rows = (*db)->Query("SELECT DISTINCT worker FROM runs");
  if (rows.ok())
    for (const auto& row : rows->rows) workers.insert(scan::SqlText(row[0]));
  return workers;
}

std::string Mpirun() {
  return std::string(TRACEHOUND_MPIEXEC) + " --allow-run-as-root --oversubscribe -np 4 ";
}

// The scan half of these tests needs `tracehound scan` with --shard and MPI.
bool ScanHasShards(std::string* why) {
  CommandResult r = Tracehound("scan --help");
  if (r.status == 0 && r.out.find("--shard") != std::string::npos) return true;
  *why = "`tracehound scan` has no --shard option yet: " + r.out.substr(0, 200);
  return false;
}

TEST(FleetScan, MpirunFourRanksIntoSqliteEqualsOneProcess) {
#ifndef TRACEHOUND_WITH_MPI
  GTEST_SKIP() << "built without MPI (Debian: openmpi-bin libopenmpi-dev)";
#endif
  std::string why;
  if (!ScanHasShards(&why)) GTEST_SKIP() << why;
  const std::string dir = testing::TempDir();
  const std::string url = "sqlite:" + dir + "/mpi.db";
  std::string cmd = Mpirun() + TRACEHOUND_BINARY + " scan " + FleetDir() + " --db " + url +
                    " --progress none --jobs 1";
  CommandResult r = testing::Shell(cmd);
  ASSERT_EQ(r.status, 0) << r.out;
  std::string out = r.out;
  EXPECT_NE(out.find("merged 3 rank databases"), std::string::npos) << out;
  for (int rank = 1; rank < 4; ++rank) {
    struct stat st;
    EXPECT_NE(::stat((dir + "/mpi.rank" + std::to_string(rank) + ".db").c_str(), &st), 0);
  }
  EXPECT_EQ(Dump(url), Reference());
  EXPECT_GE(Workers(url).size(), 2u) << "the runs were not shared out: " << out;

  // The same job again: every rank finds every run in --db (rank 0 writes
  // there; the others read it beside their own files), so nothing is scanned.
  r = testing::Shell(cmd);
  ASSERT_EQ(r.status, 0) << r.out;
  out = r.out;
  size_t ranks_idle = 0;
  for (size_t at = 0; (at = out.find("scanned 0, skipped ", at)) != std::string::npos; ++at)
    ++ranks_idle;
  EXPECT_EQ(ranks_idle, 4u) << out;
  EXPECT_EQ(Dump(url), Reference());
}

TEST(FleetScan, MpirunFourRanksIntoPostgresEqualsOneProcess) {
#ifndef TRACEHOUND_WITH_MPI
  GTEST_SKIP() << "built without MPI (Debian: openmpi-bin libopenmpi-dev)";
#endif
  std::string why;
  if (!ScanHasShards(&why)) GTEST_SKIP() << why;
  auto* server = testing::PostgresServer::Shared(&why);
  if (!server) GTEST_SKIP() << "no PostgreSQL server: " << why;
  const std::string url = server->NewDatabase();
  std::string cmd = Mpirun() + TRACEHOUND_BINARY + " scan " + FleetDir() + " --db " + url +
                    " --progress none --jobs 1";
  CommandResult r = testing::Shell(cmd);
  ASSERT_EQ(r.status, 0) << r.out;
  std::string out = r.out;
  EXPECT_EQ(Dump(url), Reference());
}

TEST(FleetScan, FourShardsThenMergeEqualOneProcess) {
  std::string why;
  if (!ScanHasShards(&why)) GTEST_SKIP() << why;
  const std::string dir = testing::TempDir();
  std::string inputs;
  for (int s = 0; s < 4; ++s) {
    // Shard 3 reads its index from a Kubernetes Indexed Job's variables.
    std::string env, shard = std::to_string(s) + "/4";
    if (s == 3) {
      env = "JOB_COMPLETION_INDEX=3 TRACEHOUND_SHARD_COUNT=4";
      shard = "auto";
    }
    CommandResult r = Tracehound("scan " + FleetDir() + " --shard " + shard +
                                     " --db 'sqlite:" + dir + "/shard{shard}.db' --progress none",
                                 env);
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("shard " + std::to_string(s) + "/4"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("scanned 50,"), std::string::npos) << r.out;
    inputs += " sqlite:" + dir + "/shard" + std::to_string(s) + ".db";
  }
  CommandResult r = Tracehound("merge sqlite:" + dir + "/merged.db" + inputs);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("200 runs copied"), std::string::npos) << r.out;
  EXPECT_EQ(Dump("sqlite:" + dir + "/merged.db"), Reference());
}

TEST(FleetScan, ShardErrorsNameTheValue) {
  std::string why;
  if (!ScanHasShards(&why)) GTEST_SKIP() << why;
  CommandResult r =
      Tracehound("scan " + FleetDir() + " --shard 4/4 --db sqlite:" + testing::TempDir() +
                 "/bad.db --progress none");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("index 4 is not below the shard count 4"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace th
