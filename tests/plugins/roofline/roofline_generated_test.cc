// The job `tracehound generate` writes (the quick start's demo, and many
// tests' input) is physically possible on the H100 it names: every op the
// roofline models runs within the device's peaks, so its report carries no
// "exceeds the roofline" finding. The generator's recorded shapes and its
// kernel times are written apart (kineto_generator.cc); this keeps them in
// step, the straggler's slower rank included.
#include <gtest/gtest.h>

#include <string>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "core/synth/kineto_generator.h"
#include "tests/support/derived_values.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

TEST(RooflineGeneratedJob, EveryOpRunsWithinThePeaks) {
  synth::Scenario s;
  s.ranks = 4;
  s.steps = 6;
  s.straggler_rank = 2;
  auto paths =
      synth::WriteKinetoTraces(s, testing::TempDir() + "/roofline_generated", true, nullptr);
  ASSERT_TRUE(paths.ok()) << paths.status().message();
  auto set = LoadTraceSet(*paths, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  auto plugin = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/th_roofline.so");
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  PluginResults r;
  ASSERT_TRUE(RunPlugin(**plugin, *set, {}, &r).ok());

  const DerivedTable& ops = r.tables.at("roofline_ops");
  const auto& name = th::testing::Col<std::string>(ops, "name");
  const auto& dims = th::testing::Col<std::string>(ops, "input_dims");
  const auto& efficiency = th::testing::Col<double>(ops, "efficiency");
  ASSERT_GT(ops.rows, 40u);  // 4 ranks, about a dozen modelled shapes each
  for (size_t i = 0; i < ops.rows; ++i) {
    EXPECT_GT(efficiency[i], 0.0) << name[i] << " " << dims[i];
    EXPECT_LE(efficiency[i], 1.05) << name[i] << " " << dims[i];
  }
  for (const Finding& f : r.findings)
    EXPECT_EQ(f.title.find("exceeds the roofline"), std::string::npos) << f.title;
}

}  // namespace
}  // namespace th
