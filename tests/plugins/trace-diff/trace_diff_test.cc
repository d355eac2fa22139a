// The trace-diff plugin through the real host and pipeline runner (a
// pipeline with `baseline:`), against `tracehound diff`'s own code (DiffRuns,
// DiffJson) on the same pairs: the plugin's tables, written as the command
// writes its JSON, must be the command's aggregate, totals, structure and
// attribution byte for byte.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/diff/diff_json.h"
#include "core/diff/diff_runs.h"
#include "core/pipeline/pipeline_loader.h"
#include "core/pipeline/pipeline_runner.h"
#include "core/report/json_writer.h"
#include "tests/support/derived_values.h"
#include "tests/support/diff_fixture.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

using th::testing::DiffFixture;

const PluginRegistry& Registry() {
  static PluginRegistry* registry = [] {
    auto* r = new PluginRegistry;
    Status s = r->LoadDirectories({BUILTIN_PLUGIN_DIR});
    if (!s.ok()) throw std::runtime_error(s.message());
    return r;
  }();
  return *registry;
}

std::string Fixture(const std::string& name, const DiffFixture& f) {
  return th::testing::WriteTempFile("trace_diff/" + name + ".json",
                                    th::testing::DiffFixtureTrace(f));
}

// `tracehound run` of a pipeline comparing `b` with the baseline `a`.
std::unique_ptr<PipelineRun> RunPlugin(const std::string& a, const std::string& b,
                                       const std::string& options = "{}") {
  const std::string yaml =
      "version: 1\ninputs: [" + b + "]\nbaseline: [" + a +
      "]\nplugins:\n  steps: {}\n  step-breakdown: {}\n  trace-diff: " + options + "\n";
  auto pipeline = LoadPipeline(th::testing::WriteTempFile("trace_diff/pipeline.yaml", yaml),
                               Registry().Declarations());
  if (!pipeline.ok()) throw std::runtime_error(pipeline.status().message());
  auto run = RunPipeline(*pipeline, Registry(), {});
  if (!run.ok()) throw std::runtime_error(run.status().message());
  for (const PluginOutcome& p : (*run)->report.plugins)
    EXPECT_TRUE(p.ok) << p.id << ": " << p.error;
  return std::move(*run);
}

// What the command computes on the same pair (its DiffRuns).
diff::DiffResult CommandDiff(const std::string& a, const std::string& b) {
  auto load = [](const std::string& path, TraceSet* set, PluginResults* results) {
    auto s = LoadTraceSet({path}, LoadOptions{});
    if (!s.ok()) throw std::runtime_error(s.status().message());
    *set = std::move(*s);
    auto r = diff::RunDiffPlugins(*set, Registry());
    if (!r.ok()) throw std::runtime_error(r.status().message());
    *results = std::move(*r);
  };
  TraceSet sa, sb;
  PluginResults ra, rb;
  load(a, &sa, &ra);
  load(b, &sb, &rb);
  auto r = diff::DiffRuns({&sa, &ra, "A", {a}}, {&sb, &rb, "B", {b}}, diff::DiffOptions{});
  if (!r.ok()) throw std::runtime_error(r.status().message());
  return std::move(*r);
}

// The command's JSON on the pair.
std::string CommandJson(const std::string& a, const std::string& b) {
  return diff::DiffJson(CommandDiff(a, b));
}

// The command's warnings about input shapes (the others read trace metadata
// the plugin does not see).
std::vector<std::string> CommandShapeWarnings(const std::string& a, const std::string& b) {
  std::vector<std::string> out;
  for (const std::string& w : CommandDiff(a, b).warnings)
    if (w.starts_with("input shapes")) out.push_back(w);
  return out;
}

// The JSON text of `key`'s value in `json` (an array or object that follows
// "key": at the top level of the command's output).
std::string Member(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\":");
  if (at == std::string::npos) return "";
  size_t i = at + key.size() + 3, depth = 0;
  const size_t start = i;
  bool in_string = false;
  for (; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '[' || c == '{') ++depth;
    if ((c == ']' || c == '}') && --depth == 0) return json.substr(start, i - start + 1);
  }
  return "";
}

