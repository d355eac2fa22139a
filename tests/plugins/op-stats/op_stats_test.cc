// op-stats on a trace written by the test (every number by hand): nested ops,
// self time, device time through launch edges, Python call sites; on the real
// traces: device time reconciles on every Kineto trace with an HTA reference,
// and on an XProf capture the kernels group by HLO instruction and op_name as
// `tracehound info` counts them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "tests/support/derived_values.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

const LoadedPlugin& Plugin() {
  static const std::shared_ptr<const LoadedPlugin> plugin = [] {
    auto p = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/th_op_stats.so");
    EXPECT_TRUE(p.ok()) << p.status().message();
    return *p;
  }();
  return *plugin;
}

using th::testing::Col;

PluginResults RunOn(const TraceSet& set, const std::map<std::string, OptionValue>& options = {}) {
  PluginResults r;
  Status s = RunPlugin(Plugin(), set, options, &r);
  EXPECT_TRUE(s.ok()) << s.message();
  return r;
}

PluginResults RunOn(const std::string& name, const std::string& json,
                    const std::map<std::string, OptionValue>& options = {}) {
  auto set = LoadTraceSet({testing::WriteTempFile(name, json)}, LoadOptions{});
  EXPECT_TRUE(set.ok()) << set.status().message();
  return RunOn(*set, options);
}

size_t Row(const DerivedTable& t, const std::string& name, const std::string& site = "") {
  for (size_t r = 0; r < t.rows; ++r)
    if (Col<std::string>(t, "name")[r] == name &&
        (site.empty() || Col<std::string>(t, "call_site")[r] == site))
      return r;
  ADD_FAILURE() << "no row " << name << " " << site;
  return 0;
}

double MetricOf(const PluginResults& r, const std::string& name) {
  for (const Metric& m : r.metrics)
    if (m.name == name) return m.value;
  ADD_FAILURE() << "no metric " << name;
  return -1;
}

// Thread 1, µs:
//   ProfilerStep#1 [0,200)                        (a step, not an op)
//     model.py(10): forward [1,100)               (Python)
//       block [9,66)                              (user annotation)
//         aten::linear [10,50)
//           aten::addmm [15,45)
//             cudaLaunchKernel [20,25) -> gemm [30,60) on the GPU
//             cudaMemsetAsync [26,28) -> memset [61,63)
//         aten::relu [55,65)
//           cudaLaunchKernel [57,60) -> relu [65,70)
//       model.py(12): helper [70,90)
//         aten::linear [72,88)
//           aten::addmm [73,87)
//             cudaLaunchKernel [75,78) -> gemm [90,110)
//     cudaLaunchKernel [150,152) -> late [155,160)  (outside any op)
//   A kernel with no launch event [300,304).
constexpr const char* kOps = R"json({"traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 200},
  {"ph": "X", "cat": "python_function", "name": "model.py(10): forward", "pid": 1, "tid": 1, "ts": 1, "dur": 99},
  {"ph": "X", "cat": "user_annotation", "name": "block", "pid": 1, "tid": 1, "ts": 9, "dur": 57},
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 10, "dur": 40, "args": {"Input Dims": [[8, 16], [32, 16], [32]]}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 15, "dur": 30},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 5, "args": {"correlation": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemsetAsync", "pid": 1, "tid": 1, "ts": 26, "dur": 2, "args": {"correlation": 2}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 55, "dur": 10},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 57, "dur": 3, "args": {"correlation": 3}},
  {"ph": "X", "cat": "python_function", "name": "model.py(12): helper", "pid": 1, "tid": 1, "ts": 70, "dur": 20},
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 72, "dur": 16},
  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 73, "dur": 14},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 75, "dur": 3, "args": {"correlation": 4}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 150, "dur": 2, "args": {"correlation": 5}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 30, "dur": 30, "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 61, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "relu", "pid": 0, "tid": 7, "ts": 65, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 3}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 90, "dur": 20, "args": {"device": 0, "stream": 7, "correlation": 4}},
  {"ph": "X", "cat": "kernel", "name": "late", "pid": 0, "tid": 7, "ts": 155, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 5}},
  {"ph": "X", "cat": "kernel", "name": "early", "pid": 0, "tid": 7, "ts": 300, "dur": 4, "args": {"device": 0, "stream": 7, "correlation": 99}}
]})json";

