// `tracehound run | validate | analyze | plugins` as a user runs them: the
// shipped configs, exit statuses 0/2/3/4, the JSON report contract, errors with
// file:line:column.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "tests/support/command_runner.h"
#include "tests/support/diff_fixture.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

using testing::CommandResult;
using testing::Tracehound;

const std::string& Traces() {
  static const std::string dir = [] {
    std::string d = testing::TempDir() + "/traces";
    EXPECT_EQ(Tracehound("generate --out " + d + " --ranks 2 --steps 2").status, 0);
    return d;
  }();
  return dir;
}

std::string ReportDir(const std::string& name) {
  std::string d = testing::TempDir() + "/" + name;
  std::filesystem::create_directories(d);
  return d;
}

TEST(PluginsCommand, ListsAndDescribesTheBuiltins) {
  CommandResult list = Tracehound("plugins list");
  ASSERT_EQ(list.status, 0) << list.out;
  EXPECT_NE(list.out.find("kernel-stats  1.0.0  analyzer"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("stream-budget"), std::string::npos);
  CommandResult describe = Tracehound("plugins describe kernel-stats");
  ASSERT_EQ(describe.status, 0);
  EXPECT_NE(describe.out.find("include_memory (bool, default true)"), std::string::npos)
      << describe.out;
  EXPECT_NE(describe.out.find("reads: events gpu_activity name_classes class_rules\n"),
            std::string::npos)
      << describe.out;
  EXPECT_NE(describe.out.find("publishes:\n    kernel_stats (report panel kernel-stats)"),
            std::string::npos)
      << describe.out;
  EXPECT_NE(describe.out.find("\n      total i64 [ns]\n"), std::string::npos) << describe.out;
  EXPECT_EQ(Tracehound("plugins describe no-such-plugin").status, 2);
  CommandResult schema = Tracehound("plugins schema");
  ASSERT_EQ(schema.status, 0);
  simdjson::dom::parser parser;
  EXPECT_EQ(parser.parse(schema.out).error(), simdjson::SUCCESS) << schema.out;
}

TEST(RunCommand, EveryShippedConfigValidatesAndRuns) {
  for (const char* config : {"default", "pytorch-training", "inference", "jax-xla"}) {
    SCOPED_TRACE(config);
    std::string path = std::string(TRACEHOUND_SOURCE_DIR) + "/configs/" + config + ".yaml";
    CommandResult v = Tracehound("validate " + path);
    ASSERT_EQ(v.status, 0) << v.out;
    std::string dir = ReportDir(std::string("report-") + config);
    CommandResult r = Tracehound("run " + path + " " + Traces(), "TRACEHOUND_REPORT_DIR=" + dir);
    // The generated ranks carry real problems (pageable copies, launch-bound
    // streams): a config may report them (exit 3 at its fail_on level), but
    // every plugin must run and every check pass.
    ASSERT_TRUE(r.status == 0 || r.status == 3) << r.out;
    EXPECT_NE(r.out.find("verdict: "), std::string::npos) << r.out;
    // Every config writes a JSON report with the contract keys.
    std::string json_path;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".json") json_path = e.path().string();
    ASSERT_FALSE(json_path.empty());
    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.load(json_path).value();
    EXPECT_EQ(doc["schema_version"].get_string().value(), "1.0");
    std::string_view verdict = doc["verdict"].get_string().value();
    EXPECT_EQ(verdict == "OPTIMAL", doc["findings"].get_array().size() == 0) << verdict;
    if (r.status == 3) {
      EXPECT_NE(verdict, "OPTIMAL") << r.out;  // findings at the fail_on level
    }
    for (auto [id, plugin] : doc["plugins"].get_object())
      EXPECT_EQ(plugin["status"].get_string().value(), "ok") << id;
    EXPECT_EQ(doc["plugins"]["kernel-stats"]["status"].get_string().value(), "ok");
    EXPECT_EQ(doc["plugins"]["stream-budget"]["status"].get_string().value(), "ok");
    EXPECT_FALSE(doc["metrics"]["stream-budget"].error());
    EXPECT_FALSE(doc["trust"].error());
    EXPECT_EQ(doc["traces"].get_array().size(), 2u);
    EXPECT_EQ(doc["tables"]["kernel_stats"]["plugin"].get_string().value(), "kernel-stats");
    for (simdjson::dom::element check : doc["checks"].get_array())
      EXPECT_TRUE(check["passed"].get_bool().value()) << check["name"].get_string().value();
    if (std::string_view(config) == "pytorch-training") {
      // Its changes are ranked by the critical path, per rank and across ranks.
      EXPECT_EQ(doc["plugins"]["critical-path"]["status"].get_string().value(), "ok");
      EXPECT_TRUE(doc["changes_by_path"]["available"].get_bool().value());
      EXPECT_EQ(doc["tables"]["critical_path"]["plugin"].get_string().value(), "critical-path");
    }
  }
}

