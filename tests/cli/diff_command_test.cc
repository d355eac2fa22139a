// `tracehound diff A B` as a user runs it: the terminal summary, the three
// report files of -o, JSON on stdout, and errors that name the input.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <string>

#include "tests/support/command_runner.h"
#include "tests/support/diff_fixture.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

using testing::CommandResult;
using testing::Tracehound;

struct Pair {
  std::string a, b;
};

const Pair& Fixtures() {
  static const Pair p = [] {
    testing::DiffFixture fb;
    fb.double_gemm = fb.insert_mul = true;
    return Pair{testing::WriteTempFile("cli_diff_a.json", testing::DiffFixtureTrace({})),
                testing::WriteTempFile("cli_diff_b.json", testing::DiffFixtureTrace(fb))};
  }();
  return p;
}

TEST(DiffCommand, SummaryAndReports) {
  const std::string dir = testing::TempDir() + "/diff_out";
  CommandResult r = Tracehound("diff " + Fixtures().a + " " + Fixtures().b + " -o " + dir);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("rows: added 2 changed 1 unchanged 6"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" changed  gpu_kernel  gemm_kernel<0x*>  50.000 us → 100.000 us per step"),
            std::string::npos)
      << r.out;
  for (const char* f : {"diff.json", "diff.md", "diff.html"})
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + f)) << f;
  EXPECT_EQ(testing::ReadFile(dir + "/diff.md").rfind("# tracehound diff\n", 0), 0u);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(dir + "/diff.json").get(doc), simdjson::SUCCESS);
  EXPECT_EQ(std::string_view(doc["schema"]), "tracehound.diff/1");
  EXPECT_EQ(int64_t(doc["attribution"]["delta_ns"]),
            int64_t(doc["attribution"]["b_step_ns"]) - int64_t(doc["attribution"]["a_step_ns"]));
}

TEST(DiffCommand, JsonOnStdout) {
  CommandResult r = Tracehound("diff --json --threshold-ns 60000 " + Fixtures().a + " " +
                               Fixtures().b + " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << r.out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(r.out).get(doc), simdjson::SUCCESS) << r.out;
  EXPECT_EQ(int64_t(doc["options"]["threshold_ns"]), 60000);
  for (simdjson::dom::element row : doc["aggregate"].get_array())
    EXPECT_NE(std::string_view(row["status"]), "changed");  // 50 µs is below the threshold
}

TEST(DiffCommand, FleetRowsIntoSqlite) {
  const std::string db = testing::TempDir() + "/diffs.db";
  for (const char* id : {"diff 1 written to ", "diff 2 written to "}) {
    CommandResult r =
        Tracehound("diff " + Fixtures().a + " " + Fixtures().b + " --db sqlite:" + db);
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find(id), std::string::npos) << r.out;
  }
  CommandResult bad = Tracehound("diff " + Fixtures().a + " " + Fixtures().b + " --db nosuch://x");
  EXPECT_EQ(bad.status, 2) << bad.out;
}

TEST(DiffCommand, MissingInputIsNamed) {
  const std::string missing = testing::TempDir() + "/no_such_run.json";
  CommandResult r = Tracehound("diff " + missing + " " + Fixtures().b);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("no_such_run.json"), std::string::npos) << r.out;
}

TEST(DiffCommand, OutputDirThatIsAFileFails) {
  const std::string file = testing::WriteTempFile("not_a_dir", "x");
  CommandResult r = Tracehound("diff " + Fixtures().a + " " + Fixtures().b + " -o " + file);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(testing::ReadFile(file), "x");
}

}  // namespace
}  // namespace th
