// The hand-written HLO reader against libprotobuf (generated from the
// project's core/import/hlo/hlo.proto) on every real `*.hlo_proto.pb`:
// computations, instructions (name, opcode, id, operands, callees, fusion
// kind, metadata), the schedule, and the entry computation.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/import/hlo/hlo_reader.h"
#include "hlo.pb.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

template <typename R>
bool Same(const std::vector<int64_t>& mine, const R& ref) {
  return std::equal(mine.begin(), mine.end(), ref.begin(), ref.end());
}

// Dot dimension numbers, window, convolution dimension numbers and group
// counts as libprotobuf decodes them (an unset count reads 1, as in XLA).
void ExpectSameComputeDims(const hlo::HloInstruction& mi,
                           const tracehound::hlo::HloInstructionProto& ri) {
  EXPECT_EQ(mi.has_dot_dims, ri.has_dot_dimension_numbers());
  const auto& rd = ri.dot_dimension_numbers();
  EXPECT_TRUE(Same(mi.dot_dims.lhs_contracting, rd.lhs_contracting_dimensions()));
  EXPECT_TRUE(Same(mi.dot_dims.rhs_contracting, rd.rhs_contracting_dimensions()));
  EXPECT_TRUE(Same(mi.dot_dims.lhs_batch, rd.lhs_batch_dimensions()));
  EXPECT_TRUE(Same(mi.dot_dims.rhs_batch, rd.rhs_batch_dimensions()));
  ASSERT_EQ(static_cast<int>(mi.window.size()), ri.window().dimensions_size());
  for (int k = 0; k < ri.window().dimensions_size(); ++k) {
    const auto& w = ri.window().dimensions(k);
    const hlo::HloWindowDim& d = mi.window[static_cast<size_t>(k)];
    EXPECT_EQ(d.size, w.size());
    EXPECT_EQ(d.stride, w.stride());
    EXPECT_EQ(d.padding_low, w.padding_low());
    EXPECT_EQ(d.padding_high, w.padding_high());
    EXPECT_EQ(d.window_dilation, w.window_dilation());
    EXPECT_EQ(d.base_dilation, w.base_dilation());
    EXPECT_EQ(d.window_reversal, w.window_reversal());
  }
  EXPECT_EQ(mi.has_conv_dims, ri.has_convolution_dimension_numbers());
  const auto& rc = ri.convolution_dimension_numbers();
  EXPECT_EQ(mi.conv_dims.input_feature, rc.input_feature_dimension());
  EXPECT_EQ(mi.conv_dims.kernel_output_feature, rc.kernel_output_feature_dimension());
  EXPECT_TRUE(Same(mi.conv_dims.kernel_spatial, rc.kernel_spatial_dimensions()));
  EXPECT_TRUE(Same(mi.conv_dims.output_spatial, rc.output_spatial_dimensions()));
  EXPECT_EQ(mi.feature_group_count, std::max<int64_t>(1, ri.feature_group_count()));
  EXPECT_EQ(mi.batch_group_count, std::max<int64_t>(1, ri.batch_group_count()));
}

class HloAgainstLibprotobuf : public ::testing::TestWithParam<std::string> {};

TEST_P(HloAgainstLibprotobuf, SameModule) {
  std::string path = testing::SharedDataDir() + "/" + GetParam();
  tracehound::hlo::HloProto ref;
  ASSERT_TRUE(ref.ParseFromString(testing::ReadFile(path)));
  auto mine = hlo::ReadHloProtoFile(path);
  ASSERT_TRUE(mine.ok()) << mine.status().message();
  ASSERT_EQ(mine->size(), 1u);
  const hlo::HloModule& m = mine->front();
  const auto& rm = ref.hlo_module();
  EXPECT_EQ(m.name, rm.name());
  EXPECT_EQ(m.id, rm.id());
  EXPECT_EQ(m.entry_computation_id, rm.entry_computation_id());
  ASSERT_EQ(static_cast<int>(m.computations.size()), rm.computations_size());
  for (int c = 0; c < rm.computations_size(); ++c) {
    const auto& rc = rm.computations(c);
    const hlo::HloComputation& mc = m.computations[static_cast<size_t>(c)];
    EXPECT_EQ(mc.name, rc.name());
    EXPECT_EQ(mc.id, rc.id());
    EXPECT_EQ(mc.root_id, rc.root_id());
    EXPECT_EQ(mc.is_fusion_computation, rc.is_fusion_computation());
    ASSERT_EQ(static_cast<int>(mc.instructions.size()), rc.instructions_size());
    for (int i = 0; i < rc.instructions_size(); ++i) {
      const auto& ri = rc.instructions(i);
      const hlo::HloInstruction& mi = mc.instructions[static_cast<size_t>(i)];
      EXPECT_EQ(mi.name, ri.name());
      EXPECT_EQ(mi.opcode, ri.opcode());
      EXPECT_EQ(mi.id, ri.id());
      EXPECT_EQ(mi.fusion_kind, ri.fusion_kind());
      EXPECT_EQ(mi.custom_call_target, ri.custom_call_target());
      EXPECT_EQ(mi.backend_config, ri.backend_config());
      EXPECT_EQ(mi.metadata.op_name, ri.metadata().op_name());
      EXPECT_EQ(mi.metadata.source_line, ri.metadata().source_line());
      EXPECT_TRUE(std::equal(mi.operand_ids.begin(), mi.operand_ids.end(), ri.operand_ids().begin(),
                             ri.operand_ids().end()));
      EXPECT_TRUE(std::equal(mi.called_computation_ids.begin(), mi.called_computation_ids.end(),
                             ri.called_computation_ids().begin(),
                             ri.called_computation_ids().end()));
      ExpectSameComputeDims(mi, ri);
      EXPECT_EQ(mi.shape.dimensions.size(), static_cast<size_t>(ri.shape().dimensions_size()));
      EXPECT_EQ(mi.shape.minor_to_major.size(),
                static_cast<size_t>(ri.shape().layout().minor_to_major_size()));
    }
  }
  ASSERT_EQ(static_cast<int>(m.schedule.size()), rm.schedule().sequences_size());
  for (const auto& [comp, seq] : rm.schedule().sequences()) {
    auto it = m.schedule.find(comp);
    ASSERT_NE(it, m.schedule.end());
    EXPECT_TRUE(std::equal(it->second.begin(), it->second.end(), seq.instruction_ids().begin(),
                           seq.instruction_ids().end()));
  }
}

INSTANTIATE_TEST_SUITE_P(SharedData, HloAgainstLibprotobuf,
                         ::testing::ValuesIn(testing::FilesWithOracle(".hlo_proto.pb")),
                         [](const auto& info) { return testing::ParamName(info.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(HloAgainstLibprotobuf);

}  // namespace
}  // namespace th
