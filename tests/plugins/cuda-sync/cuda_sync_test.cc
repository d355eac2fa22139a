// cuda-sync on traces written by the test (every number by hand): each class
// of blocking call, the time inside ProfilerStep windows, per step, findings
// with and without steps; on every real trace with an HTA reference the calls
// equal those counted from the event graph directly.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "tests/support/derived_values.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

const LoadedPlugin& Load(const char* library) {
  auto p = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/" + library);
  EXPECT_TRUE(p.ok()) << p.status().message();
  static std::vector<std::shared_ptr<const LoadedPlugin>> kept;
  kept.push_back(*p);
  return *kept.back();
}
const LoadedPlugin& Plugin() {
  static const LoadedPlugin& plugin = Load("th_cuda_sync.so");
  return plugin;
}
// cuda-sync reads the steps plugin's table: the steps run first, as in a pipeline.
const LoadedPlugin& StepsPlugin() {
  static const LoadedPlugin& plugin = Load("th_steps.so");
  return plugin;
}

using th::testing::Col;

PluginResults RunOn(const TraceSet& set, const std::map<std::string, OptionValue>& options = {}) {
  PluginResults r;
  Status steps = RunPlugin(StepsPlugin(), set, {}, &r);
  EXPECT_TRUE(steps.ok()) << steps.message();
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

size_t Row(const DerivedTable& t, const std::string& cls, const std::string& name) {
  for (size_t r = 0; r < t.rows; ++r)
    if (Col<std::string>(t, "class")[r] == cls && Col<std::string>(t, "name")[r] == name) return r;
  ADD_FAILURE() << "no row " << cls << " " << name;
  return 0;
}

const Finding* FindingFor(const PluginResults& r, const std::string& title) {
  for (const Finding& f : r.findings)
    if (f.title == title) return &f;
  return nullptr;
}

// Thread 1, two steps of 1000 µs.
//   step 1: aten::item [100,200) > aten::_local_scalar_dense [101,199) >
//             cudaMemcpyAsync [110,120) -> Memcpy DtoH (Device -> Pageable) [150,152), 4 B
//             cudaStreamSynchronize [121,190)
//           cudaMemsetAsync [300,302), cudaMemcpyAsync [400,405) -> pinned copy,
//           cudaStreamWaitEvent [410,411): not blocking
//           cudaStreamSynchronize [950,1010): 50 µs in step 1, 10 in step 2
//   step 2: cudaDeviceSynchronize [1500,1600)
//           cudaMemcpy [1700,1750) -> Memcpy HtoD (Pageable -> Device) [1710,1740), 1 KiB
//   after:  cudaEventSynchronize [2100,2200)
constexpr const char* kSync = R"json({"traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 1000, "dur": 1000},
  {"ph": "X", "cat": "cpu_op", "name": "aten::item", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "aten::_local_scalar_dense", "pid": 1, "tid": 1, "ts": 101, "dur": 98},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 110, "dur": 10, "args": {"correlation": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1, "ts": 121, "dur": 69, "args": {"correlation": 2}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemsetAsync", "pid": 1, "tid": 1, "ts": 300, "dur": 2, "args": {"correlation": 3}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 400, "dur": 5, "args": {"correlation": 4}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "pid": 1, "tid": 1, "ts": 410, "dur": 1, "args": {"correlation": 5}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1, "ts": 950, "dur": 60, "args": {"correlation": 6}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1, "ts": 1500, "dur": 100, "args": {"correlation": 7}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpy", "pid": 1, "tid": 1, "ts": 1700, "dur": 50, "args": {"correlation": 8}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventSynchronize", "pid": 1, "tid": 1, "ts": 2100, "dur": 100, "args": {"correlation": 9}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": 7, "ts": 150, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 1, "bytes": 4}},
  {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 303, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 3, "bytes": 64}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, "ts": 406, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 4, "bytes": 64}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 1710, "dur": 30, "args": {"device": 0, "stream": 7, "correlation": 8, "bytes": 1024}}
]})json";