// `write` run at the place of the value of `key` in a top-level object, as
// the command's JSON writer places its members; the value's text.
template <typename Write>
std::string AsMember(const std::string& key, Write write) {
  std::ostringstream out;
  {
    JsonWriter w(out);
    w.BeginObject().Key(key);
    write(w);
    w.EndObject();
  }
  return Member(out.str(), key);
}

template <typename T>
decltype(auto) Values(const DerivedTable& t, const char* column) {
  return th::testing::Col<T>(t, column);
}

// A published table's rows as JSON objects, column by column in order, as
// the report's JSON writes their values, at the place of member `key`.
std::string RowsJson(const DerivedTable& t, const std::string& key) {
  return AsMember(key, [&](JsonWriter& w) {
    w.BeginArray();
    for (size_t r = 0; r < t.rows; ++r) {
      w.BeginObject();
      for (const DerivedColumn& c : t.columns) {
        w.Key(c.name);
        if (auto* i = std::get_if<std::vector<int64_t>>(&c.values))
          w.Int((*i)[r]);
        else if (auto* d = std::get_if<std::vector<double>>(&c.values))
          w.Double((*d)[r]);
        else
          w.String(th::testing::ValuesOf<std::string>(c)[r]);
      }
      w.EndObject();
    }
    w.EndArray();
  });
}

// trace_diff_attribution as the command's "attribution" object.
std::string AttributionJson(const DerivedTable& t) {
  const auto& category = Values<std::string>(t, "category");
  const auto &a = Values<int64_t>(t, "a_ns"), &b = Values<int64_t>(t, "b_ns"),
             &d = Values<int64_t>(t, "delta_ns");
  return AsMember("attribution", [&](JsonWriter& w) {
    w.BeginObject().Field("available", t.rows > 0);
    w.Field("a_step_ns", t.rows ? a[0] : 0)
        .Field("b_step_ns", t.rows ? b[0] : 0)
        .Field("delta_ns", t.rows ? d[0] : 0)
        .Key("contributors")
        .BeginArray();
    for (size_t r = 1; r < t.rows; ++r)
      w.BeginObject()
          .Field("category", category[r])
          .Field("a_ns", a[r])
          .Field("b_ns", b[r])
          .Field("delta_ns", d[r])
          .EndObject();
    w.EndArray().EndObject();
  });
}

// `s` cut at every " › " (the structure table's path column).
std::vector<std::string> SplitPath(const std::string& s) {
  const std::string separator = " \u203a ";
  std::vector<std::string> out;
  if (s.empty()) return out;
  size_t from = 0;
  for (size_t at; (at = s.find(separator, from)) != std::string::npos; from = at + separator.size())
    out.push_back(s.substr(from, at - from));
  out.push_back(s.substr(from));
  return out;
}

// trace_diff_step_pairs and trace_diff_structure as the command's
// "structure" array.
std::string StructureJson(const DerivedTable& pairs, const DerivedTable& rows) {
  const char* pair_fields[] = {"a_rank",  "a_step",      "b_rank",      "b_step",
                               "matched", "a_unmatched", "b_unmatched", "rows_left_out"};
  const auto& row_pair = Values<int64_t>(rows, "pair");
  return AsMember("structure", [&](JsonWriter& w) {
    w.BeginArray();
    for (size_t p = 0; p < pairs.rows; ++p) {
      w.BeginObject();
      for (const char* f : pair_fields) w.Field(f, Values<int64_t>(pairs, f)[p]);
      w.Key("rows").BeginArray();
      for (size_t r = 0; r < rows.rows; ++r) {
        if (row_pair[r] != static_cast<int64_t>(p)) continue;
        w.BeginObject()
            .Field("kind", Values<std::string>(rows, "kind")[r])
            .Field("level", Values<std::string>(rows, "level")[r])
            .Key("path")
            .BeginArray();
        for (const std::string& n : SplitPath(Values<std::string>(rows, "path")[r])) w.String(n);
        w.EndArray()
            .Field("a_name", Values<std::string>(rows, "a_name")[r])
            .Field("b_name", Values<std::string>(rows, "b_name")[r])
            .Field("a_device_ns", Values<int64_t>(rows, "a_device_ns")[r])
            .Field("b_device_ns", Values<int64_t>(rows, "b_device_ns")[r])
            .Field("delta_ns", Values<int64_t>(rows, "delta_ns")[r])
            .EndObject();
      }
      w.EndArray().EndObject();
    }
    w.EndArray();
  });
}