TEST(OpStats, NestedOpsSelfAndDeviceTime) {
  PluginResults r = RunOn("ops.json", kOps);
  const DerivedTable& t = r.tables.at("op_stats");
  ASSERT_EQ(t.rows, 4u);  // linear, addmm, block, relu (the step is not an op)
  // Ordered by device time, then host time.
  EXPECT_EQ(Col<std::string>(t, "name")[0], "aten::linear");
  EXPECT_EQ(Col<std::string>(t, "name")[1], "aten::addmm");
  EXPECT_EQ(Col<std::string>(t, "name")[2], "block");
  EXPECT_EQ(Col<std::string>(t, "name")[3], "aten::relu");

  size_t linear = Row(t, "aten::linear");
  EXPECT_EQ(Col<std::string>(t, "kind")[linear], "cpu_op");
  EXPECT_EQ(Col<int64_t>(t, "calls")[linear], 2);
  EXPECT_EQ(Col<int64_t>(t, "host_total")[linear], 56000);
  EXPECT_EQ(Col<int64_t>(t, "host_self")[linear], 12000);  // (40 - 30) + (16 - 14)
  EXPECT_DOUBLE_EQ(Col<double>(t, "host_mean")[linear], 28000);
  EXPECT_EQ(Col<int64_t>(t, "device_total")[linear], 52000);  // 30 + 2 + 20
  EXPECT_EQ(Col<int64_t>(t, "device_self")[linear], 0);
  EXPECT_EQ(Col<int64_t>(t, "launched")[linear], 3);
  EXPECT_EQ(Col<std::string>(t, "call_site")[linear], "model.py(10): forward");
  EXPECT_EQ(Col<int64_t>(t, "call_sites")[linear], 2);

  size_t addmm = Row(t, "aten::addmm");
  EXPECT_EQ(Col<int64_t>(t, "host_total")[addmm], 44000);
  EXPECT_EQ(Col<int64_t>(t, "host_self")[addmm], 34000);  // (30 - 5 - 2) + (14 - 3)
  EXPECT_EQ(Col<int64_t>(t, "device_self")[addmm], 52000);
  EXPECT_EQ(Col<int64_t>(t, "device_total")[addmm], 52000);

  size_t block = Row(t, "block");
  EXPECT_EQ(Col<std::string>(t, "kind")[block], "user_annotation");
  EXPECT_EQ(Col<int64_t>(t, "host_self")[block], 7000);  // 57 - 40 - 10
  EXPECT_EQ(Col<int64_t>(t, "device_total")[block], 37000);
  EXPECT_EQ(Col<int64_t>(t, "device_self")[block], 0);

  size_t relu = Row(t, "aten::relu");
  EXPECT_EQ(Col<int64_t>(t, "host_self")[relu], 7000);
  EXPECT_EQ(Col<int64_t>(t, "device_self")[relu], 5000);
  EXPECT_EQ(Col<int64_t>(t, "launched")[relu], 1);

  EXPECT_EQ(MetricOf(r, "device_time_in_ops"), 57000);
  EXPECT_EQ(MetricOf(r, "device_time_outside_ops"), 5000);
  EXPECT_EQ(MetricOf(r, "device_time_not_launched"), 4000);
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_TRUE(r.checks[0].passed) << r.checks[0].detail;
  EXPECT_EQ(r.tables.at("hlo_op_stats").rows, 0u);
}

TEST(OpStats, ByPythonCallSite) {
  PluginResults r = RunOn("ops_stack.json", kOps, {{"by_stack", true}});
  const DerivedTable& t = r.tables.at("op_stats");
  ASSERT_EQ(t.rows, 6u);
  size_t inner = Row(t, "aten::linear", "model.py(12): helper <- model.py(10): forward");
  EXPECT_EQ(Col<int64_t>(t, "calls")[inner], 1);
  EXPECT_EQ(Col<int64_t>(t, "device_total")[inner], 20000);
  size_t outer = Row(t, "aten::linear", "model.py(10): forward");
  EXPECT_EQ(Col<int64_t>(t, "device_total")[outer], 32000);

  PluginResults shallow =
      RunOn("ops_shallow.json", kOps, {{"by_stack", true}, {"stack_depth", int64_t{1}}});
  const DerivedTable& s = shallow.tables.at("op_stats");
  EXPECT_EQ(Col<int64_t>(s, "calls")[Row(s, "aten::linear", "model.py(12): helper")], 1);
}

TEST(OpStats, WithoutAnnotations) {
  PluginResults r = RunOn("ops_no_annotations.json", kOps, {{"include_annotations", false}});
  const DerivedTable& t = r.tables.at("op_stats");
  ASSERT_EQ(t.rows, 3u);
  for (size_t i = 0; i < t.rows; ++i) EXPECT_NE(Col<std::string>(t, "name")[i], "block");
  EXPECT_EQ(MetricOf(r, "device_time_in_ops"), 57000);
}