TEST(CudaSync, ClassesBlockedTimeAndSteps) {
  PluginResults r = RunOn("sync.json", kSync);
  const DerivedTable& t = r.tables.at("cuda_sync");
  ASSERT_EQ(t.rows, 5u);
  size_t stream = Row(t, "stream_sync", "cudaStreamSynchronize");
  EXPECT_EQ(Col<int64_t>(t, "calls")[stream], 2);
  EXPECT_EQ(Col<int64_t>(t, "calls_in_steps")[stream], 2);
  EXPECT_EQ(Col<int64_t>(t, "blocked")[stream], 129000);
  EXPECT_EQ(Col<int64_t>(t, "blocked_in_steps")[stream], 129000);
  EXPECT_EQ(Col<int64_t>(t, "max")[stream], 69000);
  EXPECT_EQ(Col<std::string>(t, "top_op")[stream], "aten::_local_scalar_dense");

  size_t pageable = Row(t, "pageable_memcpy_async", "cudaMemcpyAsync");
  EXPECT_EQ(Col<int64_t>(t, "calls")[pageable], 1);  // the pinned copy is not counted
  EXPECT_EQ(Col<int64_t>(t, "blocked")[pageable], 10000);
  EXPECT_EQ(Col<int64_t>(t, "device_time")[pageable], 2000);
  EXPECT_EQ(Col<int64_t>(t, "bytes")[pageable], 4);

  size_t device = Row(t, "device_sync", "cudaDeviceSynchronize");
  EXPECT_EQ(Col<int64_t>(t, "blocked_in_steps")[device], 100000);
  EXPECT_EQ(Col<std::string>(t, "top_op")[device], "");

  size_t memcpy = Row(t, "sync_memcpy", "cudaMemcpy");
  EXPECT_EQ(Col<int64_t>(t, "blocked")[memcpy], 50000);
  EXPECT_EQ(Col<int64_t>(t, "device_time")[memcpy], 30000);
  EXPECT_EQ(Col<int64_t>(t, "bytes")[memcpy], 1024);

  size_t event = Row(t, "event_sync", "cudaEventSynchronize");
  EXPECT_EQ(Col<int64_t>(t, "blocked")[event], 100000);
  EXPECT_EQ(Col<int64_t>(t, "blocked_in_steps")[event], 0);
  EXPECT_EQ(Col<int64_t>(t, "calls_in_steps")[event], 0);

  const DerivedTable& s = r.tables.at("cuda_sync_per_step");
  ASSERT_EQ(s.rows, 2u);
  EXPECT_EQ(Col<int64_t>(s, "step")[0], 1);
  EXPECT_EQ(Col<int64_t>(s, "sync_calls")[0], 3);
  EXPECT_EQ(Col<int64_t>(s, "blocked")[0], 129000);  // 10 + 69 + 50
  EXPECT_DOUBLE_EQ(Col<double>(s, "share")[0], 12.9);
  EXPECT_EQ(Col<int64_t>(s, "sync_calls")[1], 2);
  EXPECT_EQ(Col<int64_t>(s, "blocked")[1], 160000);  // 10 + 100 + 50

  std::map<std::string, double> metrics;
  for (const Metric& m : r.metrics) metrics[m.name] = m.value;
  EXPECT_EQ(metrics["sync_blocked"], 389000);
  EXPECT_EQ(metrics["sync_blocked_in_steps"], 289000);
  EXPECT_EQ(metrics["step_time"], 2000000);
  // In steps: stream 6.45%, device 5%, memcpy 2.5% of 2000 µs (P2); the
  // pageable copy 0.5% is below the 1% default; the event sync is outside.
  ASSERT_EQ(r.findings.size(), 3u);
  const Finding* f = FindingFor(r, "host blocked by stream_sync");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, FindingSeverity::kP2);
  EXPECT_EQ(f->scope.step_first, 1);
  EXPECT_EQ(f->scope.step_last, 2);
  EXPECT_NE(f->what.find("6.5% of step time"), std::string::npos) << f->what;
  EXPECT_NE(FindingFor(r, "host blocked by device_sync"), nullptr);
  EXPECT_NE(FindingFor(r, "host blocked by sync_memcpy"), nullptr);
  EXPECT_EQ(FindingFor(r, "host blocked by pageable_memcpy_async"), nullptr);
}

TEST(CudaSync, SeverityThresholds) {
  PluginResults r =
      RunOn("sync_p1.json", kSync, {{"min_step_share_pct", 0.5}, {"p1_step_share_pct", 6.0}});
  ASSERT_EQ(r.findings.size(), 4u);
  EXPECT_EQ(FindingFor(r, "host blocked by stream_sync")->severity, FindingSeverity::kP1);
  EXPECT_EQ(FindingFor(r, "host blocked by device_sync")->severity, FindingSeverity::kP2);
  EXPECT_NE(FindingFor(r, "host blocked by pageable_memcpy_async"), nullptr);
}

// HIP names, no ProfilerStep: the window is the span of the host events.
TEST(CudaSync, HipWithoutSteps) {
  PluginResults r = RunOn("sync_hip.json", R"json({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "train", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
    {"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyWithStream", "pid": 1, "tid": 1, "ts": 10, "dur": 100, "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "hipDeviceSynchronize", "pid": 1, "tid": 1, "ts": 200, "dur": 50, "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "hipMemsetAsync", "pid": 1, "tid": 1, "ts": 300, "dur": 5, "args": {"correlation": 3}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Host)", "pid": 0, "tid": 0, "ts": 20, "dur": 80, "args": {"device": 0, "stream": 0, "correlation": 1}}
  ]})json");
  const DerivedTable& t = r.tables.at("cuda_sync");
  ASSERT_EQ(t.rows, 2u);
  EXPECT_EQ(Col<int64_t>(t, "blocked_in_steps")[Row(t, "sync_memcpy", "hipMemcpyWithStream")], 0);
  EXPECT_EQ(Col<std::string>(t, "top_op")[Row(t, "device_sync", "hipDeviceSynchronize")], "train");
  EXPECT_EQ(r.tables.at("cuda_sync_per_step").rows, 0u);
  ASSERT_EQ(r.findings.size(), 2u);
  const Finding* copy = FindingFor(r, "host blocked by sync_memcpy");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->severity, FindingSeverity::kP1);  // 100 of 1000 µs
  EXPECT_NE(copy->what.find("no ProfilerStep windows"), std::string::npos) << copy->what;
  EXPECT_EQ(FindingFor(r, "host blocked by device_sync")->severity, FindingSeverity::kP2);
}

