// `tracehound scan` as a user runs it: the real binary over generated fleets
// (killed with SIGKILL halfway and resumed; a corrupt trace among 100) and
// over every real trace in ../shared/data; SQLite and a real PostgreSQL.
#include <gtest/gtest.h>
#include <signal.h>
#include <simdjson.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "core/scan/database.h"
#include "core/scan/database_merge.h"
#include "core/synth/kineto_generator.h"
#include "tests/support/command_runner.h"
#include "tests/support/postgres_server.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::Tracehound;

// <TempDir>/<name>/run<i>/rank<r>.pt.trace.json.gz: `runs` small 2-rank runs
// (distinct seeds); with `corrupt`, run <corrupt_at>'s rank 1 cut in half.
std::string Fleet(const std::string& name, int runs, int corrupt_at = -1) {
  std::string dir = testing::TempDir() + "/" + name;
  for (int i = 0; i < runs; ++i) {
    synth::Scenario s;
    s.ranks = 2;
    s.steps = 2;
    s.kernels_per_step = 8;
    s.collectives_per_step = 1;
    s.seed = static_cast<uint64_t>(1000 + i);
    char sub[32];
    std::snprintf(sub, sizeof sub, "/run%03d", i);
    auto paths = synth::WriteKinetoTraces(s, dir + sub, true, nullptr);
    EXPECT_TRUE(paths.ok()) << paths.status().message();
    if (i == corrupt_at) {
      std::string bytes = testing::ReadFile((*paths)[1]);
      std::ofstream((*paths)[1], std::ios::binary | std::ios::trunc)
          .write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
    }
  }
  return dir;
}

int64_t Count(const std::string& url, const std::string& sql) {
  auto db = scan::OpenDatabase(url);
  if (!db.ok()) return -1;
  auto rows = (*db)->Query(sql);
  return rows.ok() ? scan::SqlInt(rows->rows[0][0]) : -1;
}