// Every Kineto trace with an HTA reference: the op device time reconciles, a
// row's self time is within its total, and device_self over all rows is the
// device time launched inside ops.
std::vector<std::string> KinetoTraces() {
  std::vector<std::string> out;
  std::string data = testing::SharedDataDir();
  if (data.empty()) return out;
  const std::string suffix = ".hta.json";
  for (const auto& e : std::filesystem::recursive_directory_iterator(data + "/expected")) {
    std::string p = e.path().string();
    if (p.size() < suffix.size() || p.compare(p.size() - suffix.size(), suffix.size(), suffix))
      continue;
    std::string rel = std::filesystem::relative(p, data + "/expected").string();
    out.push_back(rel.substr(0, rel.size() - suffix.size()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

class OpStatsData : public ::testing::TestWithParam<std::string> {};

TEST_P(OpStatsData, Reconciles) {
  auto set = LoadTraceSet({testing::SharedDataDir() + "/" + GetParam()}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  PluginResults r = RunOn(*set);
  for (const Check& c : r.checks) EXPECT_TRUE(c.passed) << c.name << ": " << c.detail;
  const DerivedTable& t = r.tables.at("op_stats");
  int64_t device_self = 0;
  for (size_t i = 0; i < t.rows; ++i) {
    EXPECT_LE(Col<int64_t>(t, "host_self")[i], Col<int64_t>(t, "host_total")[i]);
    EXPECT_LE(Col<int64_t>(t, "device_self")[i], Col<int64_t>(t, "device_total")[i]);
    device_self += Col<int64_t>(t, "device_self")[i];
  }
  double in_ops = 0;
  for (const Metric& m : r.metrics)
    if (m.name == "device_time_in_ops") in_ops += m.value;
  EXPECT_EQ(static_cast<double>(device_self), in_ops);
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpStatsData);
INSTANTIATE_TEST_SUITE_P(SharedData, OpStatsData, ::testing::ValuesIn(KinetoTraces()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

// A Kineto trace recorded with stacks: aten ops carry their Python call site.
TEST(OpStatsReal, PythonCallSitesOfQwen) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent";
  auto set =
      LoadTraceSet({data + "/tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"},
                   LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  PluginResults r = RunOn(*set);
  const DerivedTable& t = r.tables.at("op_stats");
  ASSERT_GT(t.rows, 10u);
  size_t with_site = 0;
  for (size_t i = 0; i < t.rows; ++i) with_site += !Col<std::string>(t, "call_site")[i].empty();
  EXPECT_GT(with_site, t.rows / 2);
  size_t mm = Row(t, "aten::mm");
  EXPECT_GT(Col<int64_t>(t, "device_self")[mm], 0);
  EXPECT_NE(Col<std::string>(t, "call_site")[mm].find(".py("), std::string::npos);
}

// XProf capture: kernels by HLO instruction and by op_name; the op_name
// figures equal `tracehound info`'s "top ops by device time" (18 kernels,
// 3.234 ms for jit(dot)/dot_general).
TEST(OpStatsReal, XprofKernelsByHloOp) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent";
  auto set = LoadTraceSet({data + "/tracelens/tests/traces/mi300/jax08_gemm/tw003.xplane.pb"},
                          LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  PluginResults r = RunOn(*set);
  const DerivedTable& h = r.tables.at("hlo_op_stats");
  ASSERT_GT(h.rows, 0u);
  int64_t kernels = 0, exact = 0, device = 0;
  for (size_t i = 0; i < h.rows; ++i) {
    kernels += Col<int64_t>(h, "kernels")[i];
    exact += Col<int64_t>(h, "kernels_exact")[i];
    device += Col<int64_t>(h, "device_total")[i];
    EXPECT_FALSE(Col<std::string>(h, "opcode")[i].empty());
    EXPECT_FALSE(Col<std::string>(h, "shape")[i].empty());
  }
  EXPECT_EQ(kernels, 42);  // 54 kernels, 12 of them runtime transfers (none)
  EXPECT_EQ(exact, 42);
  EXPECT_EQ(static_cast<double>(device), MetricOf(r, "device_time_in_hlo_ops"));
  const DerivedTable& t = r.tables.at("op_stats");
  size_t dot = Row(t, "jit(dot)/dot_general");
  EXPECT_EQ(Col<std::string>(t, "kind")[dot], "xla_op");
  EXPECT_EQ(Col<int64_t>(t, "launched")[dot], 18);
  EXPECT_NEAR(static_cast<double>(Col<int64_t>(t, "device_total")[dot]), 3234000, 500);
  EXPECT_EQ(Col<int64_t>(t, "host_total")[dot], -1);  // not measured for XLA ops
  EXPECT_NE(Col<std::string>(t, "call_site")[dot].find("generate_gemm_trace.py:37"),
            std::string::npos);
}

}  // namespace
}  // namespace th
