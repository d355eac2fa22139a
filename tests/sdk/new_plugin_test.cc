// `tracehound new-plugin ID [--kind analyzer|detector]`: the skeleton's
// templates and id rules, and the command end to end: the written project of
// each kind builds against the installed SDK, its own test (on the SDK's test
// kit) passes, and the library reports through the real host what its test
// expects.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "core/sdk_scaffold/plugin_scaffold.h"
#include "tests/sdk/sdk_test_support.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

namespace fs = std::filesystem;
using sdk_test::CommandResult;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(PluginScaffold, PluginIdsAreKebabCase) {
  for (const char* ok : {"a", "my-probe", "long-kernels", "p2p-bandwidth", "x1-2y"})
    EXPECT_TRUE(IsKebabCasePluginId(ok)) << ok;
  for (const char* bad : {"", "Bad_Id", "my_probe", "MyProbe", "-probe", "probe-", "my--probe",
                          "1probe", "my-Probe", "my probe", "my.probe", "ünï"})
    EXPECT_FALSE(IsKebabCasePluginId(bad)) << bad;
  EXPECT_EQ(PluginIdToSnakeCase("p2p-bandwidth"), "p2p_bandwidth");
  EXPECT_EQ(PluginIdToClassName("p2p-bandwidth"), "P2pBandwidth");
  EXPECT_EQ(PluginIdToClassName("x1-2y"), "X12y");
}

TEST(PluginScaffold, RefusesIdsThatNameReservedCMakeTargets) {
  Status s = CheckPluginId("test");
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  EXPECT_TRUE(Contains(s.message(), "reserves")) << s.message();
  EXPECT_FALSE(CheckPluginId("edit-cache").ok());
  EXPECT_TRUE(CheckPluginId("test-probe").ok());
  Status bad = CheckPluginId("Bad_Id");
  EXPECT_TRUE(Contains(bad.message(), "'Bad_Id' is not kebab-case")) << bad.message();
}

TEST(PluginScaffold, FilesNameThePluginEverywhere) {
  std::vector<ScaffoldFile> files = PluginScaffoldFiles("my-probe");
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0].path, "CMakeLists.txt");
  EXPECT_EQ(files[1].path, "my_probe.cc");
  EXPECT_EQ(files[2].path, "test_my_probe.cc");
  EXPECT_EQ(files[3].path, "README.md");
  for (const ScaffoldFile& f : files) {
    EXPECT_FALSE(Contains(f.contents, "@ID@") || Contains(f.contents, "@SNAKE@") ||
                 Contains(f.contents, "@CLASS@") || Contains(f.contents, "@SDK@"))
        << f.path << " has an unexpanded placeholder";
  }
  const std::string& cmake = files[0].contents;
  EXPECT_TRUE(Contains(cmake, "find_package(tracehound_sdk "));
  EXPECT_TRUE(Contains(cmake, "th_add_plugin(my_probe my_probe.cc)"));
  EXPECT_TRUE(Contains(cmake, "enable_testing()"));
  EXPECT_TRUE(
      Contains(cmake, "add_test(NAME my_probe COMMAND test_my_probe $<TARGET_FILE:my_probe>)"));
  EXPECT_FALSE(Contains(cmake, "GTest"));
  EXPECT_TRUE(Contains(files[1].contents, "class MyProbe final : public th::sdk::Plugin"));
  EXPECT_TRUE(Contains(files[1].contents, "Declaration(\"my-probe\""));
  EXPECT_TRUE(Contains(files[1].contents, "TH_PLUGIN(MyProbe)"));
  EXPECT_TRUE(Contains(files[2].contents, "#include <tracehound/testing.h>"));
  EXPECT_TRUE(Contains(files[2].contents, "kit::PluginLibrary plugin(argv[1]);"));
  EXPECT_TRUE(Contains(files[2].contents, "std::string(d->id) == \"my-probe\""));
  EXPECT_FALSE(Contains(files[2].contents, "th_host_api")) << "the test hand-writes a host";
  for (const char* section : {"# my-probe\n", "## Definition", "## Options", "## Example",
                              "## Testing", "| `kernels_only` | bool | `false` |"})
    EXPECT_TRUE(Contains(files[3].contents, section)) << section;
}

