#include "core/pipeline/pipeline_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "core/pipeline/pipeline.h"
#include "tests/core/pipeline/pipeline_test_catalog.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using th::testing::Options;
using th::testing::TestCatalog;
using th::testing::WritePipeline;
using th::testing::WriteTempFile;

StatusOr<Pipeline> Load(const std::string& path, LoadPipelineOptions options = Options()) {
  return LoadPipeline(path, TestCatalog(), options);
}

// Loads `yaml` and expects it to fail at FILE:line:column with `what` in the message.
void ExpectErrorAt(const std::string& yaml, int line, int column, const std::string& what,
                   LoadPipelineOptions options = Options()) {
  std::string path = WritePipeline(yaml);
  StatusOr<Pipeline> p = Load(path, options);
  ASSERT_FALSE(p.ok()) << yaml;
  const std::string& msg = p.status().message();
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidInput);
  EXPECT_THAT(msg,
              StartsWith(path + ":" + std::to_string(line) + ":" + std::to_string(column) + ": "));
  EXPECT_THAT(msg, HasSubstr(what));
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
}

// Expects an error located in a --set override.
void ExpectSetErrorAt(const std::string& yaml, std::vector<std::string> sets,
                      const std::string& where, const std::string& what) {
  StatusOr<Pipeline> p = Load(WritePipeline(yaml), Options(std::move(sets)));
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), StartsWith(where + ": "));
  EXPECT_THAT(p.status().message(), HasSubstr(what));
}

std::vector<std::string> Ids(const Pipeline& p) {
  std::vector<std::string> ids;
  for (const PluginStep& s : p.plugins) ids.push_back(s.id);
  return ids;
}

const PluginStep& Step(const Pipeline& p, const std::string& id) {
  for (const PluginStep& s : p.plugins)
    if (s.id == id) return s;
  ADD_FAILURE() << "no plugin " << id;
  static const PluginStep kNone;
  return kNone;
}

constexpr char kFull[] = R"(version: 1
inputs: ["${env:TRACE_DIR:-traces}/*.pt.trace.json.gz"]
execution: {backend: cpu, threads: 4}
plugins:
  stream-budget: {}
  stragglers: {min_ranks: 3, severity: P1}
  long-kernels:
    threshold_us: 500
    include_memcpy: true
  kernel-stats:
    enabled: false
outputs:
  - {type: markdown, path: report.md}
  - {type: json, path: findings.json}
  - {type: terminal}
fail_on: P1
)";

TEST(PipelineLoader, LoadsAFullPipelineWithDefaultsFilled) {
  StatusOr<Pipeline> p = Load(WritePipeline(kFull));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->version, 1);
  EXPECT_EQ(p->inputs, std::vector<std::string>{"traces/*.pt.trace.json.gz"});
  EXPECT_EQ(p->backend, "cpu");
  EXPECT_EQ(p->threads, 4);
  EXPECT_EQ(Ids(*p), (std::vector<std::string>{"stream-budget", "stragglers", "long-kernels",
                                               "kernel-stats"}));
  const PluginStep& budget = Step(*p, "stream-budget");
  EXPECT_TRUE(budget.enabled);
  EXPECT_FALSE(budget.severity);
  EXPECT_EQ(budget.options.at("tolerance_pct"), OptionValue(0.5));
  EXPECT_EQ(budget.mark.line, 5);
  EXPECT_EQ(budget.mark.column, 3);
  const PluginStep& stragglers = Step(*p, "stragglers");
  EXPECT_EQ(stragglers.options.at("min_ranks"), OptionValue(int64_t{3}));
  EXPECT_EQ(stragglers.options.at("metric"), OptionValue(std::string("wait")));
  EXPECT_EQ(stragglers.severity, FindingSeverity::kP1);
  const PluginStep& long_kernels = Step(*p, "long-kernels");
  EXPECT_EQ(long_kernels.options.at("threshold_us"), OptionValue(int64_t{500}));
  EXPECT_EQ(long_kernels.options.at("include_memcpy"), OptionValue(true));
  EXPECT_EQ(long_kernels.options.at("label"), OptionValue(std::string("long \"kernel\"")));
  EXPECT_FALSE(Step(*p, "kernel-stats").enabled);
  EXPECT_EQ(Step(*p, "kernel-stats").options.at("top_k"), OptionValue(int64_t{20}));
  ASSERT_EQ(p->outputs.size(), 3u);
  EXPECT_EQ(p->outputs[1].type, "json");
  EXPECT_EQ(p->outputs[1].path, "findings.json");
  EXPECT_EQ(p->outputs[2].type, "terminal");
  EXPECT_EQ(p->fail_on, FindingSeverity::kP1);
}

