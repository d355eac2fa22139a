// The roofline plugin on traces built with the SDK's testing kit (every
// figure by hand): the known answers of the issue (a BF16 GEMM on an H100, an
// FP32 add on an A100-80GB at 500 and 300 µs), attribution to the outermost
// modelled op, per-step coverage with the unmodelled time listed, and the
// peak table override.
#include <gtest/gtest.h>
#include <tracehound/testing.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace tk = th::sdk::testing;

const th_plugin_descriptor* Plugin() {
  static tk::PluginLibrary lib(std::string(BUILTIN_PLUGIN_DIR) + "/th_roofline.so");
  EXPECT_TRUE(lib.ok()) << lib.error();
  return lib.descriptor();
}

constexpr char kBf16x2[] = R"(["c10::BFloat16","c10::BFloat16"])";
constexpr char kAddTypes[] = R"(["float","float","Scalar"])";

// One op on a CPU thread launching one kernel of `kernel_ns` on stream 7,
// inside ProfilerStep#1 (0 .. 10 ms).
struct OneOp {
  tk::TraceBuilder b;
  uint32_t cpu = b.CpuThread(1, 1), stream = b.GpuStream(0, 7);
  OneOp(const std::string& device, const char* op, const char* dims, const char* types,
        int64_t kernel_ns) {
    b.Device({.id = 0, .name = device});
    b.ProfilerStep(cpu, 1, 0, 10'000'000);
    b.CpuOp(cpu, op, 100'000, 50'000, dims, types);
    b.Launch(b.Runtime(cpu, "cudaLaunchKernel", 110'000, 10'000),
             b.Kernel(stream, "kernel", 200'000, kernel_ns));
  }
};

tk::RunResult RunRoofline(const tk::TraceBuilder& b, const tk::Options& options = {}) {
  auto trace = b.Build();
  tk::Host host;
  tk::RunResult r = host.Run(Plugin(), {trace.get()}, options);
  EXPECT_TRUE(r.ok) << r.error;
  return r;
}

template <typename T>
T Cell(const tk::RunResult& r, const char* table, const char* column, size_t row);
template <>
int64_t Cell(const tk::RunResult& r, const char* table, const char* column, size_t row) {
  return r.Table(table)->Ints(column).at(row);
}
template <>
double Cell(const tk::RunResult& r, const char* table, const char* column, size_t row) {
  return r.Table(table)->Reals(column).at(row);
}
template <>
std::string Cell(const tk::RunResult& r, const char* table, const char* column, size_t row) {
  return r.Table(table)->Texts(column).at(row);
}

TEST(Roofline, Bf16GemmOnH100KnownAnswer) {
  OneOp t("NVIDIA H100 80GB HBM3", "aten::mm", "[[4096,4096],[4096,4096]]", kBf16x2, 1'000'000);
  const tk::RunResult r = RunRoofline(t.b);
  ASSERT_EQ(r.Table("roofline_ops")->rows, 1u);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_ops", "flops", 0), 137438953472);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_ops", "bytes", 0), 100663296);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_ops", "time", 0), 1000000);
  EXPECT_EQ(Cell<std::string>(r, "roofline_ops", "dtype", 0), "bf16");
  EXPECT_EQ(Cell<std::string>(r, "roofline_ops", "peak", 0), "matrix bf16");
  EXPECT_EQ(Cell<double>(r, "roofline_ops", "peak_flops", 0), 989.4e12);
  EXPECT_EQ(Cell<double>(r, "roofline_ops", "peak_bytes_per_s", 0), 3.35e12);
  EXPECT_EQ(Cell<std::string>(r, "roofline_ops", "bound", 0), "compute");
  EXPECT_DOUBLE_EQ(Cell<double>(r, "roofline_ops", "flops_per_s", 0), 137438953472e3);
  EXPECT_DOUBLE_EQ(Cell<double>(r, "roofline_ops", "intensity", 0), 137438953472.0 / 100663296.0);
  EXPECT_DOUBLE_EQ(Cell<double>(r, "roofline_ops", "efficiency", 0),
                   137438953472.0 / 989.4e12 / 1e-3);
  EXPECT_TRUE(tk::ExpectNoFinding(r));
  // The step: all busy time modelled; MFU = (F / P) / 10 ms.
  EXPECT_EQ(Cell<int64_t>(r, "roofline_steps", "busy", 0), 1000000);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_steps", "unmodelled", 0), 0);
  EXPECT_EQ(Cell<double>(r, "roofline_steps", "coverage", 0), 1.0);
  EXPECT_DOUBLE_EQ(Cell<double>(r, "roofline_steps", "mfu", 0),
                   137438953472.0 / 989.4e12 * 1e9 / 10e6);
}