// Overlapping steps and calls that span several of them: each step gets the
// part of every call inside it and counts the calls that start in it.
//   step 1 [0,1000), step 2 [500,1500), step 3 [1500,1600), step 4 [3000,4000)
//   cudaDeviceSynchronize [400,700): 300 µs in step 1, 200 in step 2, starts in 1
//   cudaStreamSynchronize [1400,3100): 100 µs in steps 2, 3 and 4, starts in 2
//   cudaEventSynchronize [1550,1550): no time, starts in step 3
//   cudaDeviceSynchronize [2000,2100): between steps
TEST(CudaSync, PerStepWithOverlappingStepsAndLongCalls) {
  PluginResults r = RunOn("sync_overlap.json", R"json({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 2, "ts": 500, "dur": 1000},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 1500, "dur": 100},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 1, "tid": 1, "ts": 3000, "dur": 1000},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 3, "ts": 400, "dur": 300, "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 3, "ts": 1400, "dur": 1700, "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventSynchronize", "pid": 1, "tid": 4, "ts": 1550, "dur": 0, "args": {"correlation": 3}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 4, "ts": 2000, "dur": 100, "args": {"correlation": 4}}
  ]})json");
  const DerivedTable& s = r.tables.at("cuda_sync_per_step");
  ASSERT_EQ(s.rows, 4u);
  EXPECT_EQ(Col<int64_t>(s, "step"), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(Col<int64_t>(s, "blocked"), (std::vector<int64_t>{300000, 300000, 100000, 100000}));
  EXPECT_EQ(Col<int64_t>(s, "sync_calls"), (std::vector<int64_t>{1, 1, 1, 0}));
}

// Real traces: the calls per name equal a count over the event graph.
std::vector<std::string> HtaTraces() {
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

class CudaSyncData : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaSyncData, CallsMatchTheEventGraph) {
  auto set = LoadTraceSet({testing::SharedDataDir() + "/" + GetParam()}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  // Expected: blocking calls by (rank, name), and Async copies that launched a
  // pageable GPU copy.
  static const std::set<std::string> kBlocking = {"cudaDeviceSynchronize",
                                                  "cudaStreamSynchronize",
                                                  "cudaEventSynchronize",
                                                  "hipDeviceSynchronize",
                                                  "hipStreamSynchronize",
                                                  "hipEventSynchronize",
                                                  "cudaMemcpy",
                                                  "hipMemcpy",
                                                  "hipMemcpyWithStream",
                                                  "cudaMemset",
                                                  "hipMemset"};
  std::map<std::pair<int64_t, std::string>, int64_t> want;
  for (const auto& t : set->traces) {
    const EventGraph& g = t->graph;
    for (EventId i = 0; i < g.events.size(); ++i) {
      if (!IsLaunch(g.events.kind[i])) continue;
      std::string name(g.strings.Get(g.events.name[i]));
      if (kBlocking.count(name)) ++want[{t->info.rank, name}];
    }
    std::set<EventId> pageable;
    for (size_t k = 0; k < g.edges.size(); ++k) {
      if (g.edges.kind[k] != EdgeKind::kLaunch) continue;
      EventId src = g.edges.src[k], dst = g.edges.dst[k];
      std::string name(g.strings.Get(g.events.name[src]));
      if (g.events.kind[dst] == EventKind::kMemcpy &&
          g.strings.Get(g.events.name[dst]).find("Pageable") != std::string_view::npos &&
          name.find("Async") != std::string::npos)
        pageable.insert(src);
    }
    for (EventId src : pageable)
      ++want[{t->info.rank, "pageable:" + std::string(g.strings.Get(g.events.name[src]))}];
  }
  PluginResults r = RunOn(*set);
  const DerivedTable& t = r.tables.at("cuda_sync");
  std::map<std::pair<int64_t, std::string>, int64_t> got;
  for (size_t i = 0; i < t.rows; ++i) {
    std::string name = Col<std::string>(t, "name")[i];
    if (Col<std::string>(t, "class")[i] == "pageable_memcpy_async") name = "pageable:" + name;
    got[{Col<int64_t>(t, "rank")[i], name}] += Col<int64_t>(t, "calls")[i];
    EXPECT_LE(Col<int64_t>(t, "blocked_in_steps")[i], Col<int64_t>(t, "blocked")[i]);
    EXPECT_LE(Col<int64_t>(t, "calls_in_steps")[i], Col<int64_t>(t, "calls")[i]);
  }
  EXPECT_EQ(got, want);
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaSyncData);
INSTANTIATE_TEST_SUITE_P(SharedData, CudaSyncData, ::testing::ValuesIn(HtaTraces()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace th
