#include "core/plugin/plugin_loader.h"

#include <gtest/gtest.h>
#include <tracehound/plugin_api.h>

#include <filesystem>
#include <map>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "tests/support/derived_values.h"
#include "tests/support/hlo_fixture.h"
#include "tests/support/test_files.h"
#include "tests/support/xspace_fixture.h"

namespace th {
namespace {

std::string Dir(const std::string& name) { return std::string(TEST_PLUGIN_DIR) + "/" + name; }
std::string Lib(const std::string& name) { return Dir(name) + "/" + name + ".so"; }

TraceSet TinySet() {
  // One trace with one 2 ms kernel and one 10 us kernel.
  std::string path = testing::WriteTempFile("tiny.json",
                                            R"({"traceEvents": [
        {"ph": "X", "cat": "kernel", "name": "big", "pid": 0, "tid": 7, "ts": 10, "dur": 2000},
        {"ph": "X", "cat": "kernel", "name": "small", "pid": 0, "tid": 7, "ts": 3000, "dur": 10}]})");
  auto set = LoadTraceSet({path}, LoadOptions{});
  EXPECT_TRUE(set.ok());
  return std::move(*set);
}

TEST(PluginLoader, LoadsBuiltinsWithTheirDeclarations) {
  PluginRegistry registry;
  ASSERT_TRUE(registry.LoadDirectories({BUILTIN_PLUGIN_DIR}).ok());
  const LoadedPlugin* ks = registry.Find("kernel-stats");
  ASSERT_NE(ks, nullptr);
  EXPECT_EQ(ks->declaration.kind, PluginKind::kAnalyzer);
  ASSERT_EQ(ks->declaration.publishes.size(), 1u);
  EXPECT_EQ(ks->declaration.publishes[0].name, "kernel_stats");
  EXPECT_EQ(ks->declaration.publishes[0].view, "kernel-stats");
  ASSERT_NE(ks->declaration.publishes[0].Find("total"), nullptr);
  EXPECT_EQ(ks->declaration.publishes[0].Find("total")->unit, "ns");
  EXPECT_EQ(ks->declaration.publishes[0].Find("total")->type, ColumnType::kI64);
  ASSERT_EQ(ks->declaration.options.size(), 1u);
  EXPECT_EQ(ks->declaration.options[0].name, "include_memory");
  EXPECT_EQ(std::get<bool>(ks->declaration.options[0].default_value), true);
  const LoadedPlugin* sb = registry.Find("stream-budget");
  ASSERT_NE(sb, nullptr);
  ASSERT_EQ(sb->declaration.publishes.size(), 2u);
  EXPECT_EQ(sb->declaration.publishes[0].name, "stream_budget");
  EXPECT_EQ(sb->declaration.publishes[1].name, "device_busy");
  EXPECT_NE(sb->declaration.summary.find("idle"), std::string::npos);
  // Every library in the built-in directory is a plugin (one per plugins/ directory).
  size_t libraries = 0;
  for (const auto& e : std::filesystem::directory_iterator(BUILTIN_PLUGIN_DIR))
    libraries += e.path().extension() == ".so";
  EXPECT_EQ(registry.size(), libraries);
}

TEST(PluginLoader, LoadsOnePluginByIdWithoutTheOthers) {
  PluginRegistry builtin;
  ASSERT_TRUE(builtin.LoadPlugin({BUILTIN_PLUGIN_DIR}, "kernel-stats").ok());
  EXPECT_EQ(builtin.size(), 1u);
  ASSERT_NE(builtin.Find("kernel-stats"), nullptr);
  EXPECT_TRUE(builtin.Find("kernel-stats")->declaration.library.ends_with("/th_kernel_stats.so"));

  // Named unlike a built-in: found by the libraries it declares, past one that
  // fails to load.
  PluginRegistry other;
  Status found = other.LoadPlugin({Dir("wrong_api"), Dir("long_kernels")}, "long-kernels");
  ASSERT_TRUE(found.ok()) << found.message();
  EXPECT_EQ(other.size(), 1u);
  ASSERT_NE(other.Find("long-kernels"), nullptr);

  PluginRegistry none;
  Status missing = none.LoadPlugin({Dir("wrong_api"), Dir("long_kernels")}, "no-such-plugin");
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_NE(
      missing.message().find("no plugin 'no-such-plugin' on the plugin path (" + Dir("wrong_api")),
      std::string::npos)
      << missing.message();
  EXPECT_EQ(none.size(), 0u);
}