const DerivedTable& Table(const PipelineRun& run, const std::string& name) {
  auto it = run.report.results.tables.find(name);
  if (it == run.report.results.tables.end()) throw std::runtime_error("no table " + name);
  return it->second;
}

TEST(TraceDiffPlugin, RowsAreTheCommandsRowsByteForByte) {
  DiffFixture fa, fb;
  fb.double_gemm = fb.insert_mul = true;
  fb.address = 0x7f00beef0;
  const std::string a = Fixture("a", fa), b = Fixture("b", fb);
  auto run = RunPlugin(a, b);
  const std::string command = CommandJson(a, b);
  const std::string rows = RowsJson(Table(*run, "trace_diff_rows"), "aggregate");
  ASSERT_FALSE(Member(command, "aggregate").empty());
  EXPECT_EQ(rows, Member(command, "aggregate"));
  EXPECT_EQ(RowsJson(Table(*run, "trace_diff_totals"), "totals"), Member(command, "totals"));
  // The structural level: the aten::mul subtree added under Decoder_0.
  ASSERT_FALSE(Member(command, "structure").empty());
  EXPECT_EQ(
      StructureJson(Table(*run, "trace_diff_step_pairs"), Table(*run, "trace_diff_structure")),
      Member(command, "structure"));
  const DerivedTable& structure = Table(*run, "trace_diff_structure");
  bool mul_under_decoder = false;
  for (size_t r = 0; r < structure.rows; ++r)
    mul_under_decoder |= Values<std::string>(structure, "kind")[r] == "added" &&
                         Values<std::string>(structure, "b_name")[r] == "aten::mul" &&
                         Values<std::string>(structure, "path")[r] == "nn.Module: Decoder_0";
  EXPECT_TRUE(mul_under_decoder);
  // The changed and added rows: exactly the three the pair was built with.
  std::map<std::string, std::string> status;
  const DerivedTable& t = Table(*run, "trace_diff_rows");
  const auto& cls = th::testing::Col<std::string>(t, "class");
  const auto& name = th::testing::Col<std::string>(t, "name");
  const auto& st = th::testing::Col<std::string>(t, "status");
  for (size_t r = 0; r < t.rows; ++r)
    if (st[r] != "unchanged") status[cls[r] + " " + name[r]] = st[r];
  EXPECT_EQ(status, (std::map<std::string, std::string>{{"cpu_op aten::mul", "added"},
                                                        {"gpu_kernel gemm_kernel<0x*>", "changed"},
                                                        {"gpu_kernel mul_kernel", "added"}}));
}

TEST(TraceDiffPlugin, AttributionClosesAndMatchesTheCommand) {
  DiffFixture fa, fb;
  fb.double_gemm = fb.insert_mul = true;
  const std::string a = Fixture("a2", fa), b = Fixture("b2", fb);
  auto run = RunPlugin(a, b);
  const DerivedTable& t = Table(*run, "trace_diff_attribution");
  ASSERT_EQ(t.rows, 9u);  // the step, then the 8 categories
  const auto& category = Values<std::string>(t, "category");
  const auto& delta = Values<int64_t>(t, "delta_ns");
  EXPECT_EQ(category[0], "step");
  int64_t sum = 0;
  for (size_t r = 1; r < t.rows; ++r) sum += delta[r];
  EXPECT_EQ(sum, delta[0]);
  // The command's attribution object, byte for byte.
  EXPECT_EQ(AttributionJson(t), Member(CommandJson(a, b), "attribution"));
}