// `python:` names a Python plugin's class: a file relative to the naming
// pipeline is made absolute, a module is kept; a Python plugin's step keeps
// it (for --dump-config), a C++ plugin has no such option.
TEST(PipelineLoader, PythonPluginsAreReadWithTheirClass) {
  const std::string path = WritePipeline(
      "version: 1\nplugins:\n  my-check: {python: \"checks/my.py:MyCheck\", top_k: 3}\n"
      "  mod-check:\n    python: pkg.checks:ModCheck\n");
  auto document = PipelineDocument::Read(path, Options());
  ASSERT_TRUE(document.ok()) << document.status().message();
  auto refs = document->PythonPlugins();
  ASSERT_TRUE(refs.ok()) << refs.status().message();
  ASSERT_EQ(refs->size(), 2u);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  EXPECT_EQ((*refs)[0].id, "my-check");
  EXPECT_EQ((*refs)[0].spec, dir + "/checks/my.py:MyCheck");
  EXPECT_EQ((*refs)[0].base_dir, dir);
  EXPECT_EQ((*refs)[0].where, path + ":3:22");
  EXPECT_EQ((*refs)[1].spec, "pkg.checks:ModCheck");
  EXPECT_EQ((*refs)[1].where, path + ":5:13");

  // Validated against a catalog holding the imported classes' declarations.
  std::vector<PluginDeclaration> catalog = TestCatalog();
  for (const char* id : {"my-check", "mod-check"}) {
    catalog.push_back(th::testing::Plugin(id, {"events"}, {}));
    catalog.back().library = std::string("python:") + id;
    catalog.back().options.push_back(
        th::testing::Option("top_k", OptionType::kInt, int64_t{1}, "how many"));
  }
  auto pipeline = document->Validate(catalog);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().message();
  EXPECT_EQ(Step(*pipeline, "my-check").python, dir + "/checks/my.py:MyCheck");
  EXPECT_EQ(Step(*pipeline, "my-check").options.at("top_k"), OptionValue(int64_t{3}));
  EXPECT_EQ(Step(*pipeline, "mod-check").python, "pkg.checks:ModCheck");

  const std::string bad = WritePipeline("version: 1\nplugins:\n  my-check: {python: NoColon}\n");
  auto no_class = PipelineDocument::Read(bad, Options())->PythonPlugins();
  ASSERT_FALSE(no_class.ok());
  EXPECT_EQ(no_class.status().message(),
            bad +
                ":3:22: plugin 'my-check': 'python' must be 'module:Class' or "
                "'file.py:Class', got 'NoColon'");
  ExpectErrorAt("version: 1\nplugins:\n  kernel-stats: {python: \"a.py:A\"}\n", 3, 18,
                "unknown option 'python' for plugin 'kernel-stats'");
}

TEST(PipelineLoader, NullOrEmptyPluginIsEnabledWithDefaults) {
  StatusOr<Pipeline> p = Load(WritePipeline("version: 1\nplugins:\n  long-kernels:\n"));
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->plugins.size(), 1u);
  EXPECT_TRUE(p->plugins[0].enabled);
  EXPECT_EQ(p->plugins[0].options.at("threshold_us"), OptionValue(int64_t{1000}));
  EXPECT_EQ(p->plugins[0].options.size(), 3u);
  EXPECT_EQ(p->backend, "auto");
  EXPECT_EQ(p->threads, 0);
  EXPECT_FALSE(p->fail_on);
}

TEST(PipelineLoader, BadTypeIsReportedAtTheValue) {
  ExpectErrorAt(
      "version: 1\nplugins:\n  stream-budget: {}\n  stragglers:\n    min_ranks: \"four\"\n", 5, 16,
      "plugin 'stragglers': option 'min_ranks' expects an int, got the string 'four'");
  // A quoted number is a string, not an int.
  ExpectErrorAt("version: 1\nplugins:\n  long-kernels: {threshold_us: '500'}\n", 3, 32,
                "expects an int, got the string '500'");
  ExpectErrorAt("version: 1\nplugins:\n  long-kernels: {include_memcpy: 1}\n", 3, 34,
                "option 'include_memcpy' expects a bool (true or false), got the int 1");
  // A list where a map of options is expected.
  ExpectErrorAt("version: 1\nplugins:\n  long-kernels: [1, 2]\n", 3, 17,
                "plugin 'long-kernels' expects a map of options (or nothing), got a list");
  ExpectErrorAt("version: 1\nexecution: [cpu]\n", 2, 12, "'execution' expects a map");
  ExpectErrorAt("version: 1\nexecution: {threads: 2.5}\n", 2, 22,
                "'execution.threads' expects an int, got the number 2.5");
  ExpectErrorAt("version: 1\nexecution: {threads: -1}\n", 2, 22, "must be >= 0");
  ExpectErrorAt("version: 1\ninputs: {a: 1}\n", 2, 9, "'inputs' expects a string or a list");
  ExpectErrorAt("version: two\n", 1, 10, "'version' expects an int, got the string 'two'");
  ExpectErrorAt("version: 2\n", 1, 10, "unsupported pipeline version 2");
  ExpectErrorAt("version: 1\nplugins:\n  long-kernels: {threshold_us: 99999999999999999999}\n", 3,
                32, "out of range for an int");
}

TEST(PipelineLoader, ValuesOutsideBoundsOrChoices) {
  ExpectErrorAt("version: 1\nplugins:\n  stream-budget:\n  stragglers: {min_ranks: 1}\n", 4, 27,
                "plugin 'stragglers': option 'min_ranks' must be >= 2, got 1");
  ExpectErrorAt("version: 1\nplugins:\n  stream-budget: {tolerance_pct: 150}\n", 3, 34,
                "option 'tolerance_pct' must be in [0, 100], got 150");
  ExpectErrorAt(
      "version: 1\nplugins:\n  stream-budget:\n  stragglers: {metric: arival}\n", 4, 24,
      "option 'metric' must be one of wait, arrival, got 'arival'; did you mean 'arrival'?");
  ExpectErrorAt("version: 1\nplugins:\n  long-kernels: {severity: P4}\n", 3, 28,
                "plugin 'long-kernels': 'severity' must be one of P0, P1, P2, got 'P4'");
  ExpectErrorAt("version: 1\nexecution:\n  backend: rocm\n", 3, 12,
                "'execution.backend' must be one of auto, cpu, cuda, hip, got 'rocm'");
  ExpectErrorAt("version: 1\nfail_on: P5\n", 2, 10, "'fail_on' must be one of P0, P1, P2");
  ExpectErrorAt("version: 1\noutputs:\n  - {type: pdf, path: x.pdf}\n", 3, 12,
                "output 'type' must be one of terminal, markdown, json, html, trace, got 'pdf'");
  ExpectErrorAt("version: 1\noutputs:\n  - {type: json}\n", 3, 5,
                "an output of type 'json' needs a 'path'");
  ExpectErrorAt("version: 1\noutputs:\n  - path: x.md\n", 3, 5, "an output needs a 'type'");
}