TEST(PluginScaffold, BuildsReleaseUnlessToldOtherwise) {
  for (ScaffoldKind kind : {ScaffoldKind::kAnalyzer, ScaffoldKind::kDetector}) {
    const std::string cmake = PluginScaffoldFiles("my-probe", kind)[0].contents;
    EXPECT_TRUE(Contains(cmake,
                         "if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)\n"
                         "  set(CMAKE_BUILD_TYPE Release CACHE STRING"))
        << cmake;
    EXPECT_LT(cmake.find("CMAKE_BUILD_TYPE Release"), cmake.find("th_add_plugin("));
  }
}

TEST(PluginScaffold, KindsAreAnalyzerAndDetector) {
  EXPECT_EQ(ParseScaffoldKind("analyzer"), ScaffoldKind::kAnalyzer);
  EXPECT_EQ(ParseScaffoldKind("detector"), ScaffoldKind::kDetector);
  EXPECT_EQ(ParseScaffoldKind("Detector"), std::nullopt);
  EXPECT_EQ(ParseScaffoldKind(""), std::nullopt);
  EXPECT_EQ(PluginScaffoldFiles("my-probe")[1].contents,
            PluginScaffoldFiles("my-probe", ScaffoldKind::kAnalyzer)[1].contents);
}

TEST(PluginScaffold, AnalyzerPublishesADeclaredTableWithComputePrimitives) {
  std::vector<ScaffoldFile> files = PluginScaffoldFiles("my-probe", ScaffoldKind::kAnalyzer);
  const std::string& plugin = files[1].contents;
  EXPECT_TRUE(Contains(plugin, "th::sdk::kAnalyzer"));
  EXPECT_TRUE(Contains(plugin, ".Publishes(th::sdk::Schema(\"my_probe_streams\""));
  EXPECT_TRUE(Contains(plugin, "ctx.Publish(th::sdk::Table(\"my_probe_streams\")"));
  EXPECT_TRUE(Contains(plugin, "ctx.IntervalUnion("));
  EXPECT_TRUE(Contains(plugin, "ctx.ReduceByKey("));
  EXPECT_TRUE(Contains(files[2].contents, "kit::ExpectTable(all, \"my_probe_streams\", 1)"));
  EXPECT_TRUE(Contains(files[3].contents, "**publishes:** `my_probe_streams`"));
}

TEST(PluginScaffold, DetectorReportsFindingsWithSavingAndTimeLost) {
  std::vector<ScaffoldFile> files = PluginScaffoldFiles("my-probe", ScaffoldKind::kDetector);
  ASSERT_EQ(files.size(), 4u);
  const std::string& plugin = files[1].contents;
  EXPECT_TRUE(Contains(plugin, "class MyProbe final : public th::sdk::Plugin"));
  EXPECT_TRUE(Contains(plugin, "th::sdk::kDetector"));
  for (const char* call : {".TimeLost(", ".Saving(", ".Group(", ".At(", "ctx.ReduceByKey("})
    EXPECT_TRUE(Contains(plugin, call)) << call;
  EXPECT_TRUE(Contains(plugin, "TH_PLUGIN(MyProbe)"));
  EXPECT_TRUE(Contains(files[2].contents, "kit::ExpectFindingCount(r, gemm, 1)"));
  EXPECT_TRUE(Contains(files[2].contents, "d->kind == TH_KIND_DETECTOR"));
  for (const char* section :
       {"**Kind:** detector", "## Definition", "## Options", "## Testing",
        "| `threshold_us` | int | `1000` |", "  my-probe: {threshold_us: 500}"})
    EXPECT_TRUE(Contains(files[3].contents, section)) << section;
}