TEST(TraceDiffPlugin, FindingsAreTheRegressionsOnePerCauseWithTimeLostAndDevice) {
  DiffFixture fa, fb;
  fb.double_gemm = fb.insert_mul = true;
  auto run = RunPlugin(Fixture("a3", fa), Fixture("b3", fb));
  std::map<std::string, const Finding*> by_group;
  for (const Finding& f : run->report.results.findings)
    if (f.plugin == "trace-diff") by_group[f.group] = &f;
  ASSERT_EQ(by_group.size(), 3u);
  const Finding& gemm = *by_group.at("trace-diff:gpu_kernel:gemm_kernel<0x*>");
  EXPECT_EQ(gemm.title, "slower gpu_kernel gemm_kernel<0x*> on NVIDIA H100 80GB HBM3");
  // 3 kept steps (the first is warm-up), 50 µs more in each.
  ASSERT_TRUE(gemm.time_lost_ns.has_value());
  EXPECT_EQ(*gemm.time_lost_ns, 150000.0);
  const Finding& mul = *by_group.at("trace-diff:cpu_op:aten::mul");
  EXPECT_EQ(mul.title, "added cpu_op aten::mul on NVIDIA H100 80GB HBM3");
  EXPECT_EQ(*mul.time_lost_ns, 120000.0);
  EXPECT_TRUE(by_group.count("trace-diff:gpu_kernel:mul_kernel"));
}

TEST(TraceDiffPlugin, DiffOfARunWithItselfIsUnchangedEverywhere) {
  const std::string a = Fixture("self", DiffFixture{});
  auto run = RunPlugin(a, a);
  const DerivedTable& t = Table(*run, "trace_diff_rows");
  ASSERT_GT(t.rows, 0u);
  for (const std::string& s : th::testing::Col<std::string>(t, "status")) EXPECT_EQ(s, "unchanged");
  for (int64_t d : th::testing::Col<int64_t>(t, "delta_ns")) EXPECT_EQ(d, 0);
  for (const Finding& f : run->report.results.findings) EXPECT_NE(f.plugin, "trace-diff");
  EXPECT_EQ(RowsJson(t, "aggregate"), Member(CommandJson(a, a), "aggregate"));
}

TEST(TraceDiffPlugin, TheRealTraceDiffPairGivesTheCommandsRows) {
  const std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data absent: the trace_diff pair is not there";
  const std::string dir = data + "/hta/tests/data/trace_diff/";
  const std::string a = dir + "control/control.json.gz", b = dir + "test/test.json.gz";
  auto run = RunPlugin(a, b);
  const std::string command = CommandJson(a, b);
  EXPECT_EQ(RowsJson(Table(*run, "trace_diff_rows"), "aggregate"), Member(command, "aggregate"));
  EXPECT_EQ(RowsJson(Table(*run, "trace_diff_totals"), "totals"), Member(command, "totals"));
  EXPECT_EQ(AttributionJson(Table(*run, "trace_diff_attribution")), Member(command, "attribution"));
  EXPECT_EQ(
      StructureJson(Table(*run, "trace_diff_step_pairs"), Table(*run, "trace_diff_structure")),
      Member(command, "structure"));
  EXPECT_EQ(Values<std::string>(Table(*run, "trace_diff_warnings"), "warning"),
            CommandShapeWarnings(a, b));
  EXPECT_GT(Table(*run, "trace_diff_warnings").rows, 1u);  // other model shapes in B
  EXPECT_GT(Table(*run, "trace_diff_rows").rows, 100u);
  EXPECT_GT(Table(*run, "trace_diff_structure").rows, 0u);
}