TEST(Roofline, Fp32AddOnA100IsMemoryBoundAndAt300usExceedsTheRoofline) {
  const std::string dims = "[[67108864],[67108864],[]]";
  OneOp slow("NVIDIA A100-SXM4-80GB", "aten::add", dims.c_str(), kAddTypes, 500'000);
  const tk::RunResult r = RunRoofline(slow.b);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_ops", "flops", 0), 67108864);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_ops", "bytes", 0), 805306368);
  EXPECT_EQ(Cell<std::string>(r, "roofline_ops", "bound", 0), "memory");
  EXPECT_EQ(Cell<std::string>(r, "roofline_ops", "peak", 0), "vector fp32");
  const double eff = Cell<double>(r, "roofline_ops", "efficiency", 0);
  EXPECT_DOUBLE_EQ(eff, 805306368.0 / 2039e9 / 500e-6);
  EXPECT_EQ(std::round(eff * 100) / 100, 0.79);
  EXPECT_TRUE(tk::ExpectNoFinding(r));

  OneOp fast("NVIDIA A100-SXM4-80GB", "aten::add", dims.c_str(), kAddTypes, 300'000);
  const tk::RunResult f = RunRoofline(fast.b);
  EXPECT_DOUBLE_EQ(Cell<double>(f, "roofline_ops", "efficiency", 0), 805306368.0 / 2039e9 / 300e-6);
  ASSERT_EQ(f.findings.size(), 1u) << tk::Summary(f);
  EXPECT_EQ(f.findings[0].title, "exceeds the roofline: aten::add on NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(f.findings[0].group, "roofline-exceeds:aten::add");
  EXPECT_EQ(f.findings[0].what,
            "aten::add runs faster than the peaks of NVIDIA A100-SXM4-80GB allow (efficiency 1.317 "
            "for fp32 [[67108864],[67108864],[]], 1 shape(s) above 1.050): the model or the peak "
            "is wrong");
  const auto& ev = f.findings[0].evidence;
  auto peak = std::find_if(ev.begin(), ev.end(), [](const tk::ReportedEvidence& e) {
    return e.name == "peak_bytes_per_s";
  });
  ASSERT_NE(peak, ev.end());
  EXPECT_EQ(peak->value, 2039e9);
  EXPECT_EQ(peak->kind, static_cast<uint32_t>(TH_READ));
}

// aten::matmul > aten::mm > launch: one row, the outer op's, with the kernel's
// time; a kernel under aten::nonzero (no model) is listed as unmodelled and
// lowers the step's coverage.
TEST(Roofline, OutermostModelledOpOwnsTheKernelsAndUnmodelledTimeIsListed) {
  tk::TraceBuilder b;
  const uint32_t cpu = b.CpuThread(1, 1), s7 = b.GpuStream(0, 7);
  b.Device({.id = 0, .name = "NVIDIA H100 80GB HBM3"});
  b.ProfilerStep(cpu, 3, 0, 10'000'000);
  b.CpuOp(cpu, "aten::matmul", 100'000, 100'000, "[[64,128],[128,256]]", R"(["float","float"])");
  b.CpuOp(cpu, "aten::mm", 110'000, 50'000, "[[64,128],[128,256]]", R"(["float","float"])");
  b.Launch(b.Runtime(cpu, "cudaLaunchKernel", 120'000, 10'000),
           b.Kernel(s7, "gemm", 300'000, 40'000));
  b.CpuOp(cpu, "aten::nonzero", 400'000, 50'000, "[[64]]", R"(["float"])");
  b.Launch(b.Runtime(cpu, "cudaLaunchKernel", 410'000, 10'000),
           b.Kernel(s7, "nonzero", 500'000, 10'000));
  const tk::RunResult r = RunRoofline(b);
  ASSERT_EQ(r.Table("roofline_ops")->rows, 1u);
  EXPECT_EQ(Cell<std::string>(r, "roofline_ops", "name", 0), "aten::matmul");
  EXPECT_EQ(Cell<int64_t>(r, "roofline_ops", "flops", 0), 2 * 64 * 128 * 256);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_ops", "time", 0), 40000);
  EXPECT_EQ(Cell<std::string>(r, "roofline_ops", "peak", 0), "vector fp32");
  ASSERT_EQ(r.Table("roofline_unmodelled")->rows, 1u);
  EXPECT_EQ(Cell<std::string>(r, "roofline_unmodelled", "name", 0), "aten::nonzero");
  EXPECT_EQ(Cell<std::string>(r, "roofline_unmodelled", "reason", 0), "no model for this op");
  EXPECT_EQ(Cell<int64_t>(r, "roofline_unmodelled", "time", 0), 10000);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_steps", "step", 0), 3);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_steps", "busy", 0), 50000);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_steps", "modelled", 0), 40000);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_steps", "unmodelled", 0), 10000);
  EXPECT_EQ(Cell<double>(r, "roofline_steps", "coverage", 0), 0.8);
}

