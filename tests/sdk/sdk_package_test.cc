// The SDK as an out-of-tree author uses it: install the `sdk` component to a
// prefix, build sdk/examples/long-kernels as its own CMake project against
// it, load the result, and see its finding in a pipeline's JSON report.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/plugin/plugin_loader.h"
#include "tests/sdk/sdk_test_support.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

namespace fs = std::filesystem;
using sdk_test::CommandResult;

class SdkPackage : public ::testing::Test {
 protected:
  void SetUp() override {
    // Only the directories a test names are searched.
    ::unsetenv("TRACEHOUND_PLUGIN_PATH");
  }

  // Installs the SDK to <work>/prefix and builds the example into
  // <work>/long-kernels-build; returns the plugin library's path.
  std::string InstallAndBuildExample(const std::string& work) {
    prefix_ = work + "/prefix";
    CommandResult install = sdk_test::InstallSdk(prefix_);
    EXPECT_EQ(install.status, 0) << install.out;
    build_ = work + "/long-kernels-build";
    CommandResult build = sdk_test::BuildProject(LONG_KERNELS_EXAMPLE_DIR, build_, prefix_);
    EXPECT_EQ(build.status, 0) << build.out;
    return build_ + "/long_kernels.so";
  }

  std::string prefix_, build_;
};

TEST_F(SdkPackage, InstallsOnlyTheSdkAndTheExampleBuildsAndLoads) {
  std::string work = testing::TempDir() + "/sdk-package";
  std::string library = InstallAndBuildExample(work);

  // The component holds the headers and the package files, nothing else.
  for (const char* f :
       {"include/tracehound/plugin_api.h", "include/tracehound/sdk.h",
        "include/tracehound/testing.h", "lib/cmake/tracehound_sdk/tracehound_sdkConfig.cmake",
        "lib/cmake/tracehound_sdk/tracehound_sdkConfigVersion.cmake",
        "lib/cmake/tracehound_sdk/tracehound_sdkTargets.cmake"}) {
    EXPECT_TRUE(fs::is_regular_file(prefix_ + "/" + f)) << f;
  }
  EXPECT_FALSE(fs::exists(prefix_ + "/bin")) << "the sdk component installed the tracehound binary";
  EXPECT_FALSE(fs::exists(prefix_ + "/lib/tracehound")) << "the sdk component installed plugins";
  std::string version =
      testing::ReadFile(prefix_ + "/lib/cmake/tracehound_sdk/tracehound_sdkConfigVersion.cmake");
  EXPECT_NE(version.find("\"" TRACEHOUND_VERSION "\""), std::string::npos) << version;

  ASSERT_TRUE(fs::is_regular_file(library)) << library;
  auto plugin = LoadPluginLibrary(library);
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  const PluginDeclaration& d = (*plugin)->declaration;
  EXPECT_EQ(d.id, "long-kernels");
  EXPECT_EQ(d.kind, PluginKind::kDetector);
  EXPECT_EQ(d.reads, (std::vector<std::string>{"events", "tracks"}));
  ASSERT_EQ(d.options.size(), 1u);
  EXPECT_EQ(d.options[0].name, "threshold_us");
  EXPECT_EQ(d.options[0].type, OptionType::kInt);
  EXPECT_EQ(std::get<int64_t>(d.options[0].default_value), 1000);
  EXPECT_EQ(d.options[0].min, 0.0);
}

TEST_F(SdkPackage, ExampleFindingReachesTheJsonReportThroughTheCli) {
  std::string help;
  if (!sdk_test::HasSubcommand("run", &help))
    GTEST_SKIP() << "`tracehound run` is not available yet:\n" << help;

  std::string work = testing::TempDir() + "/sdk-run";
  std::string library = InstallAndBuildExample(work);
  ASSERT_TRUE(fs::is_regular_file(library)) << library;

  std::string trace = work + "/trace";
  CommandResult gen =
      sdk_test::Tracehound({"generate", "--out", trace, "--ranks", "1", "--steps", "2"});
  ASSERT_EQ(gen.status, 0) << gen.out;

  std::string findings = work + "/findings.json";
  std::string pipeline = work + "/pipeline.yaml";
  std::ofstream(pipeline) << "version: 1\n"
                          << "plugin_paths: [\"" << build_ << "\"]\n"
                          << "plugins:\n"
                          << "  long-kernels: {threshold_us: 1}\n"
                          << "outputs:\n"
                          << "  - {type: json, path: \"" << findings << "\"}\n";
  CommandResult run = sdk_test::Tracehound({"run", pipeline, trace});
  ASSERT_TRUE(run.status == 0 || run.status == 3) << "exit " << run.status << "\n" << run.out;

  ASSERT_TRUE(fs::is_regular_file(findings)) << run.out;
  simdjson::dom::parser parser;
  simdjson::dom::element report;
  ASSERT_EQ(parser.load(findings).get(report), simdjson::SUCCESS);
  EXPECT_EQ(std::string_view(report["plugins"]["long-kernels"]["status"]), "ok");
  int ours = 0;
  for (simdjson::dom::element f : report["findings"].get_array()) {
    if (std::string_view(f["plugin"]) != "long-kernels") continue;
    if (++ours > 1) continue;  // look closely at the first
    EXPECT_EQ(std::string_view(f["severity"]), "P2");
    EXPECT_EQ(std::string_view(f["title"]).rfind("long kernel ", 0), 0u);
    simdjson::dom::element evidence = f["evidence"].at(0);
    EXPECT_EQ(std::string_view(evidence["name"]), "duration");
    EXPECT_EQ(std::string_view(evidence["unit"]), "ns");
    EXPECT_EQ(std::string_view(evidence["kind"]), "measured");
    EXPECT_GE(double(evidence["value"]), 1000.0);
    EXPECT_EQ(int64_t(f["scope"]["rank"]), 0);
    EXPECT_TRUE(f["scope"]["stream"].is_int64()) << "a kernel's finding names its stream";
  }
  EXPECT_GT(ours, 0) << "no finding of long-kernels in " << findings << "\n" << run.out;
  EXPECT_EQ(std::string_view(report["verdict"]), "NEEDS_ATTENTION");
}

}  // namespace
}  // namespace th