TEST(PipelineLoader, UnknownKeyNamesTheClosestValidOne) {
  ExpectErrorAt("version: 1\nplugins:\n  stream-budget: {}\n  stragglers:\n    min_rank: 3\n", 5, 5,
                "unknown option 'min_rank' for plugin 'stragglers'; did you mean 'min_ranks'?");
  ExpectErrorAt("version: 1\nplugin:\n  stragglers: {}\n", 2, 1,
                "unknown key 'plugin'; did you mean 'plugins'?");
  ExpectErrorAt("version: 1\nexecution: {backend: cpu, thread: 2}\n", 2, 27,
                "unknown key 'thread' in 'execution'; did you mean 'threads'?");
  ExpectErrorAt("version: 1\noutputs:\n  - {type: json, pth: a.json}\n", 3, 18,
                "unknown key 'pth' in an output; did you mean 'path'?");
  ExpectErrorAt("version: 1\nplugins:\n  long-kernels: {enabeld: false}\n", 3, 18,
                "did you mean 'enabled'?");
  // Nothing close: the valid keys are listed instead.
  ExpectErrorAt("version: 1\nwhatever: 1\n", 2, 1,
                "unknown key 'whatever' (valid: version, include, inputs, execution");
}

TEST(PipelineLoader, UnknownPluginIdNamesTheClosestKnownOne) {
  ExpectErrorAt("version: 1\nplugins:\n  stream-budget: {}\n  stragglrs: {min_ranks: 4}\n", 4, 3,
                "unknown plugin 'stragglrs'; did you mean 'stragglers'?");
  ExpectErrorAt("version: 1\nplugins:\n  memory-oom: {}\n", 3, 3,
                "unknown plugin 'memory-oom' (no plugin on the plugin path has this id)");
}

TEST(PipelineLoader, MissingDependencyIsReportedAtThePlugin) {
  ExpectErrorAt("version: 1\nplugins:\n  long-kernels: {}\n  stragglers: {min_ranks: 4}\n", 4, 3,
                "plugin 'stragglers' reads table 'stream_budget' that no enabled plugin "
                "publishes; add 'stream-budget: {}' to plugins, which publishes it");
  ExpectErrorAt(
      "version: 1\nplugins:\n  stream-budget: {enabled: false}\n  stragglers:\n", 4, 3,
      "reads table 'stream_budget' that no enabled plugin publishes; 'stream-budget' publishes "
      "it but is disabled");
  // A disabled reader needs nothing.
  EXPECT_TRUE(Load(WritePipeline("version: 1\nplugins:\n  stragglers: {enabled: false}\n")).ok());
}

TEST(PipelineLoader, DependencyCycleIsAnError) {
  ExpectErrorAt("version: 1\nplugins:\n  long-kernels: {}\n  cyc-b: {}\n  cyc-a: {}\n", 4, 3,
                "plugins form a dependency cycle: 'cyc-b' reads 'table_a' from 'cyc-a', 'cyc-a' "
                "reads 'table_b' from 'cyc-b'");
}

TEST(PipelineLoader, PluginsAreOrderedTopologicallyTiesInFileOrder) {
  StatusOr<Pipeline> p = Load(WritePipeline(
      "version: 1\nplugins:\n  stragglers: {}\n  long-kernels: {}\n  stream-budget: {}\n"
      "  kernel-stats: {}\n"));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(Ids(*p), (std::vector<std::string>{"long-kernels", "stream-budget", "stragglers",
                                               "kernel-stats"}));
  // Already in dependency order: unchanged.
  p = Load(WritePipeline(
      "version: 1\nplugins:\n  kernel-stats: {}\n  stream-budget: {}\n  stragglers: {}\n"));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(Ids(*p), (std::vector<std::string>{"kernel-stats", "stream-budget", "stragglers"}));
}

TEST(PipelineLoader, FirstErrorInFileOrderWins) {
  ExpectErrorAt("version: 1\nexecution: {threads: x}\nplugins:\n  stragglrs: {}\nfail_on: P9\n", 2,
                22, "'execution.threads' expects an int");
  // Structural errors come before dependency errors.
  ExpectErrorAt("version: 1\nplugins:\n  stragglers: {}\n  long-kernels: {threshold_us: x}\n", 4,
                32, "expects an int");
}