// A conv2d as PyTorch records it: conv2d > convolution > _convolution >
// cudnn_convolution, each with its Concrete Inputs, one kernel. The outermost
// (conv2d) owns the kernel: F and time counted once. N=8, Cin=64, 56x56,
// Cout=128, 3x3, stride 1, pad 1, bf16, no bias: F = 2 * 8*128*56*56 * 64*9 =
// 3,699,376,128; B = (1605632 + 73728 + 3211264) * 2 = 9,781,248. A second
// conv2d without Concrete Inputs is unmodelled with the reason.
TEST(Roofline, Conv2dNestCountedOnceAtTheOutermostOp) {
  tk::TraceBuilder b;
  const uint32_t cpu = b.CpuThread(1, 1), s7 = b.GpuStream(0, 7);
  b.Device({.id = 0, .name = "NVIDIA H100 80GB HBM3"});
  b.ProfilerStep(cpu, 1, 0, 10'000'000);
  const std::string x = "[8,64,56,56],[128,64,3,3]";
  const std::string bf = R"("c10::BFloat16","c10::BFloat16")";
  b.CpuOp(cpu, "aten::conv2d", 100'000, 90'000, "[" + x + ",[],[],[],[],[]]",
          "[" + bf + R"(,"","ScalarList","ScalarList","ScalarList","Scalar"])",
          R"(["","","","[1, 1]","[1, 1]","[1, 1]","1"])");
  b.CpuOp(
      cpu, "aten::convolution", 101'000, 80'000, "[" + x + ",[],[],[],[],[],[],[]]",
      "[" + bf + R"(,"","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"])",
      R"(["","","","[1, 1]","[1, 1]","[1, 1]","False","[0, 0]","1"])");
  b.CpuOp(
      cpu, "aten::_convolution", 102'000, 70'000, "[" + x + ",[],[],[],[],[],[],[],[],[],[],[]]",
      "[" + bf +
          R"(,"","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar","Scalar","Scalar","Scalar","Scalar"])",
      R"(["","","","[1, 1]","[1, 1]","[1, 1]","False","[0, 0]","1","False","False","True","True"])");
  b.CpuOp(
      cpu, "aten::cudnn_convolution", 103'000, 60'000, "[" + x + ",[],[],[],[],[],[],[]]",
      "[" + bf + R"(,"ScalarList","ScalarList","ScalarList","Scalar","Scalar","Scalar","Scalar"])",
      R"(["","","[1, 1]","[1, 1]","[1, 1]","1","False","False","True"])");
  b.Launch(b.Runtime(cpu, "cudaLaunchKernel", 110'000, 10'000),
           b.Kernel(s7, "cudnn_conv", 300'000, 700'000));
  b.CpuOp(cpu, "aten::conv2d", 2'000'000, 50'000, "[" + x + ",[],[],[],[],[]]",
          "[" + bf + R"(,"","ScalarList","ScalarList","ScalarList","Scalar"])");
  b.Launch(b.Runtime(cpu, "cudaLaunchKernel", 2'010'000, 10'000),
           b.Kernel(s7, "cudnn_conv", 2'100'000, 300'000));
  const tk::RunResult r = RunRoofline(b);
  ASSERT_EQ(r.Table("roofline_ops")->rows, 1u);
  EXPECT_EQ(Cell<std::string>(r, "roofline_ops", "name", 0), "aten::conv2d");
  EXPECT_EQ(Cell<int64_t>(r, "roofline_ops", "count", 0), 1);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_ops", "flops", 0), 3699376128);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_ops", "bytes", 0), 9781248);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_ops", "time", 0), 700000);
  EXPECT_EQ(Cell<std::string>(r, "roofline_ops", "peak", 0), "matrix bf16");
  ASSERT_EQ(r.Table("roofline_unmodelled")->rows, 1u);
  EXPECT_EQ(Cell<std::string>(r, "roofline_unmodelled", "name", 0), "aten::conv2d");
  EXPECT_EQ(Cell<std::string>(r, "roofline_unmodelled", "reason", 0),
            "aten::conv2d: no Concrete Inputs (stride, padding, dilation, groups)");
  EXPECT_EQ(Cell<int64_t>(r, "roofline_unmodelled", "time", 0), 300000);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_steps", "modelled", 0), 700000);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_steps", "unmodelled", 0), 300000);
}

