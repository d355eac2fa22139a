// layout-kernels on a PyTorch trace written by the test: copy and dtype-cast
// kernels next to a GEMM are reported with the outermost aten op and the
// Python frame; one away from any GEMM is not, whatever the kernels' order in
// the file.
#include <gtest/gtest.h>

#include <string>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "tests/support/derived_values.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

constexpr const char* kTrace = R"({"traceEvents": [
 {"ph": "X", "cat": "python_function", "name": "model.py(10): forward", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
 {"ph": "X", "cat": "cpu_op", "name": "aten::contiguous", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
 {"ph": "X", "cat": "cpu_op", "name": "aten::clone", "pid": 1, "tid": 1, "ts": 105, "dur": 90},
 {"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": 1, "ts": 110, "dur": 80},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 120, "dur": 10, "args": {"correlation": 1}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 400, "dur": 100},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 410, "dur": 10, "args": {"correlation": 2}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::to", "pid": 1, "tid": 1, "ts": 600, "dur": 100},
 {"ph": "X", "cat": "cpu_op", "name": "aten::_to_copy", "pid": 1, "tid": 1, "ts": 605, "dur": 90},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 610, "dur": 10, "args": {"correlation": 3}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::contiguous", "pid": 1, "tid": 1, "ts": 1500, "dur": 100},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1510, "dur": 10, "args": {"correlation": 4}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1700, "dur": 10, "args": {"correlation": 5}},
 {"ph": "X", "cat": "kernel", "name": "direct_copy_kernel_cuda", "pid": 0, "tid": 7, "ts": 300, "dur": 20, "args": {"correlation": 1, "device": 0, "stream": 7}},
 {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 330, "dur": 100, "args": {"correlation": 2, "device": 0, "stream": 7}},
 {"ph": "X", "cat": "kernel", "name": "unrolled_elementwise_kernel<copy>", "pid": 0, "tid": 7, "ts": 450, "dur": 10, "args": {"correlation": 3, "device": 0, "stream": 7}},
 {"ph": "X", "cat": "kernel", "name": "direct_copy_kernel_cuda", "pid": 0, "tid": 7, "ts": 2000, "dur": 10, "args": {"correlation": 4, "device": 0, "stream": 7}},
 {"ph": "X", "cat": "kernel", "name": "relu_kernel", "pid": 0, "tid": 7, "ts": 2100, "dur": 10, "args": {"correlation": 5, "device": 0, "stream": 7}}
]})";

// The same kernels with the stream's rows out of time order in the file.
std::string KernelsOutOfFileOrder() {
  std::string trace = kTrace;
  const auto line = [&](const char* start) {
    const size_t at = trace.find(start);
    const std::string text = trace.substr(at, trace.find('\n', at) + 1 - at);
    trace.erase(at, text.size());
    return text;
  };
  const std::string first_copy = line(
      R"( {"ph": "X", "cat": "kernel", "name": "direct_copy_kernel_cuda", "pid": 0, "tid": 7, "ts": 300)");
  const std::string gemm = line(R"( {"ph": "X", "cat": "kernel", "name": "ampere_sgemm)");
  const size_t relu = trace.find(R"( {"ph": "X", "cat": "kernel", "name": "relu_kernel")");
  trace.insert(relu, gemm + first_copy);
  return trace;
}

void ExpectCopyAndCastNextToGemm(const std::string& json) {
  auto set = LoadTraceSet({testing::WriteTempFile("layout_kernels.json", json)}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  auto plugin = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/th_layout_kernels.so");
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  PluginResults r;
  ASSERT_TRUE(RunPlugin(**plugin, *set, {}, &r).ok());
  const DerivedTable& t = r.tables.at("layout_kernels");
  ASSERT_EQ(t.rows, 2u);  // the copy far from the GEMM is not there
  const auto& op = th::testing::Col<std::string>(t, "aten_op");
  const auto& kind = th::testing::Col<std::string>(t, "kind");
  const auto& ns = th::testing::Col<int64_t>(t, "gpu_time");
  const auto& python = th::testing::Col<std::string>(t, "python");
  const auto& share = th::testing::Col<double>(t, "share");
  EXPECT_EQ(op[0], "aten::contiguous");  // 20 µs first
  EXPECT_EQ(kind[0], "contiguous");
  EXPECT_EQ(ns[0], 20000);
  EXPECT_EQ(python[0], "model.py(10): forward");
  EXPECT_DOUBLE_EQ(share[0], 100.0 * 20 / 150);  // of all GPU time (150 µs)
  EXPECT_EQ(op[1], "aten::to");
  EXPECT_EQ(kind[1], "dtype-cast");
  EXPECT_EQ(r.findings.size(), 2u);
}

TEST(LayoutKernels, NextToGemmWithTheirAtenOpAndPythonFrame) {
  ExpectCopyAndCastNextToGemm(kTrace);
}

TEST(LayoutKernels, StreamOrderFromStartTimesNotFileOrder) {
  const std::string shuffled = KernelsOutOfFileOrder();
  ASSERT_NE(shuffled, kTrace);
  ExpectCopyAndCastNextToGemm(shuffled);
}

}  // namespace
}  // namespace th
