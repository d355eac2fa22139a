#include "tests/support/hlo_plugin_runner.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/test_files.h"
#include "tests/support/xspace_fixture.h"

namespace th::testing {

PluginRun RunHloPlugin(const std::string& plugin_dir, const std::string& library,
                       const tracehound::hlo::HloModuleProto& module,
                       const std::map<std::string, OptionValue>& options) {
  static int captures = 0;
  std::string dir = TempDir() + "/hlo_capture_" + std::to_string(++captures);
  std::filesystem::create_directories(dir);
  XSpaceBuilder b;
  b.EmbedHlo(module);
  b.AddPlane(0, "/device:GPU:0");
  EXPECT_TRUE(b.WriteTo(dir + "/h.xplane.pb"));
  PluginRun run;
  auto set = LoadTraceSet({dir + "/h.xplane.pb"}, LoadOptions{});
  EXPECT_TRUE(set.ok()) << set.status().message();
  if (!set.ok()) return run;
  auto plugin = LoadPluginLibrary(plugin_dir + "/" + library);
  EXPECT_TRUE(plugin.ok()) << plugin.status().message();
  if (!plugin.ok()) return run;
  Status s = RunPlugin(**plugin, *set, options, &run.results);
  EXPECT_TRUE(s.ok()) << s.message();
  for (const Metric& m : run.results.metrics) run.metrics[m.name] = m.value;
  return run;
}

}  // namespace th::testing
