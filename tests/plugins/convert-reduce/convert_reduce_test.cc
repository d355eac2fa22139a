// convert-reduce on modules written by the test: the positive case and one
// negative case per gate (phase, reducer, non-negative terms, downcast,
// single use), each gate also switched off by its option.
#include <gtest/gtest.h>

#include "tests/support/hlo_fixture.h"
#include "tests/support/hlo_plugin_runner.h"

namespace th {
namespace {

using testing::AddComputation;
using testing::AddInstruction;
using tracehound::hlo::HloInstructionProto;

constexpr int64_t kF32 = 11, kBf16 = 16;

void Vec(HloInstructionProto* ins, int64_t type, std::vector<int64_t> dims) {
  auto* s = ins->mutable_shape();
  s->Clear();
  s->set_element_type(type);
  for (int64_t d : dims) s->add_dimensions(d);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i)
    s->mutable_layout()->add_minor_to_major(i);
}

struct Variant {
  bool training = false;
  const char* reducer = "add";
  bool square = true;       // x*x (non-negative) or x itself (signed)
  bool downcast = true;     // convert back to bf16 before the output
  bool second_use = false;  // the f32 upcast also feeds a dot
};

// p0 bf16[1024] -> convert.1 f32 -> multiply.2 (x*x) -> reduce.3 f32[] -> convert.4 bf16[]
tracehound::hlo::HloModuleProto Module(const Variant& v) {
  tracehound::hlo::HloModuleProto m;
  m.set_name("jit_norm");
  m.set_id(3);
  auto* reducer = AddComputation(&m, 50, v.training ? "grad_reducer" : "sum_reducer");
  Vec(AddInstruction(reducer, 51, "a", "parameter"), kF32, {});
  Vec(AddInstruction(reducer, 52, "b", "parameter"), kF32, {});
  reducer->mutable_instructions(1)->set_parameter_number(1);
  Vec(AddInstruction(reducer, 53, "r", v.reducer, {51, 52}), kF32, {});
  auto* e = AddComputation(&m, 1, "main");
  m.set_entry_computation_id(1);
  Vec(AddInstruction(e, 1, "p0", "parameter"), kBf16, {1024});
  Vec(AddInstruction(e, 2, "convert.1", "convert", {1}), kF32, {1024});
  if (v.square) Vec(AddInstruction(e, 3, "multiply.2", "multiply", {2, 2}), kF32, {1024});
  Vec(AddInstruction(e, 4, "zero", "constant"), kF32, {});
  auto* reduce = AddInstruction(e, 5, "reduce.3", "reduce", {v.square ? 3 : 2, 4},
                                "jit(norm)/reduce_sum", "norm.py", 12);
  Vec(reduce, kF32, {});
  reduce->add_called_computation_ids(50);
  std::vector<int64_t> outputs;
  if (v.downcast) {
    Vec(AddInstruction(e, 6, "convert.4", "convert", {5}), kBf16, {});
    outputs.push_back(6);
  } else {
    outputs.push_back(5);
  }
  if (v.second_use) {
    Vec(AddInstruction(e, 7, "dot.5", "dot", {2, 2}), kF32, {});
    outputs.push_back(7);
  }
  AddInstruction(e, 8, "tuple.6", "tuple", outputs);
  return m;
}

double Found(const Variant& v, const std::map<std::string, OptionValue>& options = {}) {
  auto run = testing::RunHloPlugin(BUILTIN_PLUGIN_DIR, "th_convert_reduce.so", Module(v), options);
  return run.metrics["convert_reduce"];
}

TEST(ConvertReduce, FlagsTheUpcastOfANonNegativeInferenceSum) {
  auto run = testing::RunHloPlugin(BUILTIN_PLUGIN_DIR, "th_convert_reduce.so", Module({}));
  EXPECT_EQ(run.metrics["convert_reduce"], 1);
  ASSERT_EQ(run.results.findings.size(), 1u);
  const auto& f = run.results.findings[0];
  EXPECT_NE(f.title.find("convert.1"), std::string::npos) << f.title;
  EXPECT_NE(f.what.find("1024 elements"), std::string::npos) << f.what;
  EXPECT_NE(f.suggestion.find("jnp.mean(x, dtype=x.dtype)"), std::string::npos);
  EXPECT_NE(f.what.find("norm.py:12"), std::string::npos);
}

TEST(ConvertReduce, EachGateRejectsAndCanBeSwitchedOff) {
  Variant training;
  training.training = true;
  EXPECT_EQ(Found(training), 0);
  EXPECT_EQ(Found(training, {{"inference_only", false}}), 1);

  Variant max_reducer;
  max_reducer.reducer = "maximum";
  EXPECT_EQ(Found(max_reducer), 0);

  Variant signed_sum;
  signed_sum.square = false;
  EXPECT_EQ(Found(signed_sum), 0);
  EXPECT_EQ(Found(signed_sum, {{"require_non_negative", false}}), 1);

  Variant f32_output;
  f32_output.downcast = false;
  EXPECT_EQ(Found(f32_output), 0);
  EXPECT_EQ(Found(f32_output, {{"require_downcast", false}}), 1);

  Variant shared;
  shared.second_use = true;
  EXPECT_EQ(Found(shared), 0);
}

}  // namespace
}  // namespace th