TEST(PipelineLoader, EnvironmentSubstitution) {
  const std::string yaml =
      "version: 1\n"
      "inputs: [\"${env:TRACE_DIR:-traces}/a.json\", \"$${env:LITERAL}\"]\n"
      "execution: {threads: \"${env:THREADS:-3}\"}\n"
      "outputs:\n  - {type: json, path: \"${env:OUT}/findings.json\"}\n";
  StatusOr<Pipeline> p = Load(WritePipeline(yaml), Options({}, {{"OUT", "/tmp/run"}}));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->inputs, (std::vector<std::string>{"traces/a.json", "${env:LITERAL}"}));
  EXPECT_EQ(p->threads, 3);  // typed from the substituted text though quoted
  EXPECT_EQ(p->outputs[0].path, "/tmp/run/findings.json");

  p = Load(WritePipeline(yaml),
           Options({}, {{"OUT", "o"}, {"TRACE_DIR", "/data"}, {"THREADS", "8"}}));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->inputs[0], "/data/a.json");
  EXPECT_EQ(p->threads, 8);

  // OUT unset and without a default: an error naming it, at the scalar.
  ExpectErrorAt(yaml, 5, 24,
                "environment variable 'OUT' is not set (write ${env:OUT:-default} to give a "
                "default)");
  // The substituted text is typed: a bad value is a type error.
  ExpectErrorAt(yaml, 3, 22, "'execution.threads' expects an int, got the string 'many'",
                Options({}, {{"OUT", "o"}, {"THREADS", "many"}}));
  ExpectErrorAt("version: 1\ninputs: ${env:X\n", 2, 9, "unterminated ${env:...} reference");
}

TEST(PipelineLoader, SetOverridesAreTypedAsYamlScalars) {
  const std::string yaml = "version: 1\nplugins:\n  stream-budget:\n  stragglers: {min_ranks: 3}\n";
  StatusOr<Pipeline> p =
      Load(WritePipeline(yaml),
           Options({"plugins.stragglers.min_ranks=4", "plugins.long-kernels.include_memcpy=true",
                    "execution.backend=cuda", "plugins.stream-budget.tolerance_pct=2", "fail_on=P0",
                    "inputs=[a.json, b.json]"}));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(Step(*p, "stragglers").options.at("min_ranks"), OptionValue(int64_t{4}));
  EXPECT_EQ(Step(*p, "long-kernels").options.at("include_memcpy"), OptionValue(true));
  EXPECT_EQ(Step(*p, "stream-budget").options.at("tolerance_pct"), OptionValue(2.0));
  EXPECT_EQ(p->backend, "cuda");
  EXPECT_EQ(p->fail_on, FindingSeverity::kP0);
  EXPECT_EQ(p->inputs, (std::vector<std::string>{"a.json", "b.json"}));

  // Disabling through --set.
  p = Load(WritePipeline(yaml), Options({"plugins.stragglers.enabled=false"}));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_FALSE(Step(*p, "stragglers").enabled);
}

TEST(PipelineLoader, BadSetOverridesAreErrorsAtTheOverride) {
  const std::string yaml = "version: 1\nplugins:\n  stream-budget:\n  stragglers:\n";
  // A path through a single value.
  ExpectSetErrorAt(yaml, {"version.major=1"}, "--set:1:9", "'version' is a single value");
  // An unknown option, with the closest one; line = which override.
  ExpectSetErrorAt(yaml, {"fail_on=P1", "plugins.stragglers.min_rnks=4"}, "--set:2:20",
                   "unknown option 'min_rnks' for plugin 'stragglers'; did you mean 'min_ranks'?");
  ExpectSetErrorAt(yaml, {"plugins.straglers.min_ranks=4"}, "--set:1:9",
                   "unknown plugin 'straglers'; did you mean 'stragglers'?");
  // The value is typed: "four" is a string.
  ExpectSetErrorAt(yaml, {"plugins.stragglers.min_ranks=four"}, "--set:1:30",
                   "option 'min_ranks' expects an int, got the string 'four'");
  ExpectSetErrorAt(yaml, {"plugins.stragglers"}, "--set:1:1", "expected PATH=VALUE");
  ExpectSetErrorAt(yaml, {"plugins..min_ranks=4"}, "--set:1:9", "empty key in --set path");
  ExpectSetErrorAt(yaml, {"outputs.0.path=x"}, "--set:1:9", "'outputs' has no item 0");
  ExpectSetErrorAt("version: 1\noutputs: [{type: terminal}]\n", {"outputs.1.path=x"}, "--set:1:9",
                   "'outputs' has no item 1 (it has 1)");
}

TEST(PipelineLoader, AKeyWithAPlusAppendsToTheIncludedList) {
  WriteTempFile("append/base.yaml",
                "version: 1\noutputs:\n  - {type: json, path: base.json}\n"
                "kernel_classes:\n  - {match: \"*a2a*\", class: COMM}\n");
  std::string main = WriteTempFile("append/main.yaml",
                                   "include: base.yaml\n"
                                   "outputs+:\n  - {type: markdown, path: main.md}\n"
                                   "kernel_classes+:\n  - {match: \"*gemm*\", class: COMP}\n");
  StatusOr<Pipeline> p = Load(main);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->outputs.size(), 2u);
  EXPECT_EQ(p->outputs[0].path, "base.json");
  EXPECT_EQ(p->outputs[1].path, "main.md");
  ASSERT_EQ(p->kernel_classes.size(), 2u);
  EXPECT_EQ(p->kernel_classes[1].match, "*gemm*");
  // With nothing to append to, `outputs+:` is `outputs:`.
  StatusOr<Pipeline> alone =
      Load(WritePipeline("version: 1\noutputs+:\n  - {type: json, path: a.json}\n"));
  ASSERT_TRUE(alone.ok()) << alone.status().message();
  ASSERT_EQ(alone->outputs.size(), 1u);
}

TEST(PipelineLoader, AnOutputIntoAMissingFolderIsRefusedBeforeTheRun) {
  StatusOr<Pipeline> p = Load(WritePipeline(
      "version: 1\noutputs:\n  - {type: terminal}\n  - {type: json, path: findings.json}\n"
      "  - {type: html, path: no/such/folder/report.html}\n"));
  ASSERT_TRUE(p.ok()) << p.status().message();
  Status s = CheckOutputFolders(*p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(":5:5: output html 'no/such/folder/report.html': folder "
                             "'no/such/folder' does not exist"),
            std::string::npos)
      << s.message();
  p->outputs.pop_back();
  EXPECT_TRUE(CheckOutputFolders(*p).ok());
}

