// Graph capture detection on written traces: an inference server capturing
// CUDA graphs, the same on HIP, a capture begun before the trace, a trace of
// graph replays (steady state), and a short capture inside a running trace.
#include "core/graph/graph_capture.h"

#include <gtest/gtest.h>

#include <string>

#include "core/import/trace_loader.h"
#include "tests/support/synthetic_traces.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

GraphCapture Detect(const std::string& name, const std::string& json) {
  auto set = LoadTraceSet({testing::WriteTempFile(name, json)}, LoadOptions{});
  EXPECT_TRUE(set.ok()) << set.status().message();
  if (!set.ok() || set->traces.empty()) return {};
  return DetectGraphCapture(set->traces[0]->graph);
}

std::string Runtime(const char* name, int ts, int corr, int tid = 1) {
  return R"({"ph": "X", "cat": "cuda_runtime", "name": ")" + std::string(name) +
         R"(", "pid": 1, "tid": )" + std::to_string(tid) + R"(, "ts": )" + std::to_string(ts) +
         R"(, "dur": 4, "args": {"correlation": )" + std::to_string(corr) + "}}";
}
std::string Kernel(int ts, int corr) {
  return R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": )" +
         std::to_string(ts) + R"(, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": )" +
         std::to_string(corr) + "}}";
}
std::string Trace(const std::vector<std::string>& events) {
  std::string out = R"({"traceEvents": [)";
  for (size_t i = 0; i < events.size(); ++i) out += (i ? ",\n" : "") + events[i];
  return out + "]}";
}

TEST(GraphCapture, InferenceServerCapturingGraphsDominates) {
  GraphCapture c = Detect("capture.json", testing::kGraphCaptureTrace);
  EXPECT_EQ(c.begin_calls, 1);
  EXPECT_EQ(c.end_calls, 1);
  EXPECT_EQ(c.instantiations, 1);
  EXPECT_EQ(c.graph_launches, 0);
  // Five kernel launches and a memset; cudaStreamGetCaptureInfo_v2 is no launch.
  EXPECT_EQ(c.captured_launches, 6);
  EXPECT_EQ(c.executed_launches, 2);  // the warm-up's two kernels ran
  EXPECT_EQ(c.kernels, 2);
  EXPECT_EQ(c.trace_start, 10000);
  EXPECT_EQ(c.first_ts, 210000);  // cudaStreamBeginCapture's start
  EXPECT_EQ(c.last_end, 805000);  // cudaStreamEndCapture's end
  EXPECT_FALSE(c.hip);
  EXPECT_TRUE(c.present());
  EXPECT_TRUE(c.dominates());
}

TEST(GraphCapture, HipCaptureWithModuleLaunches) {
  GraphCapture c = Detect(
      "hip.json",
      Trace({Runtime("hipStreamBeginCapture", 0, 1), Runtime("hipExtModuleLaunchKernel", 10, 2),
             Runtime("hipModuleLaunchKernel", 20, 3), Runtime("hipLaunchKernel", 30, 4),
             Runtime("hipStreamEndCapture", 40, 5), Runtime("hipGraphInstantiate", 50, 6),
             Runtime("hipGraphLaunch", 60, 7), Kernel(70, 7), Kernel(80, 7)}));
  EXPECT_TRUE(c.hip);
  EXPECT_EQ(c.captured_launches, 3);
  EXPECT_EQ(c.graph_launches, 1);
  EXPECT_EQ(c.executed_launches, 1);  // the replay ran its two kernels
  EXPECT_EQ(c.kernels, 2);
  EXPECT_TRUE(c.dominates());
}

TEST(GraphCapture, EndWithoutBeginOpensAtTheTraceStart) {
  GraphCapture c = Detect(
      "late.json", Trace({Runtime("cudaLaunchKernel", 0, 1), Runtime("cudaLaunchKernel", 10, 2),
                          Runtime("cudaStreamEndCapture", 20, 3),
                          Runtime("cudaLaunchKernel", 30, 4), Kernel(40, 4)}));
  EXPECT_EQ(c.begin_calls, 0);
  EXPECT_EQ(c.end_calls, 1);
  EXPECT_EQ(c.captured_launches, 2);
  EXPECT_EQ(c.executed_launches, 1);
  EXPECT_EQ(c.first_ts, 0);
  EXPECT_EQ(c.last_end, 24000);
  EXPECT_TRUE(c.dominates());
}

TEST(GraphCapture, ReplaysAreSteadyState) {
  // cudaGraphLaunch replays whose kernels ran, and launches without a kernel
  // outside any capture (their kernels fell after the trace): no capture.
  GraphCapture c =
      Detect("replay.json",
             Trace({Runtime("cudaGraphLaunch", 0, 1), Kernel(10, 1), Kernel(20, 1),
                    Runtime("cudaStreamGetCaptureInfo", 30, 2), Runtime("cudaLaunchKernel", 40, 3),
                    Runtime("cudaGraphInstantiateWithFlags", 50, 4),
                    Runtime("cudaLaunchKernel", 60, 5), Kernel(70, 5)}));
  EXPECT_EQ(c.instantiations, 1);
  EXPECT_EQ(c.graph_launches, 1);
  EXPECT_EQ(c.executed_launches, 2);
  EXPECT_EQ(c.captured_launches, 0);
  EXPECT_FALSE(c.present());
  EXPECT_FALSE(c.dominates());
}

TEST(GraphCapture, ShortCaptureInARunningTraceIsPresentNotDominant) {
  // Three kernels ran; one launch was captured on thread 2 meanwhile.
  GraphCapture c = Detect(
      "mixed.json",
      Trace({Runtime("cudaLaunchKernel", 0, 1), Kernel(10, 1), Runtime("cudaLaunchKernel", 20, 2),
             Kernel(30, 2), Runtime("cudaLaunchKernel", 40, 3), Kernel(50, 3),
             Runtime("cudaStreamBeginCapture", 15, 4, 2), Runtime("cudaLaunchKernel", 25, 5, 2),
             Runtime("cudaStreamEndCapture", 35, 6, 2)}));
  EXPECT_EQ(c.captured_launches, 1);
  EXPECT_EQ(c.executed_launches, 3);
  EXPECT_EQ(c.first_ts, 15000);
  EXPECT_EQ(c.last_end, 39000);
  EXPECT_TRUE(c.present());
  EXPECT_FALSE(c.dominates());
}

TEST(GraphCapture, NoCaptureCallsNothingToSay) {
  GraphCapture c = Detect("plain.json", Trace({Runtime("cudaLaunchKernel", 0, 1), Kernel(10, 1)}));
  EXPECT_FALSE(c.present());
  EXPECT_EQ(c.executed_launches, 1);
  EXPECT_EQ(c.first_ts, 0);
  EXPECT_EQ(c.last_end, 0);
}

}  // namespace
}  // namespace th
