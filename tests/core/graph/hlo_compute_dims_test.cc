// The HLO text spellings of dot dimensions, windows and convolution
// dim_labels the catalog table hlo_compute_dims holds, and the dot
// dimensions of a cuBLAS GEMM custom-call's backend_config.
#include "core/graph/hlo_compute_dims.h"

#include <gtest/gtest.h>

namespace th::hlo {
namespace {

TEST(HloComputeDims, DotDimsText) {
  EXPECT_EQ(DotDimsText({{1}, {0}, {}, {}}), "lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  EXPECT_EQ(DotDimsText({{2}, {1}, {0}, {0}}),
            "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
            "rhs_contracting_dims={1}");
  EXPECT_EQ(DotDimsText({{1, 2}, {0, 1}, {}, {}}),
            "lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}");
}

TEST(HloComputeDims, WindowText) {
  EXPECT_EQ(WindowText({}), "");
  // Defaults are left out, as XLA prints them.
  EXPECT_EQ(WindowText({{3, 1, 0, 0, 1, 1, false}, {3, 1, 0, 0, 1, 1, false}}), "size=3x3");
  EXPECT_EQ(WindowText({{3, 2, 1, 1, 1, 1, false}, {2, 2, 0, 1, 1, 1, false}}),
            "size=3x2 stride=2x2 pad=1_1x0_1");
  EXPECT_EQ(WindowText({{3, 1, 0, 0, 2, 3, true}}),
            "size=3 lhs_dilate=3 rhs_dilate=2 rhs_reversal=1");
}

TEST(HloComputeDims, DimLabelsText) {
  HloConvDims nhwc{0, 3, {1, 2}, 2, 3, {0, 1}, 0, 3, {1, 2}};
  EXPECT_EQ(DimLabelsText(nhwc), "b01f_01io->b01f");
  HloConvDims nchw{0, 1, {2, 3}, 1, 0, {2, 3}, 0, 1, {2, 3}};
  EXPECT_EQ(DimLabelsText(nchw), "bf01_oi01->bf01");
  HloConvDims clash = nchw;
  clash.input_feature = 0;  // batch and feature on one dimension
  EXPECT_EQ(DimLabelsText(clash), "");
  HloConvDims out_of_range = nchw;
  out_of_range.kernel_spatial = {2, 4};
  EXPECT_EQ(DimLabelsText(out_of_range), "");
}

TEST(HloComputeDims, GemmBackendConfig) {
  // As XLA:GPU writes it (proto JSON: int64 as strings), from a real capture.
  const char* config =
      R"({"operation_queue_id":"0","wait_on_operation_queues":[],"gemm_backend_config":{)"
      R"("selected_algorithm":"-621293861","alpha_real":1,"beta":0,"dot_dimension_numbers":{)"
      R"("lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],)"
      R"("lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"alpha_imag":0}})";
  const std::optional<HloDotDims> d = GemmConfigDotDims(config);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(DotDimsText(*d), "lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  const std::optional<HloDotDims> batched = GemmConfigDotDims(
      R"({"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["2"],)"
      R"("rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":["0"],)"
      R"("rhs_batch_dimensions":["0"]}}})");
  ASSERT_TRUE(batched.has_value());
  EXPECT_EQ(batched->lhs_batch, std::vector<int64_t>({0}));
  EXPECT_FALSE(GemmConfigDotDims(R"({"cudnn_conv_backend_config":{}})").has_value());
  EXPECT_FALSE(GemmConfigDotDims(R"({"gemm_backend_config":{"dot_dimension_numbers":{)"
                                 R"("lhs_contracting_dimensions":["x"]}}})")
                   .has_value());

  HloInstruction gemm;
  gemm.opcode = "custom-call";
  gemm.custom_call_target = "__cublas$gemm";
  gemm.backend_config = config;
  EXPECT_EQ(InstructionDotDimsText(gemm), "lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  gemm.custom_call_target = "__cudnn$convForward";
  EXPECT_EQ(InstructionDotDimsText(gemm), "");
}

}  // namespace
}  // namespace th::hlo