TEST(TraceDiffPlugin, ShapeWarningsAreTheCommands) {
  DiffFixture fa, fb;
  fa.shapes = fb.shapes = true;
  fb.linear_dims = "[[8, 2048], [2048, 2048], [2048]]";
  const std::string a = Fixture("a6", fa), b = Fixture("b6", fb);
  auto run = RunPlugin(a, b);
  const std::vector<std::string> expected = {
      "input shapes differ for cpu_op aten::linear (most common): A "
      "[[8,1024],[1024,1024],[1024]] [\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"], "
      "B [[8,2048],[2048,2048],[2048]] [\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"]"};
  EXPECT_EQ(Values<std::string>(Table(*run, "trace_diff_warnings"), "warning"), expected);
  EXPECT_EQ(CommandShapeWarnings(a, b), expected);
  // Without record_shapes on A the table says the shapes were not compared.
  fa.shapes = false;
  const std::string bare = Fixture("a7", fa);
  EXPECT_EQ(
      Values<std::string>(Table(*RunPlugin(bare, b), "trace_diff_warnings"), "warning"),
      std::vector<std::string>{"input shapes and dtypes of matched ops are not compared: "
                               "side A has no Kineto Input Dims / Input type (record_shapes)"});
}

TEST(TraceDiffPlugin, OtherPluginsSeeOnlyTheInputs) {
  DiffFixture fa, fb;
  fb.steps = 6;
  auto run = RunPlugin(Fixture("a5", fa), Fixture("b5", fb));
  // The steps table of the report is the inputs' (B: 6 steps), not A's 4.
  EXPECT_EQ(Table(*run, "steps").rows, 6u);
  EXPECT_EQ(run->baseline.traces.size(), 1u);
}

TEST(TraceDiffPlugin, TheShippedConfigRunsAndItsJsonReportCarriesTheTables) {
  DiffFixture fa, fb;
  fb.double_gemm = fb.insert_mul = true;
  const std::string a = Fixture("a6", fa), b = Fixture("b6", fb);
  const std::string dir = th::testing::TempDir() + "/trace_diff_report";
  std::filesystem::create_directories(dir);
  LoadPipelineOptions options;
  options.getenv = [&](const std::string& name) -> std::optional<std::string> {
    if (name == "BEFORE") return a;
    if (name == "AFTER") return b;
    if (name == "TRACEHOUND_REPORT_DIR") return dir;
    return std::nullopt;
  };
  auto pipeline = LoadPipeline(std::string(TRACEHOUND_SOURCE_DIR) + "/configs/trace-diff.yaml",
                               Registry().Declarations(), options);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().message();
  EXPECT_EQ(pipeline->baseline, std::vector<std::string>{a});
  auto run = RunPipeline(*pipeline, Registry(), {});
  ASSERT_TRUE(run.ok()) << run.status().message();
  std::ostringstream terminal;
  Status written = WritePipelineOutputs(*pipeline, **run, terminal);
  ASSERT_TRUE(written.ok()) << written.message();
  EXPECT_NE(terminal.str().find("slower gpu_kernel gemm_kernel<0x*>"), std::string::npos)
      << terminal.str();
  // The Markdown report lists the tables; an added row has no Δ% ("-", null in JSON).
  const std::string md = th::testing::ReadFile(dir + "/trace-diff-report.md");
  EXPECT_NE(md.find("### trace_diff_rows (trace-diff, 9 rows)"), std::string::npos) << md;
  EXPECT_NE(md.find("| cpu_op | aten::mul | added | 0 | 0 ns | 0 ns | 0 ns | 3 | 120.000 us | "
                    "40.000 us | 0 ns | 40.000 us | - | 0 ns |"),
            std::string::npos)
      << md;
  const std::string json = th::testing::ReadFile(dir + "/trace-diff-findings.json");
  for (const char* table : {"trace_diff_rows", "trace_diff_totals", "trace_diff_attribution"})
    EXPECT_NE(json.find("\"" + std::string(table) + "\""), std::string::npos) << table;
  EXPECT_NE(json.find("\"title\": \"slower gpu_kernel gemm_kernel<0x*> on NVIDIA H100 80GB HBM3\""),
            std::string::npos)
      << json;
}

}  // namespace
}  // namespace th
