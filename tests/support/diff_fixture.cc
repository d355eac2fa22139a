#include "tests/support/diff_fixture.h"

#include <cstdio>
#include <string>
#include <vector>

namespace th::testing {
namespace {

std::string Event(const char* cat, const std::string& name, int64_t ts, int64_t dur, int tid,
                  const std::string& args) {
  std::string e = "{\"ph\": \"X\", \"cat\": \"" + std::string(cat) + "\", \"name\": \"" + name +
                  "\", \"pid\": " + (tid == 7 ? "0" : "1") + ", \"tid\": " + std::to_string(tid) +
                  ", \"ts\": " + std::to_string(ts) + ", \"dur\": " + std::to_string(dur);
  if (!args.empty()) e += ", \"args\": {" + args + "}";
  return e + "}";
}

}  // namespace

std::string DiffFixtureTrace(const DiffFixture& f) {
  char gemm[64];
  std::snprintf(gemm, sizeof gemm, "gemm_kernel<0x%llx>",
                static_cast<unsigned long long>(f.address));
  std::vector<std::string> ev;
  int64_t corr = 0;
  auto shapes = [&](const std::string& name) -> std::string {
    if (!f.shapes) return "";
    if (name == "aten::linear")
      return "\"Input Dims\": " + f.linear_dims +
             ", \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]";
    if (name == "aten::relu") return R"("Input Dims": [[64, 64]], "Input type": ["float"])";
    return R"("Input Dims": [[64, 64], [64, 64], []], "Input type": ["float", "float", "Scalar"])";
  };
  auto op = [&](const std::string& name, int64_t ts, const std::string& kernel, int64_t dur) {
    ev.push_back(Event("cpu_op", name, ts, 40, 1, shapes(name)));
    const std::string c = "\"correlation\": " + std::to_string(++corr);
    ev.push_back(Event("cuda_runtime", "cudaLaunchKernel", ts + 10, 5, 1, c));
    ev.push_back(Event("kernel", kernel, ts + 20, dur, 7, "\"device\": 0, \"stream\": 7, " + c));
  };
  for (int s = 0; s < f.steps; ++s) {
    const int64_t base = 1000 * static_cast<int64_t>(s);
    if (f.markers)
      ev.push_back(
          Event("user_annotation", "ProfilerStep#" + std::to_string(s), base, 1000, 1, ""));
    ev.push_back(Event("python_function", "nn.Module: Encoder_0", base + 10, 190, 1, ""));
    op("aten::linear", base + 20, gemm, f.double_gemm ? 100 : 50);
    op("aten::linear", base + 150, "gemm2_kernel", 30);
    ev.push_back(Event("python_function", "nn.Module: Decoder_0", base + 300, 300, 1, ""));
    op("aten::add", base + 310, "elementwise_kernel", 20);
    if (f.insert_mul) op("aten::mul", base + 360, "mul_kernel", 15);
    op("aten::relu", base + 420, "relu_kernel", 10);
  }
  std::string out =
      "{\"distributedInfo\": {\"rank\": 0, \"world_size\": 1},\n"
      " \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\"}],\n"
      " \"traceEvents\": [\n";
  for (size_t i = 0; i < ev.size(); ++i) out += "  " + ev[i] + (i + 1 < ev.size() ? ",\n" : "\n");
  return out + "]}\n";
}

}  // namespace th::testing
