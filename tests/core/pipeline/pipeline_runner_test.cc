// RunPipeline runs the plugins at the same time where their tables allow:
// every report (JSON, Markdown) is byte for byte that of a one-thread run but
// for the measured seconds; the report carries each phase's time, and the
// terminal summary, written last, lists every file output's.
#include "core/pipeline/pipeline_runner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include "core/pipeline/pipeline_loader.h"
#include "core/plugin/plugin_host.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

struct DefaultPipeline {
  PluginRegistry registry;
  Pipeline pipeline;
};

const DefaultPipeline& Default() {
  static const DefaultPipeline* p = [] {
    SetPluginLogLevel(2);
    auto* out = new DefaultPipeline;
    Status s = out->registry.LoadDirectories({TRACEHOUND_PLUGIN_DIR});
    EXPECT_TRUE(s.ok()) << s.message();
    auto pipeline = LoadPipeline(std::string(TRACEHOUND_SOURCE_DIR) + "/configs/default.yaml",
                                 out->registry.Declarations());
    EXPECT_TRUE(pipeline.ok()) << pipeline.status().message();
    if (pipeline.ok()) out->pipeline = std::move(*pipeline);
    out->pipeline.outputs.clear();
    return out;
  }();
  return *p;
}

// Every "...seconds": <number> made "...seconds": 0 (the one thing that may
// differ between two runs), in JSON and in the Markdown's "N.NNN s" cells.
std::string WithoutSeconds(const std::string& text) {
  static const std::regex json("(seconds\": )[-0-9.e+]+");
  static const std::regex markdown("[0-9]+\\.[0-9]{3} s\\b");
  return std::regex_replace(std::regex_replace(text, json, "$1 0"), markdown, "T s");
}

struct Rendered {
  std::string json, markdown;
};

Rendered RunWithThreads(const std::vector<std::string>& inputs, int threads) {
  Pipeline p = Default().pipeline;
  p.threads = threads;
  auto run = RunPipeline(p, Default().registry, inputs);
  EXPECT_TRUE(run.ok()) << run.status().message();
  if (!run.ok()) return {};
  std::ostringstream json, markdown;
  WriteReportJson((*run)->report, json);
  WriteReportMarkdown((*run)->report, markdown);
  return {json.str(), markdown.str()};
}

class ConcurrentPlugins : public ::testing::TestWithParam<std::string> {};

TEST_P(ConcurrentPlugins, ReportsAreThoseOfAOneThreadRun) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: no real trace to run";
  const std::string input = data + "/" + GetParam();
  ASSERT_TRUE(std::filesystem::exists(input)) << input;
  Rendered one = RunWithThreads({input}, 1);
  ASSERT_FALSE(one.json.empty());
  // The seconds are the only difference, and they are there to differ.
  EXPECT_NE(one.json.find("\"plugins_seconds\": "), std::string::npos);
  for (int threads : {0, 2, 4}) {
    Rendered many = RunWithThreads({input}, threads);
    EXPECT_EQ(WithoutSeconds(many.json), WithoutSeconds(one.json)) << "threads " << threads;
    EXPECT_EQ(WithoutSeconds(many.markdown), WithoutSeconds(one.markdown)) << "threads " << threads;
  }
}

// A multi-rank run (collectives, stragglers), a single-rank training and an
// inference trace, an XSpace capture with HLO.
INSTANTIATE_TEST_SUITE_P(
    RealTraces, ConcurrentPlugins,
    ::testing::Values(
        "param/et_replay/tests/data/dlrm_kineto.tar.gz",
        "hta/tests/data/df_index_resolver/df_index_resolver.json.gz",
        "tracelens/tests/traces/h100/google_owlv2-large-patch14-ensemble__1016001.json.gz",
        "tracelens/tests/traces/mi300/jax_conv_minimal_08/tw003.xplane.pb"),
    [](const auto& info) { return testing::ParamName(info.param); });

// On traces already loaded (what `serve` does with a run's traces): the same
// report as RunPipeline's from the files, but for the import's seconds.
TEST(RunPipelineOn, LoadedTracesGiveTheReportOfTheFiles) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: no real trace to run";
  const std::string input = data + "/param/et_replay/tests/data/dlrm_kineto.tar.gz";
  auto from_files = RunPipeline(Default().pipeline, Default().registry, {input});
  ASSERT_TRUE(from_files.ok()) << from_files.status().message();
  auto set = LoadTraceSet({input}, {});
  ASSERT_TRUE(set.ok()) << set.status().message();
  auto loaded = RunPipelineOn(Default().pipeline, Default().registry, *set);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_TRUE((*loaded)->traces.traces.empty());
  EXPECT_EQ((*loaded)->report.traces, &*set);
  EXPECT_GT((*loaded)->report.results.findings.size(), 0u);
  std::ostringstream a, b;
  WriteReportJson((*from_files)->report, a);
  WriteReportJson((*loaded)->report, b);
  EXPECT_EQ(WithoutSeconds(b.str()), WithoutSeconds(a.str()));
}

TEST(PipelineTiming, EveryPhaseIsTimedAndTheTerminalListsEveryFile) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: no real trace to run";
  Pipeline p = Default().pipeline;
  const std::string dir = testing::TempDir();
  p.outputs = {{"terminal", "", {}, {}, ""},
               {"json", dir + "/findings.json", {}, {}, ""},
               {"markdown", dir + "/report.md", {}, {}, ""}};
  auto run = RunPipeline(p, Default().registry,
                         {data + "/hta/tests/data/df_index_resolver/df_index_resolver.json.gz"});
  ASSERT_TRUE(run.ok()) << run.status().message();
  const PhaseTimes& t = (*run)->report.timing;
  EXPECT_GT(t.import_seconds, 0);
  EXPECT_GT(t.plugins_seconds, 0);
  for (const PluginOutcome& o : (*run)->report.plugins) EXPECT_LE(o.seconds, t.plugins_seconds);
  std::ostringstream terminal;
  ASSERT_TRUE(WritePipelineOutputs(p, **run, terminal).ok());
  ASSERT_EQ(t.outputs.size(), 2u);
  EXPECT_EQ(t.outputs[0].type, "json");
  EXPECT_EQ(t.outputs[1].path, dir + "/report.md");
  // The terminal, written last, names both files; the JSON, written first,
  // lists no output; the Markdown, second, lists the JSON.
  const std::string line = terminal.str().substr(terminal.str().find("\ntime: import "));
  EXPECT_NE(line.find("json " + dir + "/findings.json "), std::string::npos) << line;
  EXPECT_NE(line.find("markdown " + dir + "/report.md "), std::string::npos) << line;
  EXPECT_NE(testing::ReadFile(dir + "/findings.json").find("\"outputs\": []"), std::string::npos);
  const std::string md = testing::ReadFile(dir + "/report.md");
  EXPECT_NE(md.find("## Where the time went"), std::string::npos);
  EXPECT_NE(md.find("| json " + dir + "/findings.json | "), std::string::npos);
  EXPECT_EQ(md.find("| markdown " + dir), std::string::npos);
}

}  // namespace
}  // namespace th