TEST(RunCommand, TheTraceDiffConfigComparesTheInputsWithTheBaseline) {
  testing::DiffFixture before, after;
  after.double_gemm = true;
  const std::string a =
      testing::WriteTempFile("cli_diff/before.json", testing::DiffFixtureTrace(before));
  const std::string b =
      testing::WriteTempFile("cli_diff/after.json", testing::DiffFixtureTrace(after));
  const std::string config = std::string(TRACEHOUND_SOURCE_DIR) + "/configs/trace-diff.yaml";
  const std::string dir = ReportDir("report-trace-diff");
  CommandResult r =
      Tracehound("run " + config + " " + b + " --baseline " + a, "TRACEHOUND_REPORT_DIR=" + dir);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("slower gpu_kernel gemm_kernel<0x*> on NVIDIA H100 80GB HBM3"),
            std::string::npos)
      << r.out;
  CommandResult describe = Tracehound("plugins describe trace-diff");
  EXPECT_NE(describe.out.find("\n  input groups: the pipeline's baseline and inputs"),
            std::string::npos)
      << describe.out;
  // Without a baseline the pipeline is refused at the plugin's line.
  CommandResult none = Tracehound("run " + config + " " + b + " --set baseline=[]");
  EXPECT_EQ(none.status, 2) << none.out;
  EXPECT_NE(none.out.find("trace-diff.yaml:14:3: plugin 'trace-diff' compares the inputs with a "
                          "baseline"),
            std::string::npos)
      << none.out;
}

TEST(RunCommand, DumpConfigAndSetOverrides) {
  std::string path = std::string(TRACEHOUND_SOURCE_DIR) + "/configs/inference.yaml";
  CommandResult dump = Tracehound("run " + path + " --dump-config");
  ASSERT_EQ(dump.status, 0) << dump.out;
  EXPECT_NE(dump.out.find("include_memory: false"), std::string::npos) << dump.out;
  CommandResult set =
      Tracehound("run " + path + " --dump-config --set plugins.kernel-stats.include_memory=true");
  ASSERT_EQ(set.status, 0) << set.out;
  EXPECT_NE(set.out.find("include_memory: true"), std::string::npos) << set.out;
  CommandResult bad =
      Tracehound("validate " + path + " --set plugins.kernel-stats.include_memory=7");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.out.find("tracehound: error: --set:1:"), 0u) << bad.out;
}

// What --dump-config writes is the plan itself: loaded again, it dumps to the
// same bytes and validates (every shipped pipeline; redact.yaml is rules and
// peaks.yaml a table of accelerator peaks, not pipelines).
TEST(RunCommand, DumpConfigReloadsToTheSamePlanForEveryShippedPipeline) {
  const std::string configs = std::string(TRACEHOUND_SOURCE_DIR) + "/configs";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(configs)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".yaml" || name == "redact.yaml" || name == "peaks.yaml")
      continue;
    CommandResult first = Tracehound("run " + entry.path().string() + " --dump-config");
    ASSERT_EQ(first.status, 0) << name << "\n" << first.out;
    std::string again = testing::WriteTempFile("dumped/" + name, first.out);
    CommandResult second = Tracehound("run " + again + " --dump-config");
    ASSERT_EQ(second.status, 0) << name << "\n" << second.out;
    EXPECT_EQ(second.out, first.out) << name;
    CommandResult valid = Tracehound("validate " + again);
    EXPECT_EQ(valid.status, 0) << name << "\n" << valid.out;
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

// What `run` would find only after the analysis, `validate` finds before it.
TEST(ValidateCommand, CatchesAnUnmetReadAndAMissingOutputFolderBeforeAnyWork) {
  std::string no_steps =
      testing::WriteTempFile("no_steps.yaml", "version: 1\nplugins:\n  step-breakdown: {}\n");
  CommandResult r = Tracehound("validate " + no_steps);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find(no_steps + ":3:3: plugin 'step-breakdown' reads table 'steps' that no "
                                  "enabled plugin publishes; add 'steps: {}' to plugins"),
            std::string::npos)
      << r.out;
  std::string folder = testing::WriteTempFile(
      "no_folder.yaml",
      "version: 1\nplugins:\n  kernel-stats: {}\noutputs:\n  - {type: json, path: "
      "missing-folder/findings.json}\n");
  r = Tracehound("validate " + folder);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find(folder + ":5:5: output json 'missing-folder/findings.json': folder "
                                "'missing-folder' does not exist"),
            std::string::npos)
      << r.out;
  r = Tracehound("run " + folder + " " + Traces());
  EXPECT_EQ(r.status, 2) << r.out;
}

