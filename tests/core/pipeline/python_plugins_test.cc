// Python plugins from C++: a pipeline of C++ plugins alone never maps
// libpython; one naming a Python plugin loads it, runs the plugin through the
// C ABI and gets its findings. Each TEST runs in its own process (ctest), so
// /proc/self/maps shows what that test's pipeline mapped.
#include "core/pipeline/python_plugins.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/pipeline/pipeline_runner.h"
#include "core/plugin/plugin_host.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

// One kernel of 5000 ns and one of 7000 ns on a GPU stream.
constexpr char kTrace[] = R"({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 10, "dur": 5,
   "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "softmax", "pid": 0, "tid": 7, "ts": 20, "dur": 7,
   "args": {"device": 0, "stream": 7, "correlation": 2}}]})";

bool LibpythonMapped() {
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  EXPECT_FALSE(text.str().empty());
  return text.str().find("libpython") != std::string::npos;
}

StatusOr<std::unique_ptr<PipelineRun>> RunYaml(const std::string& yaml, PluginRegistry* registry) {
  SetPluginLogLevel(2);
  const std::string trace = testing::WriteTempFile("rank0.pt.trace.json", kTrace);
  const std::string path = testing::WriteTempFile("pipeline.yaml", yaml);
  auto document = PipelineDocument::Read(path);
  if (!document.ok()) return document.status();
  TH_RETURN_IF_ERROR(registry->LoadDirectories({TRACEHOUND_PLUGIN_DIR}));
  TH_RETURN_IF_ERROR(LoadPipelinePythonPlugins(*document, registry));
  auto pipeline = document->Validate(registry->Declarations());
  if (!pipeline.ok()) return pipeline.status();
  return RunPipeline(*pipeline, *registry, {trace});
}

TEST(PythonPlugins, CppPluginsAloneNeverMapLibpython) {
  PluginRegistry registry;
  auto run = RunYaml("version: 1\nplugins:\n  kernel-stats: {}\n", &registry);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ((*run)->exit_code, 0);
  EXPECT_FALSE((*run)->report.results.metrics.empty());
  EXPECT_FALSE(LibpythonMapped());
}

TEST(PythonPlugins, APythonPluginLoadsTheInterpreterAndReports) {
  PluginRegistry registry;
  auto run =
      RunYaml(std::string("version: 1\nplugins:\n  kernel-totals:\n    python: \"") +
                  TRACEHOUND_SOURCE_DIR + "/sdk/examples/python/kernel_totals.py:KernelTotals" +
                  "\"\n    min_longest_ns: 6000\n",
              &registry);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ((*run)->exit_code, 0);
  EXPECT_TRUE(LibpythonMapped());
  const AnalysisReport& report = (*run)->report;
  ASSERT_EQ(report.results.findings.size(), 1u);
  EXPECT_EQ(report.results.findings[0].title, "Rank 0's longest kernel runs 7000 ns");
  std::vector<std::string> metrics;
  for (const Metric& m : report.results.metrics)
    metrics.push_back(m.name + "=" + std::to_string(static_cast<int64_t>(m.value)) + m.unit);
  EXPECT_EQ(metrics, (std::vector<std::string>{"kernel_count=2", "kernel_time=12000ns"}));
}

}  // namespace
}  // namespace th
