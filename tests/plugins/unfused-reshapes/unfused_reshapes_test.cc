// unfused-reshapes on modules written by the test: each gate (standalone,
// size floor, compute consumer), positive and negative.
#include <gtest/gtest.h>

#include "tests/support/derived_values.h"
#include "tests/support/hlo_fixture.h"
#include "tests/support/hlo_plugin_runner.h"

namespace th {
namespace {

using testing::AddComputation;
using testing::AddInstruction;
using tracehound::hlo::HloInstructionProto;

void Matrix(HloInstructionProto* ins, int64_t n, std::vector<int64_t> layout = {1, 0}) {
  auto* s = ins->mutable_shape();
  s->Clear();
  s->set_element_type(11);  // f32
  s->add_dimensions(n);
  s->add_dimensions(n);
  for (int64_t m : layout) s->mutable_layout()->add_minor_to_major(m);
}

// big: 2048x2048 f32 = 16 MiB; small: 16x16.
tracehound::hlo::HloModuleProto Module() {
  tracehound::hlo::HloModuleProto m;
  m.set_name("jit_reshapes");
  m.set_id(5);
  auto* fused = AddComputation(&m, 100, "fused_transpose", true);
  Matrix(AddInstruction(fused, 101, "fp", "parameter"), 2048);
  Matrix(AddInstruction(fused, 102, "fused.transpose", "transpose", {101}), 2048, {0, 1});
  auto* e = AddComputation(&m, 1, "main");
  m.set_entry_computation_id(1);
  Matrix(AddInstruction(e, 1, "p0", "parameter"), 2048);
  Matrix(AddInstruction(e, 2, "transpose.1", "transpose", {1}, "jit(f)/transpose", "m.py", 7), 2048,
         {0, 1});
  Matrix(AddInstruction(e, 3, "dot.2", "dot", {2, 1}), 2048);
  Matrix(AddInstruction(e, 4, "p1", "parameter"), 16);
  Matrix(AddInstruction(e, 5, "transpose.3", "transpose", {4}), 16, {0, 1});  // too small
  Matrix(AddInstruction(e, 6, "dot.4", "dot", {5, 4}), 16);
  Matrix(AddInstruction(e, 7, "transpose.5", "transpose", {1}), 2048, {0, 1});  // no consumer
  Matrix(AddInstruction(e, 8, "fusion.6", "fusion", {1}), 2048);  // body transpose: fused
  m.mutable_computations(1)->mutable_instructions(7)->add_called_computation_ids(100);
  Matrix(AddInstruction(e, 9, "dot.7", "dot", {8, 1}), 2048);
  AddInstruction(e, 10, "tuple.8", "tuple", {3, 6, 7, 9});
  return m;
}

TEST(UnfusedReshapes, StandaloneLargeAndFeedingCompute) {
  auto run = testing::RunHloPlugin(BUILTIN_PLUGIN_DIR, "th_unfused_reshapes.so", Module());
  EXPECT_EQ(run.metrics["large_standalone_formatting_ops"], 2);  // transpose.1, transpose.5
  EXPECT_EQ(run.metrics["unfused_reshapes"], 1);
  ASSERT_EQ(run.results.findings.size(), 1u);
  EXPECT_NE(run.results.findings[0].title.find("transpose.1"), std::string::npos);
  EXPECT_NE(run.results.findings[0].what.find("m.py:7"), std::string::npos);
  const DerivedTable& t = run.results.tables.at("unfused_reshapes");
  EXPECT_EQ(th::testing::Col<int64_t>(t, "bytes_moved")[0], 2 * 2048 * 2048 * 4);
  EXPECT_EQ(th::testing::Col<std::string>(t, "consumer")[0], "dot dot.2");
}

TEST(UnfusedReshapes, SizeFloorIsAnOption) {
  auto run = testing::RunHloPlugin(BUILTIN_PLUGIN_DIR, "th_unfused_reshapes.so", Module(),
                                   {{"min_mib", 0.0}});
  EXPECT_EQ(run.metrics["unfused_reshapes"], 2);  // transpose.3 too
}

}  // namespace
}  // namespace th