TEST(PluginScaffold, WritesIntoANewOrEmptyDirectoryOnly) {
  std::string parent = testing::TempDir() + "/scaffold";
  fs::create_directories(parent + "/empty-one");
  auto written = WritePluginScaffold("empty-one", parent);
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_EQ(written->size(), 4u);
  for (const std::string& path : *written) EXPECT_TRUE(fs::is_regular_file(path)) << path;

  auto again = WritePluginScaffold("empty-one", parent);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kInvalidInput);
  EXPECT_TRUE(Contains(again.status().message(), "empty-one: exists and is not empty"))
      << again.status().message();

  std::ofstream(parent + "/a-file") << "x";
  auto file = WritePluginScaffold("a-file", parent);
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(Contains(file.status().message(), "exists and is not a directory"));

  auto bad = WritePluginScaffold("Bad_Id", parent);
  ASSERT_FALSE(bad.ok());
  EXPECT_FALSE(fs::exists(parent + "/Bad_Id"));
}

class NewPluginCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string help;
    if (!sdk_test::HasSubcommand("new-plugin", &help))
      GTEST_SKIP() << "`tracehound new-plugin` is not wired into the CLI yet:\n" << help;
  }
};

// Writes `id` of `kind` under `work` with the CLI, installs the SDK, builds
// the project (no build type given) and runs its tests; returns the build
// directory.
std::string WriteBuildAndTest(const std::string& work, const std::string& id,
                              const std::string& kind) {
  CommandResult made = sdk_test::Tracehound({"new-plugin", id, "--dir", work, "--kind", kind});
  EXPECT_EQ(made.status, 0) << made.out;
  const std::string dir = work + "/" + id, snake = PluginIdToSnakeCase(id);
  for (const std::string& f : {std::string("CMakeLists.txt"), snake + ".cc",
                               "test_" + snake + ".cc", std::string("README.md")}) {
    EXPECT_TRUE(fs::is_regular_file(dir + "/" + f)) << f;
    EXPECT_TRUE(Contains(made.out, dir + "/" + f)) << "not printed: " << f << "\n" << made.out;
  }
  std::string prefix = work + "/prefix";
  CommandResult install = sdk_test::InstallSdk(prefix);
  EXPECT_EQ(install.status, 0) << install.out;
  std::string build = dir + "/build";
  CommandResult built = sdk_test::BuildProject(dir, build, prefix);
  EXPECT_EQ(built.status, 0) << built.out;
  EXPECT_TRUE(
      Contains(testing::ReadFile(build + "/CMakeCache.txt"), "CMAKE_BUILD_TYPE:STRING=Release"));
  CommandResult ctest =
      sdk_test::Run({TH_CTEST_COMMAND, "--test-dir", build, "--output-on-failure"});
  EXPECT_EQ(ctest.status, 0) << ctest.out;
  EXPECT_TRUE(Contains(ctest.out, "100% tests passed")) << ctest.out;
  return build;
}

// Rank 0: aten::mm on the CPU, gemm (20 µs) and relu (5 µs) on stream 7.
StatusOr<TraceSet> SmallTrace() {
  std::string trace = testing::WriteTempFile("new-plugin-trace.json", R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 50},
      {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 10, "dur": 20},
      {"ph": "X", "cat": "kernel", "name": "relu", "pid": 0, "tid": 7, "ts": 40, "dur": 5}]})");
  return LoadTraceSet({trace}, LoadOptions{});
}