TEST(PipelineLoader, IncludesMergeUnderTheIncludingFile) {
  WriteTempFile("inc/common/base.yaml",
                "version: 1\n"
                "execution: {backend: cpu, threads: 8}\n"
                "plugin_paths: [../plugins]\n"
                "plugins:\n  stream-budget: {tolerance_pct: 1.5}\n  stragglers: {min_ranks: 3}\n"
                "outputs:\n  - {type: json, path: base.json}\n"
                "fail_on: P2\n");
  WriteTempFile("inc/common/extra.yaml", "plugins:\n  long-kernels: {threshold_us: 10}\n");
  std::string main = WriteTempFile("inc/main.yaml",
                                   "include: [common/base.yaml, common/extra.yaml]\n"
                                   "execution: {threads: 2}\n"
                                   "plugins:\n  stragglers: {severity: P0}\n  kernel-stats:\n"
                                   "outputs:\n  - {type: markdown, path: main.md}\n");
  StatusOr<Pipeline> p = Load(main);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->backend, "cpu");  // from the included file
  EXPECT_EQ(p->threads, 2);      // the includer wins
  EXPECT_EQ(p->plugin_paths,
            std::vector<std::string>{th::testing::TempDir() + "/inc/plugins"});  // relative to base
  EXPECT_EQ(Ids(*p), (std::vector<std::string>{"stream-budget", "stragglers", "long-kernels",
                                               "kernel-stats"}));
  EXPECT_EQ(Step(*p, "stream-budget").options.at("tolerance_pct"), OptionValue(1.5));
  EXPECT_EQ(Step(*p, "stragglers").options.at("min_ranks"), OptionValue(int64_t{3}));
  EXPECT_EQ(Step(*p, "stragglers").severity, FindingSeverity::kP0);
  EXPECT_EQ(Step(*p, "long-kernels").options.at("threshold_us"), OptionValue(int64_t{10}));
  ASSERT_EQ(p->outputs.size(), 1u);  // lists are replaced, not appended
  EXPECT_EQ(p->outputs[0].path, "main.md");
  EXPECT_EQ(p->fail_on, FindingSeverity::kP2);

  StatusOr<std::vector<std::string>> paths = ReadPipelinePluginPaths(main, Options());
  ASSERT_TRUE(paths.ok()) << paths.status().message();
  EXPECT_EQ(*paths, p->plugin_paths);

  // An error inside an included file names that file.
  WriteTempFile("inc/bad.yaml", "plugins:\n  stragglers: {min_ranks: many}\n");
  std::string bad = WriteTempFile("inc/uses_bad.yaml", "version: 1\ninclude: bad.yaml\n");
  p = Load(bad);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(),
              StartsWith(th::testing::TempDir() + "/inc/bad.yaml:2:27: plugin 'stragglers'"));
}

// The CLI reads a pipeline once: its plugin_paths find the plugins, whose
// catalog then validates the same document. Neither step reads the files
// again (they are gone), and the result is LoadPipeline's.
TEST(PipelineDocument, ReadOnceThenPluginPathsAndValidate) {
  WriteTempFile("once/base.yaml", "plugin_paths: [plugins]\nexecution: {threads: 2}\n");
  std::string main = WriteTempFile("once/main.yaml",
                                   "version: 1\ninclude: base.yaml\nplugins:\n  stream-budget: "
                                   "{}\n  stragglers: {min_ranks: 3}\n");
  LoadPipelineOptions options = Options();
  options.set_overrides = {"plugins.stragglers.min_ranks=4"};
  StatusOr<Pipeline> loaded = Load(main, options);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  StatusOr<PipelineDocument> document = PipelineDocument::Read(main, options);
  ASSERT_TRUE(document.ok()) << document.status().message();
  std::filesystem::remove_all(th::testing::TempDir() + "/once");

  StatusOr<std::vector<std::string>> paths = document->PluginPaths();
  ASSERT_TRUE(paths.ok()) << paths.status().message();
  EXPECT_EQ(*paths, std::vector<std::string>{th::testing::TempDir() + "/once/plugins"});
  StatusOr<Pipeline> p = document->Validate(TestCatalog());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->source, main);
  EXPECT_EQ(p->plugin_paths, *paths);
  EXPECT_EQ(p->threads, 2);
  EXPECT_EQ(Ids(*p), Ids(*loaded));
  EXPECT_EQ(Step(*p, "stragglers").options.at("min_ranks"), OptionValue(int64_t{4}));
  EXPECT_EQ(DumpEffectivePipeline(*p), DumpEffectivePipeline(*loaded));
}

// A document whose plugin_paths is not a list of strings says so, at the key.
TEST(PipelineDocument, BadPluginPathsIsAnErrorAtTheValue) {
  std::string path = WritePipeline("version: 1\nplugin_paths: {a: b}\n");
  StatusOr<PipelineDocument> document = PipelineDocument::Read(path, Options());
  ASSERT_TRUE(document.ok()) << document.status().message();
  StatusOr<std::vector<std::string>> paths = document->PluginPaths();
  ASSERT_FALSE(paths.ok());
  EXPECT_THAT(paths.status().message(), StartsWith(path + ":2:"));
  EXPECT_THAT(paths.status().message(), HasSubstr("plugin_paths"));
}

