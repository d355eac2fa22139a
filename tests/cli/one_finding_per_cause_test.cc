// One finding per cause (issue 15, item 5), as a user reads the reports: a
// cause found on every rank and stream is one line, with its scopes and
// ranges; the JSON keeps every scope; the terminal counts the checks the
// report lists; a run that could assess nothing is not OPTIMAL; outputs take
// a minimum severity and a maximum count.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cctype>
#include <filesystem>
#include <functional>
#include <set>
#include <sstream>
#include <string>

#include "tests/support/command_runner.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::Tracehound;

int CountLines(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line.rfind(prefix, 0) == 0;
  return n;
}

const std::string& Example() {
  static const std::string dir = [] {
    std::string d = testing::TempDir() + "/example";
    CommandResult r =
        Tracehound("generate --out " + d + " --ranks 4 --steps 6 --gzip --straggler-rank 2");
    EXPECT_EQ(r.status, 0) << r.out;
    return d;
  }();
  return dir;
}

TEST(OneFindingPerCause, EachCauseIsOneLineAndTheJsonKeepsEveryScope) {
  std::string reports = testing::TempDir() + "/reports";
  fs::create_directories(reports);
  CommandResult r = Tracehound("analyze " + Example(), "TRACEHOUND_REPORT_DIR=" + reports);
  ASSERT_EQ(r.status, 0) << r.out;
  // 4 ranks × 2 streams wait on the host: one line, naming 8 streams on 4 ranks.
  EXPECT_EQ(CountLines(r.out, " P2 idle-launch"), 1) << r.out;
  EXPECT_NE(r.out.find("8 streams on 4 ranks (worst: rank "), std::string::npos) << r.out;
  EXPECT_EQ(CountLines(r.out, " P1 cuda-sync"), 1) << r.out;
  EXPECT_EQ(CountLines(r.out, " P2 overlap"), 1) << r.out;

  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.load(reports + "/tracehound-findings.json").value();
  simdjson::dom::array groups = doc["groups"].get_array().value();
  simdjson::dom::array findings = doc["findings"].get_array().value();
  size_t scopes = 0;
  for (simdjson::dom::element g : groups) {
    scopes += g["findings"].get_array().value().size();
    EXPECT_EQ(static_cast<int64_t>(g["findings"].get_array().value().size()),
              g["scopes"].get_int64().value());
  }
  EXPECT_EQ(scopes, findings.size());
  EXPECT_LT(groups.size(), findings.size());
  for (simdjson::dom::element f : findings) EXPECT_FALSE(f["group"].error());

  // The terminal's check count is the report's.
  std::string md = testing::ReadFile(reports + "/tracehound-report.md");
  size_t at = md.find(" checks passed.");
  ASSERT_NE(at, std::string::npos);
  std::string tally = md.substr(md.rfind('\n', at) + 1, at - md.rfind('\n', at) - 1);
  EXPECT_NE(r.out.find("checks: " + tally + " passed"), std::string::npos) << tally << "\n"
                                                                           << r.out;
}

// A cause's title is the same wherever it is found: a plugin's groups never
// differ only in their figures (which would print one line per device, as
// gpu-efficiency's "GPU 0 of rank 0 is busy 45.5% of the steps" did: six
// lines on the DLRM job). Checked on every real multi-rank trace.
std::string WithoutFigures(const std::string& title) {
  std::string out;
  for (char c : title)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != '%') out += c;
  return out;
}

