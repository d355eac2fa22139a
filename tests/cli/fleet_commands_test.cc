// `tracehound merge` and `tracehound fleet report` as a user runs them, on
// databases written through the Database interface (tests/core/scan fixture).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

#include "core/scan/database_merge.h"
#include "tests/core/scan/results_fixture.h"
#include "tests/support/command_runner.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

using testing::CommandResult;
using testing::Tracehound;

// Runs 0..11 of the synthetic fleet, in shards a (even) and b (odd), and all in one.
struct Fleet {
  std::string dir, a, b, all;
};

const Fleet& Databases() {
  static const Fleet fleet = [] {
    Fleet f;
    f.dir = testing::TempDir();
    f.a = "sqlite:" + f.dir + "/a.db";
    f.b = "sqlite:" + f.dir + "/b.db";
    f.all = "sqlite:" + f.dir + "/all.db";
    auto a = scan::OpenDatabase(f.a), b = scan::OpenDatabase(f.b), all = scan::OpenDatabase(f.all);
    for (size_t i = 0; i < 12; ++i) {
      auto run = testing::SyntheticRun(i);
      EXPECT_TRUE(testing::WriteFixtureRun(**all, run).ok());
      EXPECT_TRUE(testing::WriteFixtureRun(i % 2 ? **b : **a, run).ok());
    }
    return f;
  }();
  return fleet;
}

std::string Dump(const std::string& url) {
  auto db = scan::OpenExistingDatabase(url);
  if (!db.ok()) return db.status().message();
  auto dump = scan::DumpResultsContent(**db);
  return dump.ok() ? *dump : dump.status().message();
}

TEST(MergeCommand, JoinsShardsOnceAndSaysWhatItDid) {
  const Fleet& f = Databases();
  const std::string out = "sqlite:" + f.dir + "/merged.db";
  CommandResult r = Tracehound("merge " + out + " " + f.a + " " + f.b);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("a.db: 6 runs, 6 copied, 0 already in"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("merged 2 databases into " + out + ": 12 runs copied, 0 already present"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(Dump(out), Dump(f.all));
  r = Tracehound("merge " + out + " " + f.b + " " + f.all);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("0 runs copied, 18 already present"), std::string::npos) << r.out;
  EXPECT_EQ(Dump(out), Dump(f.all));
}

TEST(MergeCommand, BadInputsExit2NamingThem) {
  const Fleet& f = Databases();
  CommandResult r = Tracehound("merge sqlite:" + f.dir + "/m2.db " + f.dir + "/absent.db");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("tracehound merge: error: database " + f.dir + "/absent.db: no such file"),
            std::string::npos)
      << r.out;
  r = Tracehound("merge mysql://x " + f.a);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("'mysql://x'"), std::string::npos) << r.out;
  r = Tracehound("merge " + f.a);
  EXPECT_EQ(r.status, 2) << r.out;
}

TEST(FleetReportCommand, MarkdownOnStdoutJsonAndHtmlToFiles) {
  const Fleet& f = Databases();
  CommandResult r = Tracehound("fleet report --db " + f.all + " --baseline job0");
  ASSERT_EQ(r.status, 0) << r.out;
  // 12 runs, run 5 failed (SyntheticRun: i % 13 == 5).
  EXPECT_NE(r.out.find("# Fleet report"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("12 runs (11 ok, 1 failed)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("## Step-time regressions"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("truncated gzip member at byte 5"), std::string::npos) << r.out;

  const std::string json = f.dir + "/fleet.json";
  r = Tracehound("fleet report --db " + f.all + " --since 2025-11-24T16:00Z -o " + json);
  ASSERT_EQ(r.status, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(json).get(doc), simdjson::SUCCESS) << testing::ReadFile(json);
  EXPECT_EQ(doc["summary"]["runs_failed"]["value"].get_double().value(), 1.0);
  EXPECT_EQ(doc["step_regressions"]["baseline"]["kind"].get_string().value(), "window");
  // idle-launch titles differ only in numbers: one group, one finding per ok run.
  auto top = doc["top_findings_by_count"].get_array().value();
  EXPECT_EQ(top.at(0)["plugin"].get_string().value(), "idle-launch");
  EXPECT_EQ(top.at(0)["findings"]["value"].get_double().value(), 11.0);

  const std::string html = f.dir + "/fleet.html";
  r = Tracehound("fleet report --db " + f.all + " --out " + html);
  ASSERT_EQ(r.status, 0) << r.out;
  std::string text = testing::ReadFile(html);
  EXPECT_EQ(text.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(text.find("<script"), std::string::npos);
}

// SyntheticRun(i)'s steps grow with i: every later run is slower than job0,
// by 0.1% per run, so a 0.5% threshold flags runs 5.. (5 is failed: 6..11).
TEST(FleetReportCommand, FailOnRegressionGatesCi) {
  const Fleet& f = Databases();
  const std::string base = "fleet report --db " + f.all + " --baseline job0 --format json";
  CommandResult r = Tracehound(base + " --threshold 0.005 --fail-on-regression");
  EXPECT_EQ(r.status, 3) << r.out;
  EXPECT_NE(r.out.find("6 run(s) regress against the baseline"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"regressions_total\": {\"value\": 6,"), std::string::npos) << r.out;
  r = Tracehound(base + " --threshold 0.5 --fail-on-regression");
  EXPECT_EQ(r.status, 0) << r.out;
  r = Tracehound(base + " --threshold 0.005");
  EXPECT_EQ(r.status, 0) << r.out;
}

TEST(FleetReportCommand, BadOptionsExit2) {
  const Fleet& f = Databases();
  CommandResult r = Tracehound("fleet report --db " + f.all + " --since yesterday");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--since: time 'yesterday'"), std::string::npos) << r.out;
  r = Tracehound("fleet report --db " + f.all + " --baseline nosuchrun");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("'nosuchrun'"), std::string::npos) << r.out;
  r = Tracehound("fleet report --db " + f.all + " --baseline job0 --since 2025-01-01");
  EXPECT_EQ(r.status, 2) << r.out;
  r = Tracehound("fleet report --db " + f.dir + "/absent.db");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("no such file"), std::string::npos) << r.out;
  const std::string out = f.dir + "/kept.md";
  testing::WriteTempFile("kept.md", "previous");
  r = Tracehound("fleet report --db " + f.all + " --baseline nosuchrun -o " + out);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(testing::ReadFile(out), "previous");  // never half-written or replaced on error
}

}  // namespace
}  // namespace th