TEST(PipelineLoader, IncludeCycleIsAnError) {
  std::string a = WriteTempFile("cycle/a.yaml", "version: 1\ninclude: b.yaml\n");
  WriteTempFile("cycle/b.yaml", "plugins:\n  long-kernels:\ninclude:\n  - a.yaml\n");
  StatusOr<Pipeline> p = Load(a);
  ASSERT_FALSE(p.ok());
  std::string dir = th::testing::TempDir() + "/cycle/";
  EXPECT_EQ(p.status().message(),
            dir + "b.yaml:4:5: include cycle: " + a + " -> " + dir + "b.yaml -> " + dir + "a.yaml");

  std::string missing = WriteTempFile("cycle/missing.yaml", "version: 1\ninclude: nope.yaml\n");
  p = Load(missing);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), StartsWith(missing + ":2:10: cannot open included file"));
}

// A file name longer than the file system allows (NAME_MAX 255) made
// std::filesystem throw out of the loader: the fuzzer's pipeline_yaml-crash-5e9a4a58,
// an `include:` of a 270-byte name. It is an error at the include's line.
TEST(PipelineLoader, AFileNameTooLongIsAnErrorNotACrash) {
  const std::string name(300, 'n');
  std::string including =
      WriteTempFile("long/including.yaml", "version: 1\ninclude: " + name + ".yaml\n");
  StatusOr<Pipeline> p = Load(including);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), StartsWith(including + ":2:10: cannot open included file '"));
  EXPECT_THAT(p.status().message(), HasSubstr("File name too long"));
  StatusOr<Pipeline> direct = Load(th::testing::TempDir() + "/" + name + ".yaml");
  ASSERT_FALSE(direct.ok());
  EXPECT_THAT(direct.status().message(),
              HasSubstr("cannot open pipeline file: File name too long"));
}

TEST(PipelineLoader, DumpRoundTripsWithEveryDefault) {
  StatusOr<Pipeline> p = Load(WritePipeline(kFull));
  ASSERT_TRUE(p.ok()) << p.status().message();
  std::string dumped = DumpEffectivePipeline(*p);
  EXPECT_THAT(dumped, HasSubstr("tolerance_pct: 0.5"));
  EXPECT_THAT(dumped, HasSubstr("metric: \"wait\""));
  EXPECT_THAT(dumped, HasSubstr("top_k: 20"));
  EXPECT_THAT(dumped, HasSubstr("threads: 4"));

  StatusOr<Pipeline> again = Load(WritePipeline(dumped));
  ASSERT_TRUE(again.ok()) << again.status().message() << "\n" << dumped;
  EXPECT_EQ(Ids(*again), Ids(*p));
  for (size_t i = 0; i < p->plugins.size(); ++i) {
    EXPECT_EQ(again->plugins[i].enabled, p->plugins[i].enabled);
    EXPECT_EQ(again->plugins[i].severity, p->plugins[i].severity);
    EXPECT_EQ(again->plugins[i].options, p->plugins[i].options) << p->plugins[i].id;
  }
  EXPECT_EQ(again->inputs, p->inputs);
  EXPECT_EQ(again->backend, p->backend);
  EXPECT_EQ(again->threads, p->threads);
  EXPECT_EQ(again->fail_on, p->fail_on);
  ASSERT_EQ(again->outputs.size(), p->outputs.size());
  for (size_t i = 0; i < p->outputs.size(); ++i) {
    EXPECT_EQ(again->outputs[i].type, p->outputs[i].type);
    EXPECT_EQ(again->outputs[i].path, p->outputs[i].path);
  }
  EXPECT_EQ(DumpEffectivePipeline(*again), dumped);

  // Strings that look like other types, and ${ in a value, survive the trip.
  StatusOr<Pipeline> odd =
      Load(WritePipeline("version: 1\ninputs: ['4', 'true', '$${env:X}', 'a: b']\n"
                         "plugins:\n  long-kernels: {label: 'null'}\n"));
  ASSERT_TRUE(odd.ok()) << odd.status().message();
  StatusOr<Pipeline> odd_again = Load(WritePipeline(DumpEffectivePipeline(*odd)));
  ASSERT_TRUE(odd_again.ok()) << odd_again.status().message();
  EXPECT_EQ(odd_again->inputs, (std::vector<std::string>{"4", "true", "${env:X}", "a: b"}));
  EXPECT_EQ(odd_again->plugins[0].options, odd->plugins[0].options);
}

TEST(PipelineLoader, FileLevelErrors) {
  ExpectErrorAt("version: 1\nplugins: [a, b\n", 3, 1, "invalid YAML");
  ExpectErrorAt("plugins:\n  long-kernels:\n", 1, 1, "missing 'version: 1'");
  ExpectErrorAt("version: 1\nplugins:\n  long-kernels: {}\n  long-kernels: {}\n", 4, 3,
                "duplicate key 'long-kernels' (first at line 3)");
  ExpectErrorAt("- version: 1\n", 1, 1, "a pipeline file is a map of keys");
  StatusOr<Pipeline> p = Load(th::testing::TempDir() + "/does-not-exist.yaml");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(p.status().message(), HasSubstr("does-not-exist.yaml: cannot open pipeline file"));
}