// conv_transpose2d has no model of its own: the convolution it calls
// (transposed true) owns the kernel. input [1, 4, 5, 5], weight [4, 2, 3, 3],
// stride 2, pad 1, output_padding 1, no bias: out [1, 2, 10, 10]; F = 2 * 100
// * 2*9 = 3,600; B = (100 + 72 + 200) * 4 = 1,488.
TEST(Roofline, ConvTransposeCountedAtItsConvolution) {
  tk::TraceBuilder b;
  const uint32_t cpu = b.CpuThread(1, 1), s7 = b.GpuStream(0, 7);
  b.Device({.id = 0, .name = "NVIDIA H100 80GB HBM3"});
  b.ProfilerStep(cpu, 1, 0, 10'000'000);
  b.CpuOp(cpu, "aten::conv_transpose2d", 100'000, 90'000, "[[1,4,5,5],[4,2,3,3],[],[],[],[],[],[]]",
          R"(["float","float","","ScalarList","ScalarList","ScalarList","Scalar","ScalarList"])",
          R"(["","","","[2, 2]","[1, 1]","[1, 1]","1","[1, 1]"])");
  b.CpuOp(
      cpu, "aten::convolution", 101'000, 80'000, "[[1,4,5,5],[4,2,3,3],[],[],[],[],[],[],[]]",
      R"(["float","float","","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"])",
      R"(["","","","[2, 2]","[1, 1]","[1, 1]","True","[1, 1]","1"])");
  b.Launch(b.Runtime(cpu, "cudaLaunchKernel", 110'000, 10'000),
           b.Kernel(s7, "dgrad", 300'000, 5'000));
  const tk::RunResult r = RunRoofline(b);
  ASSERT_EQ(r.Table("roofline_ops")->rows, 1u);
  EXPECT_EQ(Cell<std::string>(r, "roofline_ops", "name", 0), "aten::convolution");
  EXPECT_EQ(Cell<int64_t>(r, "roofline_ops", "flops", 0), 3600);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_ops", "bytes", 0), 1488);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_ops", "time", 0), 5000);
  EXPECT_EQ(Cell<std::string>(r, "roofline_ops", "peak", 0), "vector fp32");
  EXPECT_EQ(r.Table("roofline_unmodelled")->rows, 0u);
}