TEST(PluginLoader, APluginBuiltForApiOneIsRefusedWithWhatToDo) {
  auto older = LoadPluginLibrary(Lib("api_one"));
  ASSERT_FALSE(older.ok());
  EXPECT_NE(
      older.status().message().find(
          "api_one.so: plugin built against plugin API 1.3; this host speaks 2.2, where "
          "plugins read the table catalog: rebuild the plugin against the tracehound 2.x SDK"),
      std::string::npos)
      << older.status().message();
}

TEST(PluginLoader, AcceptsPluginsOfMinorsZeroAndOneAndRefusesANewerMinor) {
  // 2.0: loaded; its `reserved` field (2.1's flags) ignored, so it sees one
  // input set even when the pipeline has a baseline.
  auto old = LoadPluginLibrary(Lib("api_two_zero"));
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ((*old)->descriptor->api_minor, 0u);
  EXPECT_FALSE((*old)->declaration.input_groups);
  TraceSet inputs = TinySet(), baseline = TinySet();
  PluginResults results;
  PluginRunContext context;
  context.baseline = &baseline;
  Status ran = RunPlugin(**old, inputs, {}, &results, context);
  ASSERT_TRUE(ran.ok()) << ran.message();
  ASSERT_EQ(results.findings.size(), 1u);
  EXPECT_EQ(results.findings[0].title, "saw 1 trace(s), rank 0");

  // 2.2: the SDK's plugins; trace-diff asks for input groups (2.1).
  auto current = LoadPluginLibrary(Lib("long_kernels"));
  ASSERT_TRUE(current.ok()) << current.status().message();
  EXPECT_EQ((*current)->descriptor->api_minor, 2u);
  EXPECT_FALSE((*current)->declaration.input_groups);
  auto diff = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/th_trace_diff.so");
  ASSERT_TRUE(diff.ok()) << diff.status().message();
  EXPECT_TRUE((*diff)->declaration.input_groups);

  auto newer = LoadPluginLibrary(Lib("api_next_minor"));
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.status().message().find(
                "api_next_minor.so: plugin API 2.3 does not match the host's 2.2 (same major "
                "and a minor no newer are required)"),
            std::string::npos)
      << newer.status().message();
}

TEST(PluginLoader, RefusalsNameTheFileAndTheReason) {
  auto no_entry = LoadPluginLibrary(Lib("no_entry"));
  ASSERT_FALSE(no_entry.ok());
  EXPECT_NE(no_entry.status().message().find("no_entry.so: not a tracehound plugin: no symbol "
                                             "tracehound_plugin_entry_v1"),
            std::string::npos)
      << no_entry.status().message();

  auto future = LoadPluginLibrary(Lib("wrong_api"));
  ASSERT_FALSE(future.ok());
  EXPECT_NE(
      future.status().message().find("wrong_api.so: plugin API 3.0 does not match the host's 2.2"),
      std::string::npos)
      << future.status().message();

  // `severity` (and `enabled`) are the pipeline's keys for every plugin: an
  // option so named could never be set (stragglers declared one).
  auto reserved = LoadPluginLibrary(Lib("reserved_option"));
  ASSERT_FALSE(reserved.ok());
  EXPECT_NE(reserved.status().message().find(
                "reserved_option.so: plugin 'reserved-option' declares an option named "
                "'severity', a key the pipeline reserves for every plugin (enabled, severity)"),
            std::string::npos)
      << reserved.status().message();

  std::string fake = testing::WriteTempFile("fake/fake.so", "this is not an ELF file");
  auto not_a_library = LoadPluginLibrary(fake);
  ASSERT_FALSE(not_a_library.ok());
  EXPECT_NE(not_a_library.status().message().find("fake.so: cannot load plugin library"),
            std::string::npos)
      << not_a_library.status().message();

  PluginRegistry registry;
  Status builtins = registry.LoadDirectories({BUILTIN_PLUGIN_DIR});
  ASSERT_TRUE(builtins.ok()) << builtins.message();
  Status dup = registry.LoadDirectories({Dir("duplicate")});
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.message().find("duplicate.so: plugin id 'kernel-stats' is already provided by"),
            std::string::npos)
      << dup.message();
  EXPECT_NE(dup.message().find("th_kernel_stats.so"), std::string::npos);
}