std::vector<std::string> Rows(const std::string& url) {
  auto db = scan::OpenDatabase(url);
  EXPECT_TRUE(db.ok()) << db.status().message();
  if (!db.ok()) return {};
  auto dump = scan::DumpResultsContent(**db);
  EXPECT_TRUE(dump.ok()) << dump.status().message();
  std::vector<std::string> lines;
  std::istringstream in(dump.ok() ? *dump : "");
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Starts `tracehound scan <args>`, sends it `sig` once `url` holds at least
// `after` committed runs, waits for it, and returns how many runs `url` held
// then (-1 when the scan ended by itself first); `status` gets its wait status.
int64_t ScanAndSignal(const std::string& args, const std::string& url, int64_t after, int sig,
                      int* status) {
  pid_t pid = fork();
  if (pid == 0) {
    std::string cmd = "exec " + std::string(TRACEHOUND_BINARY) + " " + args + " >/dev/null 2>&1";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    if (Count(url, "SELECT COUNT(*) FROM runs") >= after) break;
    if (waitpid(pid, status, WNOHANG) == pid) return -1;  // ended by itself
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(pid, sig);
  waitpid(pid, status, 0);
  return Count(url, "SELECT COUNT(*) FROM runs");
}

int64_t ScanAndKill(const std::string& args, const std::string& url, int64_t after) {
  int status = 0;
  int64_t n = ScanAndSignal(args, url, after, SIGKILL, &status);
  if (n >= 0) {
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  }
  return n;
}

void KilledThenResumedEqualsUninterrupted(const std::string& fleet, const std::string& ref_url,
                                          const std::string& url) {
  CommandResult ref = Tracehound("scan " + fleet + " --jobs 2 --db '" + ref_url + "'");
  ASSERT_EQ(ref.status, 0) << ref.out;
  ASSERT_EQ(Count(ref_url, "SELECT COUNT(*) FROM runs"), 60);

  int64_t at_kill = ScanAndKill("scan " + fleet + " --jobs 2 --db '" + url + "'", url, 15);
  ASSERT_GE(at_kill, 15) << "the scan ended before it could be killed";
  ASSERT_LT(at_kill, 60) << "the scan ended before it could be killed";
  CommandResult resumed = Tracehound("scan " + fleet + " --jobs 2 --db '" + url + "'");
  ASSERT_EQ(resumed.status, 0) << resumed.out;
  EXPECT_NE(resumed.out.find("skipped " + std::to_string(at_kill)), std::string::npos)
      << resumed.out;
  std::vector<std::string> want = Rows(ref_url), got = Rows(url);
  EXPECT_GT(want.size(), 60u * 10);
  EXPECT_EQ(got, want);
}

TEST(ScanCommand, KilledWithSigkillHalfwayThenRerunEqualsAnUninterruptedScanSqlite) {
  std::string fleet = Fleet("fleet-kill", 60);
  std::string dir = testing::TempDir();
  KilledThenResumedEqualsUninterrupted(fleet, "sqlite:" + dir + "/kill-ref.db",
                                       "sqlite:" + dir + "/kill.db");
}

TEST(ScanCommand, KilledWithSigkillHalfwayThenRerunEqualsAnUninterruptedScanPostgres) {
  std::string why;
  auto* server = testing::PostgresServer::Shared(&why);
  if (!server) GTEST_SKIP() << "no PostgreSQL server: " << why;
  std::string fleet = Fleet("fleet-kill-pg", 60);
  KilledThenResumedEqualsUninterrupted(fleet, server->NewDatabase(), server->NewDatabase());
}

TEST(ScanCommand, SigtermStopsAfterTheRunsInFlightAndTheRerunCompletes) {
  std::string fleet = Fleet("fleet-term", 40);
  std::string url = "sqlite:" + testing::TempDir() + "/term.db";
  int status = 0;
  int64_t at_signal =
      ScanAndSignal("scan " + fleet + " --jobs 2 --db " + url, url, 5, SIGTERM, &status);
  ASSERT_GE(at_signal, 5) << "the scan ended before the signal";
  ASSERT_TRUE(WIFEXITED(status)) << "not a clean exit";
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_LT(at_signal, 40);
  CommandResult rerun = Tracehound("scan " + fleet + " --jobs 2 --db " + url);
  ASSERT_EQ(rerun.status, 0) << rerun.out;
  EXPECT_NE(rerun.out.find("skipped " + std::to_string(at_signal)), std::string::npos) << rerun.out;
  EXPECT_EQ(Count(url, "SELECT COUNT(*) FROM runs"), 40);
}

TEST(ScanCommand, ACorruptTraceAmongAHundredIsTheOnlyFailure) {
  std::string fleet = Fleet("fleet-100", 100, 37);
  std::string url = "sqlite:" + testing::TempDir() + "/hundred.db";
  CommandResult r = Tracehound("scan " + fleet + " --jobs 2 --db " + url);
  EXPECT_EQ(r.status, 11) << r.out;  // 10 + one failed run
  std::string bad = fleet + "/run037/rank1.pt.trace.json.gz";
  EXPECT_NE(r.out.find("1 of 100 runs failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(bad), std::string::npos) << r.out;
  EXPECT_EQ(Count(url, "SELECT COUNT(*) FROM runs WHERE status = 'ok'"), 99);
  auto db = scan::OpenDatabase(url);
  ASSERT_TRUE(db.ok());
  auto failed = (*db)->Query("SELECT location, error FROM runs WHERE status = 'failed'");
  ASSERT_TRUE(failed.ok());
  ASSERT_EQ(failed->rows.size(), 1u);
  EXPECT_EQ(scan::SqlText(failed->rows[0][0]), fleet + "/run037/rank*");
  EXPECT_NE(scan::SqlText(failed->rows[0][1]).find(bad), std::string::npos);
  // Plain progress lines (not a terminal), one per run.
  EXPECT_NE(r.out.find("[100/100]"), std::string::npos) << r.out;
  // A rescan scans nothing and still reports the failure the database holds.
  CommandResult again = Tracehound("scan " + fleet + " --jobs 2 --progress none --db " + url);
  EXPECT_EQ(again.status, 11) << again.out;
  EXPECT_NE(again.out.find("1 of 100 runs failed"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find(bad), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("scanned 0, skipped 99 (already in " + url +
                           "), failed 1 (1 stored by an earlier scan; --retry-failed scans them "
                           "again), not traces 0"),
            std::string::npos)
      << again.out;
}

TEST(ScanCommand, EveryRealTraceGetsOneRowWithThePipelinesMetrics) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent";
  // What the oracle says each file is: the traces expected, tar members.
  std::set<std::string> want;
  size_t tar_members = 0;
  std::string corrupt;
  simdjson::dom::parser parser;
  for (const char* suffix : {".json", ".json.gz", ".xplane.pb", ".tar.gz"}) {
    for (const std::string& rel : testing::FilesWithOracle(suffix, true)) {
      std::string oracle = data + "/expected/" + rel + ".oracle.json";
      simdjson::dom::element e;
      ASSERT_EQ(parser.load(oracle).get(e), simdjson::SUCCESS) << oracle;
      std::string_view kind;
      if (e["kind"].get(kind) != simdjson::SUCCESS) continue;
      if (kind == "xspace" && e["error"].error() == simdjson::SUCCESS) {
        corrupt = data + "/" + rel;
      } else if (kind == "kineto_json" || kind == "xspace") {
        want.insert(data + "/" + rel);
      } else if (kind == "tar") {
        simdjson::dom::array members;
        ASSERT_EQ(e["members"].get(members), simdjson::SUCCESS);
        tar_members += members.size();
        want.insert(data + "/" + rel);  // members are "<archive>:<member>"
      }
    }
  }
  ASSERT_FALSE(corrupt.empty());
  std::string url = "sqlite:" + testing::TempDir() + "/shared.db";
  CommandResult r = Tracehound("scan " + data + " --jobs 2 --db " + url);
  EXPECT_EQ(r.status, 11) << r.out;
  EXPECT_NE(r.out.find("1 of "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(corrupt), std::string::npos) << r.out;

  auto db = scan::OpenDatabase(url);
  ASSERT_TRUE(db.ok());
  auto rows = (*db)->Query(
      "SELECT t.path, t.events, r.status, (SELECT COUNT(*) FROM metrics m WHERE m.run_id = "
      "r.run_id) FROM traces t JOIN runs r ON r.run_id = t.run_id");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  std::set<std::string> got;
  size_t members = 0;
  for (const scan::SqlRow& row : rows->rows) {
    std::string path = scan::SqlText(row[0]);
    SCOPED_TRACE(path);
    if (path == corrupt) {
      EXPECT_EQ(scan::SqlText(row[2]), "failed");
      continue;
    }
    EXPECT_EQ(scan::SqlText(row[2]), "ok");
    EXPECT_GT(scan::SqlInt(row[3]), 0);  // the run has the pipeline's metrics
    auto colon = path.find(".tar.gz:");
    if (colon != std::string::npos) {
      ++members;
      path.resize(colon + 7);
    } else {
      EXPECT_TRUE(got.insert(path).second) << "two rows";
    }
    got.insert(path);
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(members, tar_members);
  EXPECT_EQ(rows->rows.size(), want.size() - 1 + tar_members + 1);
  EXPECT_EQ(Count(url, "SELECT COUNT(*) FROM runs WHERE status = 'failed'"), 1);

  // Real traces (Kineto, XSpace, an archive) give the same rows with one job.
  std::string serial = "sqlite:" + testing::TempDir() + "/shared-serial.db";
  CommandResult one = Tracehound("scan " + data + " --jobs 1 --progress none --db " + serial);
  EXPECT_EQ(one.status, 11) << one.out;
  EXPECT_EQ(Rows(serial), Rows(url));
}

TEST(ScanCommand, ListsRunsAndDrawsABarWhenAsked) {
  std::string fleet = Fleet("fleet-bar", 3);
  CommandResult list = Tracehound("scan " + fleet + " --list");
  ASSERT_EQ(list.status, 0) << list.out;
  EXPECT_NE(list.out.find(fleet + "/run000/rank*\t2 files\t"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find(fleet + "/run002/rank*\t2 files\t"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find(" B\trun001\n"), std::string::npos) << list.out;  // its name
  std::string url = "sqlite:" + testing::TempDir() + "/bar.db";
  CommandResult bar = Tracehound("scan " + fleet + " --progress bar --db " + url);
  ASSERT_EQ(bar.status, 0) << bar.out;
  EXPECT_NE(bar.out.find("\r\033[K[########################] 3/3 runs"), std::string::npos)
      << bar.out;
  EXPECT_NE(bar.out.find("ETA"), std::string::npos);
  EXPECT_EQ(bar.out.find("[1/3]"), std::string::npos) << bar.out;
  EXPECT_EQ(Count(url, "SELECT COUNT(*) FROM runs"), 3);
  // Nothing to scan, or a database it cannot use: exit status 2, saying so.
  fs::create_directories(testing::TempDir() + "/empty-fleet");
  CommandResult empty = Tracehound("scan " + testing::TempDir() + "/empty-fleet --db " + url);
  EXPECT_EQ(empty.status, 2) << empty.out;
  EXPECT_NE(empty.out.find("no trace files found"), std::string::npos) << empty.out;
  CommandResult bad = Tracehound("scan " + fleet + " --db sqlite:/nonexistent-dir/x.db");
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_NE(bad.out.find("/nonexistent-dir/x.db"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace th
