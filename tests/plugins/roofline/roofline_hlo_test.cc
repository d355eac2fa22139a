// The roofline's HLO path end to end on a capture written by the test: an
// XSpace embedding module jit_mm (a bf16 dot [1024,4096]·[4096,2048], its
// dot_dimension_numbers in the proto) and one 1 ms kernel labelled with it,
// through the importer (field 30 → hlo_compute_dims) and the plugin host.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "tests/support/derived_values.h"
#include "tests/support/hlo_fixture.h"
#include "tests/support/test_files.h"
#include "tests/support/xspace_fixture.h"

namespace th {
namespace {

using th::testing::Cell;

void SetShape(tracehound::hlo::HloInstructionProto* ins, int64_t rows, int64_t cols) {
  auto* s = ins->mutable_shape();
  s->Clear();
  s->set_element_type(16);  // BF16
  s->add_dimensions(rows);
  s->add_dimensions(cols);
  s->mutable_layout()->add_minor_to_major(1);
  s->mutable_layout()->add_minor_to_major(0);
}

// One 1 ms GEMM kernel per execution; `split_k`: each execution also runs a
// 0.5 ms reduction kernel labelled with the same instruction.
// `devices`: the same kernels on that many GPU planes, at the same times.
std::string WriteCapture(bool with_dot_dims, int executions = 1, bool split_k = false,
                         int devices = 1) {
  tracehound::hlo::HloModuleProto m;
  m.set_name("jit_mm");
  m.set_id(7);
  auto* main = testing::AddComputation(&m, 1, "main");
  m.set_entry_computation_id(1);
  SetShape(testing::AddInstruction(main, 1, "a", "parameter"), 1024, 4096);
  auto* b = testing::AddInstruction(main, 2, "b", "parameter");
  SetShape(b, 4096, 2048);
  b->set_parameter_number(1);
  auto* dot = testing::AddInstruction(main, 3, "dot.1", "dot", {1, 2});
  SetShape(dot, 1024, 2048);
  if (with_dot_dims) {
    dot->mutable_dot_dimension_numbers()->add_lhs_contracting_dimensions(1);
    dot->mutable_dot_dimension_numbers()->add_rhs_contracting_dimensions(0);
  }
  testing::XSpaceBuilder x;
  x.EmbedHlo(m);
  const std::vector<testing::StatSpec> label = {{"hlo_op", std::string("dot.1")},
                                                {"hlo_module", std::string("jit_mm")},
                                                {"program_id", int64_t{7}}};
  for (int d = 0; d < devices; ++d) {
    auto* gpu = x.AddPlane(d, "/device:GPU:" + std::to_string(d));
    auto* line = x.AddLine(gpu, 1, "Stream #1(Kernel)", 0);
    for (int e = 0; e < executions; ++e) {
      const int64_t start = int64_t{e} * 10000000000;                       // every 10 ms
      x.AddEvent(gpu, line, "gemm_bf16_kernel", start, 1000000000, label);  // 1 ms
      if (split_k) x.AddEvent(gpu, line, "splitk_reduce", start + 1000000000, 500000000, label);
    }
  }
  static int n = 0;
  const std::string dir = testing::TempDir() + "/roofline_hlo_" + std::to_string(++n);
  std::filesystem::create_directories(dir);
  EXPECT_TRUE(x.WriteTo(dir + "/mm.xplane.pb"));
  return dir + "/mm.xplane.pb";
}

PluginResults RunRoofline(const std::string& path) {
  auto plugin = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/th_roofline.so");
  EXPECT_TRUE(plugin.ok()) << plugin.status().message();
  auto set = LoadTraceSet({path}, LoadOptions{});
  EXPECT_TRUE(set.ok()) << set.status().message();
  PluginResults r;
  // The plane names no product: the H100 row is chosen by the option.
  const Status s = RunPlugin(**plugin, *set, {{"device", std::string("h100-sxm")}}, &r);
  EXPECT_TRUE(s.ok()) << s.message();
  return r;
}

TEST(RooflineHlo, DotBf16KnownAnswerThroughTheImporter) {
  const PluginResults r = RunRoofline(WriteCapture(true));
  const DerivedTable& ops = r.tables.at("roofline_ops");
  ASSERT_EQ(ops.rows, 1u);
  EXPECT_EQ(Cell<std::string>(ops, "name", 0), "jit_mm(7)/dot.1");
  EXPECT_EQ(Cell<std::string>(ops, "input_dims", 0), "bf16[1024,4096]{1,0}, bf16[4096,2048]{1,0}");
  EXPECT_EQ(Cell<int64_t>(ops, "count", 0), 1);
  EXPECT_EQ(Cell<int64_t>(ops, "flops", 0), 17179869184);  // 2 · 1024 · 2048 · 4096
  EXPECT_EQ(Cell<int64_t>(ops, "bytes", 0), 29360128);     // (4M + 8M + 2M elements) · 2 B
  EXPECT_EQ(Cell<int64_t>(ops, "transcendentals", 0), 0);
  EXPECT_EQ(Cell<int64_t>(ops, "time", 0), 1000000);
  EXPECT_EQ(Cell<std::string>(ops, "dtype", 0), "bf16");
  EXPECT_EQ(Cell<std::string>(ops, "unit", 0), "matrix");
  EXPECT_EQ(Cell<std::string>(ops, "peak", 0), "matrix bf16");
  EXPECT_EQ(Cell<std::string>(ops, "bound", 0), "compute");
  const double peak = Cell<double>(ops, "peak_flops", 0);
  ASSERT_GT(peak, 0);
  EXPECT_DOUBLE_EQ(Cell<double>(ops, "efficiency", 0), 17179869184.0 / peak / 1e-3);
  EXPECT_DOUBLE_EQ(Cell<double>(ops, "flops_per_s", 0), 17179869184.0 / 1e-3);
  const DerivedTable& steps = r.tables.at("roofline_steps");
  ASSERT_EQ(steps.rows, 1u);
  EXPECT_EQ(Cell<int64_t>(steps, "busy", 0), 1000000);
  EXPECT_EQ(Cell<int64_t>(steps, "modelled", 0), 1000000);
  EXPECT_DOUBLE_EQ(Cell<double>(steps, "coverage", 0), 1.0);
  EXPECT_EQ(r.tables.at("roofline_unmodelled").rows, 0u);
}

TEST(RooflineHlo, ExecutionsCountKernelsOfOneNameNotAllKernels) {
  // Two executions of a split-K GEMM (two kernels each): count 2, F twice,
  // T the four kernels' busy time.
  const PluginResults r = RunRoofline(WriteCapture(true, 2, true));
  const DerivedTable& ops = r.tables.at("roofline_ops");
  ASSERT_EQ(ops.rows, 1u);
  EXPECT_EQ(Cell<int64_t>(ops, "count", 0), 2);
  EXPECT_EQ(Cell<int64_t>(ops, "flops", 0), 2 * int64_t{17179869184});
  EXPECT_EQ(Cell<int64_t>(ops, "bytes", 0), 2 * 29360128);
  EXPECT_EQ(Cell<int64_t>(ops, "time", 0), 3000000);
}

TEST(RooflineHlo, EachDeviceCountsItsOwnExecutionsAndTime) {
  // An SPMD program on two GPUs at the same moment: per device one execution
  // and 1 ms (the devices' activity is not one union), so each device's
  // efficiency is the one-device capture's.
  const PluginResults one = RunRoofline(WriteCapture(true));
  const PluginResults two = RunRoofline(WriteCapture(true, 1, false, 2));
  const DerivedTable& ops = two.tables.at("roofline_ops");
  ASSERT_EQ(ops.rows, 2u);
  EXPECT_NE(Cell<std::string>(ops, "device", 0), Cell<std::string>(ops, "device", 1));
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(Cell<int64_t>(ops, "count", i), 1);
    EXPECT_EQ(Cell<int64_t>(ops, "flops", i), 17179869184);
    EXPECT_EQ(Cell<int64_t>(ops, "time", i), 1000000);
    EXPECT_DOUBLE_EQ(Cell<double>(ops, "efficiency", i),
                     Cell<double>(one.tables.at("roofline_ops"), "efficiency", 0));
  }
}

TEST(RooflineHlo, DotWithoutDimensionNumbersIsUnmodelledNotZero) {
  const PluginResults r = RunRoofline(WriteCapture(false));
  EXPECT_EQ(r.tables.at("roofline_ops").rows, 0u);
  const DerivedTable& loose = r.tables.at("roofline_unmodelled");
  ASSERT_EQ(loose.rows, 1u);
  EXPECT_EQ(Cell<std::string>(loose, "name", 0), "jit_mm(7)/dot.1");
  EXPECT_EQ(Cell<std::string>(loose, "reason", 0), "no dot dimension numbers");
  EXPECT_EQ(Cell<int64_t>(loose, "time", 0), 1000000);
  EXPECT_DOUBLE_EQ(Cell<double>(r.tables.at("roofline_steps"), "coverage", 0), 0.0);
}

}  // namespace
}  // namespace th