// Hostile YAML (hardening issue, Part A items 2 and 3): an alias that holds
// itself crashed with a stack overflow; a few hundred bytes of nested aliases
// expanded to all the machine's memory. Both are bounded errors now.
TEST(PipelineLoader, SelfReferencingAliasIsAnErrorNotACrash) {
  std::string path = WritePipeline("&a [*a]");
  StatusOr<Pipeline> p = Load(path);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidInput);
  EXPECT_THAT(p.status().message(), StartsWith(path + ":1:"));
  EXPECT_THAT(p.status().message(), HasSubstr("an alias that contains itself"));
  // Inside a plugin's options, through include:, and as a --set value.
  ExpectErrorAt("version: 1\nplugins:\n  long-kernels: &a {x: *a}\n", 3, 17,
                "an alias that contains itself");
  std::string included = WriteTempFile("self-alias.yaml", "plugins:\n  kernel-stats: &a [*a]\n");
  StatusOr<Pipeline> inc = Load(WritePipeline("version: 1\ninclude: " + included + "\n"));
  ASSERT_FALSE(inc.ok());
  EXPECT_THAT(inc.status().message(), HasSubstr("self-alias.yaml:2:"));
  ExpectSetErrorAt("version: 1\n", {"plugins.kernel-stats.top=&a [*a]"}, "--set:1:26",
                   "an alias that contains itself");
}

std::string AliasBomb(const std::string& use) {
  std::string y = "version: 1\nx0: &a0 [x, x, x, x, x, x, x, x, x]\n";
  for (int n = 1; n <= 9; ++n) {
    std::string prev = "*a" + std::to_string(n - 1);
    y += "x" + std::to_string(n) + ": &a" + std::to_string(n) + " [" + prev;
    for (int k = 1; k < 9; ++k) y += ", " + prev;
    y += "]\n";
  }
  return y + use;
}

TEST(PipelineLoader, AliasBombIsRefusedBeforeItExpands) {
  for (const char* use : {"inputs: *a9\n", "plugins:\n  long-kernels: {threshold_us: *a9}\n"}) {
    std::string path = WritePipeline(AliasBomb(use));
    StatusOr<Pipeline> p = Load(path);  // 9^10 values if expanded: must stop early
    ASSERT_FALSE(p.ok()) << use;
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidInput);
    EXPECT_THAT(p.status().message(), StartsWith(path + ":"));
    EXPECT_THAT(p.status().message(), HasSubstr("an alias bomb?"));
  }
}

// The budget is 20,000 values in all (a real pipeline has hundreds): at it a
// document converts, one more is refused. The fuzzer reached its 10 s limit
// under ASan on a bomb stopped at 100,000 (pipeline_yaml-timeout-96f49567).
TEST(PipelineLoader, ExpansionBudgetIsTwentyThousandValues) {
  auto with_values = [](int n) {  // the document map, version's 1 and x's list are 3
    std::string y = "version: 1\nx: [";
    for (int k = 0; k < n - 3; ++k) y += k ? ",1" : "1";
    return y + "]\n";
  };
  StatusOr<Pipeline> at = Load(WritePipeline(with_values(20000)));
  ASSERT_FALSE(at.ok());  // "x" is not a pipeline key, but it was converted
  EXPECT_THAT(at.status().message(), HasSubstr("'x'"));
  StatusOr<Pipeline> over = Load(WritePipeline(with_values(20001)));
  ASSERT_FALSE(over.ok());
  EXPECT_THAT(over.status().message(), HasSubstr("more than 20000 values"));
}

TEST(PipelineLoader, OrdinaryAliasesStillWork) {
  std::string path =
      WritePipeline("version: 1\ndefaults: &d {threshold_us: 250}\nplugins:\n  long-kernels: *d\n");
  StatusOr<Pipeline> p = Load(path);
  // "defaults" is not a pipeline key: the alias itself expanded fine.
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("'defaults'"));
}

TEST(PipelineLoader, PipelineFileThatIsAFifoIsRefusedWithoutWaiting) {
  std::string fifo = th::testing::TempDir() + "/pipeline.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  StatusOr<Pipeline> p = Load(fifo);  // no writer: an open would block forever
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("not a regular file (a FIFO)"));
}

// kernel_classes: rules in file order, sources defaulting to FILE:LINE:COLUMN.
TEST(PipelineLoader, KernelClassesAreRulesWithSources) {
  std::string path = WritePipeline(R"(version: 1
kernel_classes:
  - {match: "*moe_a2a*", class: COMM, source: "our all-to-all"}
  - match: "*internode::notify_dispatch*"
    class: COMP
  - {match: "*Fused_Copy*", class: MEM, ignore_case: true}
plugins:
  kernel-stats: {}
)");
  StatusOr<Pipeline> p = Load(path);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->kernel_classes.size(), 3u);
  const KernelClassRule& a = p->kernel_classes[0];
  EXPECT_EQ(a.match, "*moe_a2a*");
  EXPECT_EQ(a.klass, KernelClass::kComm);
  EXPECT_EQ(a.source, "our all-to-all");
  EXPECT_FALSE(a.ignore_case);
  EXPECT_EQ(p->kernel_classes[1].klass, KernelClass::kComp);
  EXPECT_EQ(p->kernel_classes[1].source, "pipeline " + path + ":4:5");
  EXPECT_EQ(p->kernel_classes[2].klass, KernelClass::kMem);
  EXPECT_TRUE(p->kernel_classes[2].ignore_case);
  EXPECT_EQ(p->kernel_classes[2].set, RuleSet::kTracehound);

  // The dump writes them back with their sources; reloading gives the same plan.
  std::string dumped = DumpEffectivePipeline(*p);
  EXPECT_THAT(dumped, HasSubstr("match: \"*internode::notify_dispatch*\""));
  EXPECT_THAT(dumped, HasSubstr("source: \"pipeline " + path + ":4:5\""));
  StatusOr<Pipeline> again = Load(WritePipeline(dumped));
  ASSERT_TRUE(again.ok()) << again.status().message() << "\n" << dumped;
  ASSERT_EQ(again->kernel_classes.size(), 3u);
  EXPECT_EQ(again->kernel_classes[1].source, "pipeline " + path + ":4:5");
  EXPECT_EQ(DumpEffectivePipeline(*again), dumped);

  // --set reaches one rule; no rules dumps an empty list.
  StatusOr<Pipeline> set = Load(path, Options({"kernel_classes.0.class=MEM"}));
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->kernel_classes[0].klass, KernelClass::kMem);
  StatusOr<Pipeline> none = Load(WritePipeline("version: 1\n"));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->kernel_classes.empty());
  EXPECT_THAT(DumpEffectivePipeline(*none), HasSubstr("kernel_classes: []"));
}