TEST(RunCommand, PipelineErrorsNameFileLineAndColumn) {
  std::string yaml = "version: 1\nplugins:\n  kernel-stats: {include_memroy: false}\n";
  std::string path = testing::WriteTempFile("typo.yaml", yaml);
  CommandResult r = Tracehound("validate " + path);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find(path + ":3:18:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("did you mean 'include_memory'?"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << r.out;
}

TEST(RunCommand, FailOnGivesThreeAndAFailingPluginGivesFour) {
  std::string dir = ReportDir("exit-codes");
  std::string json = dir + "/findings.json";
  std::string pipeline =
      testing::WriteTempFile("exit-codes/long.yaml",
                             "version: 1\nplugin_paths: [\"" + std::string(TEST_PLUGIN_DIR) +
                                 "/long_kernels\"]\n"
                                 "plugins:\n  long-kernels: {threshold_us: 1}\n  kernel-stats: {}\n"
                                 "outputs:\n  - {type: json, path: \"" +
                                 json + "\"}\nfail_on: P2\n");
  CommandResult found = Tracehound("run " + pipeline + " " + Traces());
  EXPECT_EQ(found.status, 3) << found.out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.load(json).value();
  EXPECT_EQ(doc["verdict"].get_string().value(), "NEEDS_ATTENTION");
  simdjson::dom::element first = doc["findings"].at(0).value();
  EXPECT_EQ(first["plugin"].get_string().value(), "long-kernels");
  EXPECT_EQ(first["severity"].get_string().value(), "P2");
  EXPECT_EQ(first["evidence"].at(0)["unit"].get_string().value(), "ns");
  EXPECT_EQ(first["evidence"].at(0)["kind"].get_string().value(), "measured");

  std::string failing = testing::WriteTempFile(
      "exit-codes/throws.yaml",
      "version: 1\nplugin_paths: [\"" + std::string(TEST_PLUGIN_DIR) +
          "/throws\"]\n"
          "plugins:\n  throws: {message: \"out of cheese\"}\n  kernel-stats: {}\n"
          "outputs:\n  - {type: json, path: \"" +
          json + "\"}\n");
  CommandResult failed = Tracehound("run " + failing + " " + Traces());
  EXPECT_EQ(failed.status, 4) << failed.out;
  simdjson::dom::element doc2 = parser.load(json).value();
  EXPECT_EQ(doc2["plugins"]["throws"]["status"].get_string().value(), "failed");
  EXPECT_NE(
      std::string(doc2["plugins"]["throws"]["error"].get_string().value()).find("out of cheese"),
      std::string::npos);
  EXPECT_EQ(doc2["plugins"]["kernel-stats"]["status"].get_string().value(), "ok");
  EXPECT_EQ(doc2["findings"].at(0)["plugin"].get_string().value(), "host");
}

TEST(AnalyzeCommand, RunsTheDefaultPipeline) {
  std::string dir = ReportDir("analyze");
  CommandResult r = Tracehound("analyze " + Traces(), "TRACEHOUND_REPORT_DIR=" + dir);
  ASSERT_EQ(r.status, 0) << r.out;
  std::string md = testing::ReadFile(dir + "/tracehound-report.md");
  // The generated ranks hold a straggler (rank 1 of 2 arrives last); the
  // default pipeline runs every built-in plugin.
  EXPECT_NE(md.find("**Verdict: "), std::string::npos);
  EXPECT_NE(md.find("### kernel_stats"), std::string::npos);
  EXPECT_NE(md.find("### step_breakdown"), std::string::npos);
  EXPECT_NE(md.find("## Changes"), std::string::npos);
  EXPECT_NE(md.find("## Trust"), std::string::npos);
  // And the self-contained HTML page beside it (tests/browser opens one).
  std::string html = testing::ReadFile(dir + "/tracehound-report.html");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("\"verdict\":\""), std::string::npos);
  EXPECT_EQ(Tracehound("analyze " + testing::TempDir() + "/nothing-here.json").status, 2);
}

}  // namespace
}  // namespace th