// Modelled ops whose shapes are absent or unreadable are listed with the
// reason, their time unmodelled.
TEST(Roofline, OpsWithoutOrWithBadShapesAreUnmodelledWithTheReason) {
  tk::TraceBuilder b;
  const uint32_t cpu = b.CpuThread(1, 1), s7 = b.GpuStream(0, 7);
  b.Device({.id = 0, .name = "NVIDIA H100 80GB HBM3"});
  b.Launch(b.Runtime(cpu, "cudaLaunchKernel", 110'000, 10'000),
           b.Kernel(s7, "gemm", 300'000, 40'000));
  b.CpuOp(cpu, "aten::mm", 100'000, 50'000);
  b.CpuOp(cpu, "aten::add", 200'000, 50'000, "[[4],[4", R"(["float","float"])");
  b.Launch(b.Runtime(cpu, "cudaLaunchKernel", 210'000, 10'000),
           b.Kernel(s7, "add", 400'000, 5'000));
  const tk::RunResult r = RunRoofline(b);
  EXPECT_EQ(r.Table("roofline_ops")->rows, 0u);
  ASSERT_EQ(r.Table("roofline_unmodelled")->rows, 2u);
  EXPECT_EQ(Cell<std::string>(r, "roofline_unmodelled", "name", 0), "aten::mm");
  EXPECT_EQ(Cell<std::string>(r, "roofline_unmodelled", "reason", 0),
            "no Input Dims / Input type (recorded without record_shapes)");
  EXPECT_EQ(Cell<int64_t>(r, "roofline_unmodelled", "time", 0), 40000);
  EXPECT_EQ(Cell<std::string>(r, "roofline_unmodelled", "name", 1), "aten::add");
  EXPECT_EQ(Cell<std::string>(r, "roofline_unmodelled", "reason", 1)
                .rfind("unreadable input shapes: ", 0),
            0u);
  EXPECT_EQ(Cell<double>(r, "roofline_steps", "coverage", 0), 0.0);
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("roofline_test_" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(Roofline, PeaksFileOverridesTheShippedTableAndBadOnesFailNamingTheLine) {
  OneOp t("NVIDIA H100 80GB HBM3", "aten::mm", "[[4096,4096],[4096,4096]]", kBf16x2, 1'000'000);
  const std::string mine = WriteTemp(
      "mine.yaml",
      "version: 1\ndevices:\n  - {id: lab, name: \"Lab H100\", match: [\"H100\"]}\npeaks:\n"
      "  - {device: lab, unit: matrix, dtype: bf16, flops: 700e12, kind: measured, source: "
      "\"our GEMM sweep\"}\nbandwidth:\n  - {device: lab, bytes_per_s: 3e12, kind: measured, "
      "source: \"our stream copy\"}\n");
  const tk::RunResult r = RunRoofline(t.b, {{"peaks_file", mine}});
  EXPECT_EQ(Cell<double>(r, "roofline_ops", "peak_flops", 0), 700e12);
  EXPECT_EQ(Cell<std::string>(r, "roofline_ops", "peak_source", 0),
            "our GEMM sweep; our stream copy");

  const std::string bad = WriteTemp("bad.yaml", "version: 1\npeaks:\n  - {device: lab}\n");
  auto trace = t.b.Build();
  tk::Host host;
  const tk::RunResult e = host.Run(Plugin(), {trace.get()}, {{"peaks_file", bad}});
  EXPECT_FALSE(e.ok);
  EXPECT_NE(e.error.find(bad + ":3: missing key 'dtype'"), std::string::npos) << e.error;
  // Forcing a device id the table lacks is an error too.
  const tk::RunResult d = host.Run(Plugin(), {trace.get()}, {{"device", "h999"}});
  EXPECT_FALSE(d.ok);
  EXPECT_NE(d.error.find("h999"), std::string::npos) << d.error;
}

TEST(Roofline, UnknownDeviceKeepsFiguresAndSaysNoPeak) {
  OneOp t("Some Future GPU", "aten::mm", "[[4096,4096],[4096,4096]]", kBf16x2, 1'000'000);
  const tk::RunResult r = RunRoofline(t.b);
  EXPECT_EQ(Cell<int64_t>(r, "roofline_ops", "flops", 0), 137438953472);
  EXPECT_EQ(Cell<std::string>(r, "roofline_ops", "bound", 0), "unknown");
  EXPECT_EQ(Cell<double>(r, "roofline_ops", "efficiency", 0), -1.0);
  // Forced by id: the H100 row.
  const tk::RunResult f = RunRoofline(t.b, {{"device", "h100-sxm"}});
  EXPECT_EQ(Cell<double>(f, "roofline_ops", "peak_flops", 0), 989.4e12);
}

}  // namespace