TEST(PipelineLoader, KernelClassErrorsAreAtTheirPlace) {
  ExpectErrorAt("version: 1\nkernel_classes: {match: x}\n", 2, 17,
                "'kernel_classes' expects a list of {match, class, source} rules");
  ExpectErrorAt("version: 1\nkernel_classes:\n  - {match: '*a*', class: COMMS}\n", 3, 27,
                "kernel_classes 'class' must be one of COMM, COMP, MEM, got 'COMMS'; did you "
                "mean 'COMM'?");
  ExpectErrorAt("version: 1\nkernel_classes:\n  - {match: '*a*', class: OTHER}\n", 3, 27,
                "must be one of COMM, COMP, MEM");
  ExpectErrorAt("version: 1\nkernel_classes:\n  - {match: '*a*', clas: COMM}\n", 3, 20,
                "unknown key 'clas' in a kernel_classes rule; did you mean 'class'?");
  ExpectErrorAt("version: 1\nkernel_classes:\n  - {class: COMM}\n", 3, 5,
                "a kernel_classes rule needs a 'match'");
  ExpectErrorAt("version: 1\nkernel_classes:\n  - {match: '*a*'}\n", 3, 5,
                "a kernel_classes rule needs a 'class' (COMM, COMP, MEM)");
  ExpectErrorAt("version: 1\nkernel_classes:\n  - {match: '', class: COMM}\n", 3, 13,
                "kernel_classes 'match' is an empty pattern");
  ExpectErrorAt("version: 1\nkernel_classes:\n  - {match: '*a*', class: COMM, ignore_case: 1}\n", 3,
                46, "kernel_classes 'ignore_case' expects a bool");
  ExpectErrorAt("version: 1\nkernel_classes:\n  - '*a*'\n", 3, 5,
                "a kernel_classes rule expects a map {match, class, source}");
  ExpectErrorAt("version: 1\nkernel_clases: []\n", 2, 1,
                "unknown key 'kernel_clases'; did you mean 'kernel_classes'?");
}

}  // namespace
}  // namespace th

namespace th {
namespace {

// TestCatalog and a plugin that compares input groups.
std::vector<PluginDeclaration> GroupCatalog() {
  std::vector<PluginDeclaration> c = TestCatalog();
  c.push_back(th::testing::Plugin("ab-diff", {"events"}, {"ab_rows"}));
  c.back().input_groups = true;
  return c;
}

void ExpectGroupErrorAt(const std::string& yaml, int line, int column, const std::string& what) {
  const std::string path = WritePipeline(yaml);
  StatusOr<Pipeline> p = LoadPipeline(path, GroupCatalog(), Options());
  ASSERT_FALSE(p.ok()) << yaml;
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidInput);
  EXPECT_THAT(p.status().message(),
              StartsWith(path + ":" + std::to_string(line) + ":" + std::to_string(column) + ": "));
  EXPECT_THAT(p.status().message(), HasSubstr(what));
}

TEST(PipelineLoader, BaselineIsASecondInputSetThatRoundTrips) {
  StatusOr<Pipeline> p =
      LoadPipeline(WritePipeline("version: 1\ninputs: [b.json]\nbaseline: [a.json, a2.json]\n"
                                 "plugins:\n  ab-diff: {}\n"),
                   GroupCatalog(), Options());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->inputs, (std::vector<std::string>{"b.json"}));
  EXPECT_EQ(p->baseline, (std::vector<std::string>{"a.json", "a2.json"}));
  const std::string dumped = DumpEffectivePipeline(*p);
  StatusOr<Pipeline> again = LoadPipeline(WritePipeline(dumped), GroupCatalog(), Options());
  ASSERT_TRUE(again.ok()) << again.status().message() << "\n" << dumped;
  EXPECT_EQ(again->baseline, p->baseline);
  // One string is a list of one, as for inputs.
  StatusOr<Pipeline> one =
      LoadPipeline(WritePipeline("version: 1\nbaseline: runs/before\nplugins:\n  ab-diff: {}\n"),
                   GroupCatalog(), Options());
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ(one->baseline, (std::vector<std::string>{"runs/before"}));
}

TEST(PipelineLoader, BaselineErrorsNameTheFileAndLine) {
  ExpectGroupErrorAt("version: 1\ninputs: [b.json]\nplugins:\n  ab-diff: {}\n", 4, 3,
                     "plugin 'ab-diff' compares the inputs with a baseline: name the baseline "
                     "traces under 'baseline:'");
  ExpectGroupErrorAt("version: 1\nbaseline: [a.json]\nplugins:\n  long-kernels: {}\n", 2, 11,
                     "'baseline:' is read only by plugins that compare input groups");
  ExpectGroupErrorAt("version: 1\nbaseline: {a: 1}\nplugins:\n  ab-diff: {}\n", 2, 11,
                     "'baseline'");
  ExpectGroupErrorAt("version: 1\nbaselines: [a.json]\n", 2, 1, "did you mean 'baseline'");
}

}  // namespace
}  // namespace th