TEST(OneFindingPerCause, ACauseOnManyRanksIsOneGroupOnRealJobs) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent";
  const std::string jobs[] = {data + "/param/et_replay/tests/data/dlrm_kineto.tar.gz",
                              data + "/hta/tests/data/trace_filter"};
  for (const std::string& job : jobs) {
    if (!fs::exists(job)) continue;
    std::string reports =
        testing::TempDir() + "/real-" + std::to_string(std::hash<std::string>{}(job));
    fs::create_directories(reports);
    CommandResult r = Tracehound("analyze " + job, "TRACEHOUND_REPORT_DIR=" + reports);
    ASSERT_EQ(r.status, 0) << job << "\n" << r.out;
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.load(reports + "/tracehound-findings.json").value();
    std::set<std::pair<std::string, std::string>> seen;
    simdjson::dom::array groups = doc["groups"].get_array().value();
    for (simdjson::dom::element g : groups) {
      std::string plugin(g["plugin"].get_string().value());
      std::string title(g["title"].get_string().value());
      EXPECT_TRUE(seen.insert({plugin, WithoutFigures(title)}).second)
          << job << ": " << plugin << " reports one cause as several groups: " << title;
    }
  }
  // The DLRM job: six GPUs busy under half the step are one line naming them.
  CommandResult r = Tracehound("analyze " + jobs[0], "TRACEHOUND_REPORT_DIR=" + testing::TempDir());
  EXPECT_EQ(CountLines(r.out, " P1 gpu-efficiency"), 1) << r.out;
  // The idlest device leads (rank 5: 10.5 ms idle), the range is every device's.
  EXPECT_NE(r.out.find("GPU busy under 50.0% of the steps: 6 devices on 6 ranks (worst: rank 5, "
                       "device 5); idle 7.884 ms – 10.545 ms, gpu_utilization 21.1 % – 45.46 %"),
            std::string::npos)
      << r.out;
}

TEST(OneFindingPerCause, NothingAssessedIsNotOptimal) {
  // Host work only: no GPU stream for idle-launch, no allocator events for
  // oom-risk; neither measures anything.
  std::string trace = testing::WriteTempFile(
      "cpu_only.json",
      R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":1,"dur":5}]})");
  std::string pipeline = testing::WriteTempFile("nothing.yaml", R"(version: 1
plugins:
  oom-risk: {}
outputs:
  - {type: terminal}
)");
  CommandResult r = Tracehound("run " + pipeline + " " + trace);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("verdict: NOT_ASSESSED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("notes: 1"), std::string::npos) << r.out;
}

TEST(OneFindingPerCause, OutputsTakeAMinimumSeverityAndAMaximumCount) {
  std::string dir = testing::TempDir() + "/filtered";
  fs::create_directories(dir);
  std::string pipeline = testing::WriteTempFile("filtered.yaml", R"(version: 1
plugins:
  steps: {}
  cuda-sync: {}
  idle-launch: {}
outputs:
  - {type: json, path: )" + dir + R"(/p1.json, min_severity: P1}
  - {type: json, path: )" + dir + R"(/all.json}
  - {type: markdown, path: )" + dir + R"(/one.md, max_findings: 1}
)");
  CommandResult r = Tracehound("run " + pipeline + " " + Example());
  ASSERT_EQ(r.status, 0) << r.out;
  simdjson::dom::parser pa, pb;
  simdjson::dom::element p1 = pa.load(dir + "/p1.json").value();
  simdjson::dom::element all = pb.load(dir + "/all.json").value();
  simdjson::dom::array p1_groups = p1["groups"].get_array().value();
  for (simdjson::dom::element g : p1_groups)
    EXPECT_NE(std::string(g["severity"].get_string().value()), "P2");
  EXPECT_GT(p1["findings_left_out"].get_int64().value(), 0);
  EXPECT_EQ(all["findings_left_out"].get_int64().value(), 0);
  EXPECT_EQ(p1["verdict"].get_string().value(), all["verdict"].get_string().value());
  std::string md = testing::ReadFile(dir + "/one.md");
  EXPECT_EQ(CountLines(md, "### P"), 1) << md;
  EXPECT_NE(md.find("left out of this output"), std::string::npos) << md;

  // Bad values are pipeline errors at their line.
  std::string bad = testing::WriteTempFile("bad_filter.yaml", R"(version: 1
outputs:
  - {type: json, path: x.json, min_severity: P4}
)");
  CommandResult v = Tracehound("validate " + bad);
  EXPECT_EQ(v.status, 2) << v.out;
  EXPECT_NE(v.out.find("bad_filter.yaml:3:"), std::string::npos) << v.out;
}

}  // namespace
}  // namespace th