TEST(PluginHost, RunsAPluginWithOptionsAndCollectsFindings) {
  auto plugin = LoadPluginLibrary(Lib("long_kernels"));
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  TraceSet set = TinySet();
  PluginResults results;
  ASSERT_TRUE(RunPlugin(**plugin, set, {{"threshold_us", int64_t{1000}}}, &results).ok());
  ASSERT_EQ(results.findings.size(), 1u);
  const Finding& f = results.findings[0];
  EXPECT_EQ(f.plugin, "long-kernels");
  EXPECT_EQ(f.title, "long kernel big");
  EXPECT_EQ(f.scope.stream, 7);
  ASSERT_EQ(f.evidence.size(), 1u);
  EXPECT_EQ(f.evidence[0].value, 2000000);
  EXPECT_EQ(f.evidence[0].unit, "ns");
  EXPECT_EQ(f.evidence[0].kind, NumberKind::kMeasured);
  // What a report ranks, groups and places it by, stated through the SDK.
  EXPECT_EQ(f.time_lost_ns, 2000000.0);
  EXPECT_FALSE(f.saving_ns.has_value());
  EXPECT_EQ(f.group, "long kernels");
  ASSERT_TRUE(f.range.has_value());
  EXPECT_EQ(*f.range, std::make_pair(int64_t{10000}, int64_t{2010000}));

  PluginResults lower;
  ASSERT_TRUE(RunPlugin(**plugin, set, {{"threshold_us", int64_t{5}}}, &lower).ok());
  EXPECT_EQ(lower.findings.size(), 2u);
}

TEST(PluginHost, ViewsCarryEdgesAndSteps) {
  // kernel-stats sees the graph through the same view; check the view itself
  // through a trace with a step and a launch.
  std::string path = testing::WriteTempFile("edges.json",
                                            R"({"traceEvents": [
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
        {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"correlation": 4}},
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 20, "dur": 30, "args": {"correlation": 4}}]})");
  auto set = LoadTraceSet({path}, LoadOptions{});
  ASSERT_TRUE(set.ok());
  auto budget = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/th_stream_budget.so");
  ASSERT_TRUE(budget.ok());
  PluginResults results;
  ASSERT_TRUE(RunPlugin(**budget, *set, {}, &results).ok());
  ASSERT_EQ(results.checks.size(), 1u);
  EXPECT_TRUE(results.checks[0].passed);
  EXPECT_EQ(results.checks[0].detail,
            "1 of 1 streams: compute + collective + memory + idle = span");

  auto probe = LoadPluginLibrary(Lib("long_kernels"));
  ASSERT_TRUE(probe.ok());
  PluginResults seen;
  ASSERT_TRUE(RunPlugin(**probe, *set, {{"threshold_us", int64_t{1000}}}, &seen).ok());
  std::map<std::string, double> m;
  for (const Metric& x : seen.metrics) m[x.name] = x.value;
  EXPECT_EQ(m["edges"], 1);
  EXPECT_EQ(m["first_edge_dst"], 2);  // the kernel
  EXPECT_EQ(m["steps"], 1);
  EXPECT_EQ(m["first_step"], 7);
}