TEST_F(NewPluginCommand, WritesAnAnalyzerThatBuildsPassesItsTestAndLoads) {
  std::string build = WriteBuildAndTest(testing::TempDir() + "/new-plugin", "my-probe", "analyzer");
  ASSERT_FALSE(HasFailure());

  // Through the real host: the metric per rank and the table the skeleton publishes.
  auto plugin = LoadPluginLibrary(build + "/my_probe.so");
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  EXPECT_EQ((*plugin)->declaration.id, "my-probe");
  EXPECT_EQ((*plugin)->declaration.kind, PluginKind::kAnalyzer);
  auto set = SmallTrace();
  ASSERT_TRUE(set.ok()) << set.status().message();
  for (bool kernels_only : {false, true}) {
    PluginResults results;
    Status s = RunPlugin(**plugin, *set, {{"kernels_only", kernels_only}}, &results);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_EQ(results.metrics.size(), 1u);
    EXPECT_EQ(results.metrics[0].plugin, "my-probe");
    EXPECT_EQ(results.metrics[0].name, "events");
    EXPECT_EQ(results.metrics[0].value, kernels_only ? 2 : 3);
    ASSERT_EQ(results.tables.count("my_probe_streams"), 1u);
    const DerivedTable& t = results.tables.at("my_probe_streams");
    ASSERT_EQ(t.rows, 1u);
    EXPECT_EQ(std::get<std::vector<int64_t>>(t.Find("stream")->values), std::vector<int64_t>{7});
    EXPECT_EQ(std::get<std::vector<int64_t>>(t.Find("time")->values), std::vector<int64_t>{25'000});
    EXPECT_EQ(std::get<std::vector<int64_t>>(t.Find("busy")->values), std::vector<int64_t>{25'000});
  }
}

TEST_F(NewPluginCommand, WritesADetectorThatBuildsPassesItsTestAndFinds) {
  std::string build =
      WriteBuildAndTest(testing::TempDir() + "/new-detector", "slow-kernels", "detector");
  ASSERT_FALSE(HasFailure());

  auto plugin = LoadPluginLibrary(build + "/slow_kernels.so");
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  EXPECT_EQ((*plugin)->declaration.kind, PluginKind::kDetector);
  auto set = SmallTrace();
  ASSERT_TRUE(set.ok()) << set.status().message();
  PluginResults results;
  Status s = RunPlugin(**plugin, *set, {{"threshold_us", int64_t{10}}}, &results);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(results.findings.size(), 1u);
  const Finding& f = results.findings[0];
  EXPECT_EQ(f.plugin, "slow-kernels");
  EXPECT_EQ(f.severity, FindingSeverity::kP2);
  EXPECT_EQ(f.title, "long kernel gemm");
  EXPECT_EQ(f.group, "gemm");
  EXPECT_EQ(f.time_lost_ns, 20'000.0);
  EXPECT_EQ(f.saving_ns, 10'000.0);
  EXPECT_EQ(f.range, std::make_pair(int64_t{10'000}, int64_t{30'000}));
}

TEST_F(NewPluginCommand, RefusesABadIdAndAnExistingDirectory) {
  std::string work = testing::TempDir() + "/new-plugin-refusals";
  CommandResult bad = sdk_test::Tracehound({"new-plugin", "Bad_Id", "--dir", work});
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_TRUE(Contains(bad.out, "'Bad_Id' is not kebab-case")) << bad.out;
  EXPECT_FALSE(fs::exists(work + "/Bad_Id"));

  CommandResult first = sdk_test::Tracehound({"new-plugin", "my-probe", "--dir", work});
  ASSERT_EQ(first.status, 0) << first.out;
  std::string before = testing::ReadFile(work + "/my-probe/my_probe.cc");
  CommandResult again = sdk_test::Tracehound({"new-plugin", "my-probe", "--dir", work});
  EXPECT_EQ(again.status, 2) << again.out;
  EXPECT_TRUE(Contains(again.out, "exists and is not empty")) << again.out;
  EXPECT_EQ(testing::ReadFile(work + "/my-probe/my_probe.cc"), before);

  CommandResult kind =
      sdk_test::Tracehound({"new-plugin", "other-probe", "--dir", work, "--kind", "exporter"});
  EXPECT_EQ(kind.status, 2) << kind.out;
  EXPECT_FALSE(fs::exists(work + "/other-probe"));
}

}  // namespace
}  // namespace th