TEST(PluginHost, ViewsCarryHloModulesAndAttribution) {
  // An XProf capture written with the project's .proto: module jit_f with
  // p0 -> fusion.1 (calling fused {add.0}) -> fusion.2; one exact kernel, one
  // by order, one unlabelled after the last anchor (none).
  tracehound::hlo::HloModuleProto m;
  m.set_name("jit_f");
  m.set_id(3);
  auto* fused = testing::AddComputation(&m, 50, "fused", true);
  testing::AddInstruction(fused, 51, "add.0", "add");
  auto* main = testing::AddComputation(&m, 1, "main");
  m.set_entry_computation_id(1);
  testing::AddInstruction(main, 1, "p0", "parameter");
  testing::AddInstruction(main, 2, "fusion.1", "fusion", {1})->add_called_computation_ids(50);
  testing::AddInstruction(main, 3, "fusion.2", "fusion", {2});
  testing::AddInstruction(main, 4, "fusion.3", "fusion", {3});
  testing::XSpaceBuilder b;
  b.EmbedHlo(m);
  auto* gpu = b.AddPlane(0, "/device:GPU:0");
  auto* line = b.AddLine(gpu, 1, "Stream #1(Kernel)", 0);
  b.AddEvent(gpu, line, "fusion_1", 0, 1000,
             {{"hlo_op", std::string("fusion.1")},
              {"hlo_module", std::string("jit_f")},
              {"program_id", int64_t{3}}});
  b.AddEvent(gpu, line, "k", 10000, 1000);
  b.AddEvent(gpu, line, "fusion_3", 20000, 1000,
             {{"hlo_op", std::string("fusion.3")},
              {"hlo_module", std::string("jit_f")},
              {"program_id", int64_t{3}}});
  b.AddEvent(gpu, line, "tail", 30000, 1000);
  std::string dir = testing::TempDir() + "/hlo_view";
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(b.WriteTo(dir + "/h.xplane.pb"));
  auto set = LoadTraceSet({dir + "/h.xplane.pb"}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  auto probe = LoadPluginLibrary(Lib("long_kernels"));
  ASSERT_TRUE(probe.ok());
  PluginResults seen;
  ASSERT_TRUE(RunPlugin(**probe, *set, {}, &seen).ok());
  std::map<std::string, double> got;
  for (const Metric& x : seen.metrics) got[x.name] = x.value;
  EXPECT_EQ(got["hlo_modules"], 1);
  EXPECT_EQ(got["hlo_instructions"], 5);
  EXPECT_EQ(got["hlo_exact"], 2);
  EXPECT_EQ(got["hlo_order"], 1);
  EXPECT_EQ(got["hlo_none"], 1);
  EXPECT_EQ(got["users:fusion.1"], 1);
  EXPECT_EQ(got["users:fusion.3"], 0);
  EXPECT_EQ(got.count("shape:fusion.2=f32[16]{0}"), 1u);
  EXPECT_EQ(got.count("caller:add.0=fusion.1"), 1u);
}

TEST(PluginHost, KernelStatsRowsThroughTheComputePrimitives) {
  TraceSet set = TinySet();
  auto plugin = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/th_kernel_stats.so");
  ASSERT_TRUE(plugin.ok());
  for (auto backend : {kernels::BackendChoice::kCpu, kernels::BackendChoice::kAuto}) {
    PluginResults results;
    ASSERT_TRUE(RunPlugin(**plugin, set, {}, &results, backend).ok());
    const DerivedTable& t = results.tables.at("kernel_stats");
    ASSERT_EQ(t.rows, 2u);
    auto ints = [&](const char* c) { return std::get<std::vector<int64_t>>(t.Find(c)->values); };
    EXPECT_EQ(th::testing::Col<std::string>(t, "name"), (std::vector<std::string>{"big", "small"}));
    EXPECT_EQ(ints("total"), (std::vector<int64_t>{2000000, 10000}));
    EXPECT_EQ(ints("p50"), (std::vector<int64_t>{2000000, 10000}));
    EXPECT_EQ(ints("p99"), (std::vector<int64_t>{2000000, 10000}));
    EXPECT_EQ(ints("count"), (std::vector<int64_t>{1, 1}));
  }
  // Without a usable HIP device, asking for HIP fails the plugin's primitive calls.
  if (!kernels::DescribeBackends()[2].usable) {
    PluginResults none;
    EXPECT_FALSE(RunPlugin(**plugin, set, {}, &none, kernels::BackendChoice::kHip).ok());
  }
}

// API 2.2: columns filled in the host's memory are published without a
// copy (the host's table holds the very buffers the plugin filled), with
// their values; a buffer never published is freed with the run.
TEST(PluginHost, ColumnBuffersArePublishedWithoutACopy) {
  auto plugin = LoadPluginLibrary(Lib("host_columns"));
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  EXPECT_EQ((*plugin)->descriptor->api_minor, 2u);
  TraceSet set = TinySet();
  PluginResults r;
  ASSERT_TRUE(RunPlugin(**plugin, set, {}, &r).ok());
  const DerivedTable& t = r.tables.at("host_columns");
  const DerivedTable& at = r.tables.at("host_column_addresses");
  const auto& ints = th::testing::Col<int64_t>(t, "ints");
  const auto& reals = th::testing::Col<double>(t, "reals");
  EXPECT_EQ(ints, (std::vector<int64_t>{10, 20, 30, 40}));
  EXPECT_EQ(reals, (std::vector<double>{0, 0.5, 1, 1.5}));
  EXPECT_EQ(th::testing::Col<int64_t>(t, "plain"), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(t.Find("ints")->unit, "ns");
  auto address = [&](const char* c) {
    return std::get<std::vector<int64_t>>(at.Find(c)->values)[0];
  };
  EXPECT_EQ(address("in_host_memory"), 1);
  EXPECT_EQ(address("unterminated_names"), 0);
  EXPECT_EQ(address("ints_at"), static_cast<int64_t>(reinterpret_cast<uintptr_t>(ints.data())));
  EXPECT_EQ(address("reals_at"), static_cast<int64_t>(reinterpret_cast<uintptr_t>(reals.data())));
}

// The catalog's rules: a plugin gets only the tables it declared, and a
// publish must match its declared schema.
TEST(PluginHost, TheCatalogRefusesUndeclaredReadsAndPublishesOffSchema) {
  auto plugin = LoadPluginLibrary(Lib("misbehaves"));
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  TraceSet set = TinySet();
  auto run = [&](const char* mode, PluginResults* results) {
    return RunPlugin(**plugin, set, {{"mode", std::string(mode)}}, results);
  };
  PluginResults ok;
  ASSERT_TRUE(run("ok", &ok).ok());
  ASSERT_EQ(ok.tables.count("spans"), 1u);
  EXPECT_EQ(std::get<std::vector<int64_t>>(ok.tables.at("spans").Find("span")->values),
            std::vector<int64_t>{3000000});  // 10 us to 3010 us

  PluginResults read;
  Status s = run("undeclared_read", &read);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("reads catalog table 'tracks' without declaring it: add \"tracks\" to "
                             "the plugin's Declare().Reads({...})"),
            std::string::npos)
      << s.message();

  PluginResults column;
  s = run("undeclared_column", &column);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("reads catalog table 'gpu_args' without declaring it"),
            std::string::npos)
      << s.message();

  PluginResults find;
  s = run("undeclared_find", &find);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("reads table 'steps' without declaring it"), std::string::npos)
      << s.message();

  for (const char* mode : {"wrong_schema", "wrong_unit"}) {
    PluginResults off;
    s = run(mode, &off);
    ASSERT_FALSE(s.ok()) << mode;
    EXPECT_EQ(off.tables.count("spans"), 0u) << mode;
    ASSERT_FALSE(off.notes.empty()) << mode;
    EXPECT_NE(off.notes.back().text.find("table 'spans' does not match its declared schema: column "
                                         "2 is '"),
              std::string::npos)
        << off.notes.back().text;
  }
}

TEST(PluginHost, AThrowingPluginIsAnErrorWithItsMessageAndKeepsWhatItReported) {
  auto plugin = LoadPluginLibrary(Lib("throws"));
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  TraceSet set = TinySet();
  PluginResults results;
  Status s = RunPlugin(**plugin, set, {{"message", std::string("disk on fire")}}, &results);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("plugin 'throws'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("disk on fire"), std::string::npos) << s.message();
  ASSERT_EQ(results.metrics.size(), 1u);
  EXPECT_EQ(results.metrics[0].name, "before_failure");
}

}  // namespace
}  // namespace th
