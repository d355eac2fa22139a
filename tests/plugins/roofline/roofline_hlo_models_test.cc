// The roofline's HLO models on their own (hlo_models.h): known answers by
// hand, the parsers of the catalog's HLO text, and what stays unmodelled.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "device_identity.h"
#include "hlo_models.h"

namespace th::roofline {
namespace {

HloOp Op(std::string_view opcode, std::string_view shape, std::vector<std::string_view> operands) {
  HloOp op;
  op.opcode = opcode;
  op.shape = shape;
  op.operand_shapes = std::move(operands);
  return op;
}

TEST(HloModels, DotBf16KnownAnswer) {
  HloOp op = Op("dot", "bf16[1024,2048]{1,0}", {"bf16[1024,4096]{1,0}", "bf16[4096,2048]{1,0}"});
  op.dot_dims = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
  const HloCost c = InstructionCost(op);
  ASSERT_TRUE(c.modelled) << c.why;
  EXPECT_EQ(c.flops, 17179869184);  // 2 * 1024 * 2048 * 4096
  EXPECT_EQ(c.bytes, 29360128);     // (1024*4096 + 4096*2048 + 1024*2048) * 2
  EXPECT_EQ(c.transcendentals, 0);
  EXPECT_EQ(c.dtype, "bf16");
  EXPECT_EQ(c.unit, "matrix");
}

TEST(HloModels, GemmCustomCallCountsItsResultNotItsWorkspace) {
  HloOp op = Op("custom-call", "(f32[4096,4096]{1,0}, s8[67108864]{0})",
                {"f32[4096,4096]{1,0}", "f32[4096,4096]{1,0}"});
  op.custom_call_target = "__cublas$gemm";
  op.dot_dims = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
  const HloCost c = InstructionCost(op);
  ASSERT_TRUE(c.modelled) << c.why;
  EXPECT_EQ(c.flops, int64_t{2} * 4096 * 4096 * 4096);
  EXPECT_EQ(c.bytes, int64_t{3} * 4096 * 4096 * 4);
  EXPECT_EQ(c.dtype, "fp32");
  // Without its dot dimensions a GEMM is not guessed.
  op.dot_dims = "";
  EXPECT_FALSE(InstructionCost(op).modelled);
}

TEST(HloModels, BatchedDot) {
  HloOp op = Op("dot", "f16[8,64,16]{2,1,0}", {"f16[8,64,32]{2,1,0}", "f16[8,32,16]{2,1,0}"});
  op.dot_dims =
      "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}";
  const HloCost c = InstructionCost(op);
  ASSERT_TRUE(c.modelled) << c.why;
  EXPECT_EQ(c.flops, 2 * 8 * 64 * 16 * 32);
  EXPECT_EQ(c.dtype, "fp16");
}

TEST(HloModels, ConvolutionWithoutPaddingIsTwoOutKernelFeatures) {
  // NCHW 1x3x8x8, 16 3x3 filters, no padding: out 1x16x6x6.
  HloOp op = Op("convolution", "f32[1,16,6,6]{3,2,1,0}",
                {"f32[1,3,8,8]{3,2,1,0}", "f32[16,3,3,3]{3,2,1,0}"});
  op.dim_labels = "bf01_oi01->bf01";
  op.window = "size=3x3";
  const HloCost c = InstructionCost(op);
  ASSERT_TRUE(c.modelled) << c.why;
  EXPECT_EQ(c.flops, 2 * (16 * 6 * 6) * 9 * 3);  // 2·|out|·Πkernel·Cin
  EXPECT_EQ(c.bytes, (16 * 36 + 3 * 64 + 16 * 27) * 4);
  EXPECT_EQ(c.unit, "matrix");
}

TEST(HloModels, ConvolutionPaddingCountsOnlyInputPositions) {
  // Same, padded 1 on each side: out 8x8. Per spatial dimension, kernel taps
  // 0, 1, 2 land on the input for 7, 8, 7 of the 8 outputs: 22 (not 24).
  HloOp op = Op("convolution", "f32[1,16,8,8]{3,2,1,0}",
                {"f32[1,3,8,8]{3,2,1,0}", "f32[16,3,3,3]{3,2,1,0}"});
  op.dim_labels = "bf01_oi01->bf01";
  op.window = "size=3x3 pad=1_1x1_1";
  EXPECT_EQ(InstructionCost(op).flops, 2 * 3 * 16 * 22 * 22);
}

TEST(HloModels, GroupedConvolutionDividesInputFeatures) {
  HloOp op = Op("convolution", "bf16[1,6,6,6]{3,2,1,0}",
                {"bf16[1,3,8,8]{3,2,1,0}", "bf16[6,1,3,3]{3,2,1,0}"});
  op.dim_labels = "bf01_oi01->bf01";
  op.window = "size=3x3";
  op.feature_group_count = 3;
  const HloCost c = InstructionCost(op);
  EXPECT_EQ(c.flops, 2 * (6 * 36) * 9 * 1);
  EXPECT_EQ(c.dtype, "bf16");
}

TEST(HloModels, CudnnConvolutionCustomCall) {
  // 3-D, strided, from jax_conv_minimal: the result is the tuple's first element.
  HloOp op = Op("custom-call", "(f32[1,4,3,3,3]{4,3,2,1,0}, u8[100]{0})",
                {"f32[1,2,4,4,4]{4,3,2,1,0}", "f32[4,2,2,2,2]{4,3,2,1,0}"});
  op.custom_call_target = "__cudnn$convForward";
  op.dim_labels = "bf012_oi012->bf012";
  op.window = "size=2x2x2 stride=2x2x2 pad=1_1x1_1x1_1";
  const HloCost c = InstructionCost(op);
  ASSERT_TRUE(c.modelled) << c.why;
  // Per dimension: tap 0 lands on input for outputs 1, 2; tap 1 for 0, 1: 4 pairs.
  EXPECT_EQ(c.flops, 2 * 2 * 4 * 1 * 4 * 4 * 4);
  EXPECT_EQ(c.bytes, (4 * 27 + 2 * 64 + 4 * 2 * 8) * 4);
}

TEST(HloModels, ElementwiseAndTranscendentals) {
  const HloCost add = InstructionCost(Op("add", "f32[1024]{0}", {"f32[1024]{0}", "f32[1024]{0}"}));
  ASSERT_TRUE(add.modelled);
  EXPECT_EQ(add.flops, 1024);
  EXPECT_EQ(add.transcendentals, 0);
  EXPECT_EQ(add.bytes, 3 * 1024 * 4);
  EXPECT_EQ(add.unit, "vector");
  for (std::string_view t :
       {"exponential", "log", "tanh", "logistic", "rsqrt", "sqrt", "sine", "cosine"}) {
    const HloCost c = InstructionCost(Op(t, "bf16[64]{0}", {"bf16[64]{0}"}));
    EXPECT_EQ(c.flops, 0) << t;
    EXPECT_EQ(c.transcendentals, 64) << t;
  }
  const HloCost pow = InstructionCost(Op("power", "f32[10]{0}", {"f32[10]{0}", "f32[10]{0}"}));
  EXPECT_EQ(pow.transcendentals, 10);
  // Data movement: no FLOPs, its bytes.
  const HloCost copy = InstructionCost(Op("copy", "f32[8,4]{0,1}", {"f32[8,4]{1,0}"}));
  ASSERT_TRUE(copy.modelled);
  EXPECT_EQ(copy.flops, 0);
  EXPECT_EQ(copy.bytes, 256);
}

TEST(HloModels, ReduceCountsReductionsTimesReducer) {
  HloOp op = Op("reduce", "f32[128]{0}", {"f32[128,256]{1,0}", "f32[]"});
  const HloCost c = InstructionCost(op);
  ASSERT_TRUE(c.modelled) << c.why;
  EXPECT_EQ(c.flops, 128 * 256 - 128);
  op.reducer_flops = 2;
  EXPECT_EQ(InstructionCost(op).flops, 2 * (128 * 256 - 128));
}

TEST(HloModels, FusionSumsItsBodyAndMovesItsParametersAndOutputs) {
  const HloOp fusion = Op("fusion", "bf16[256]{0}", {"bf16[256]{0}", "bf16[256]{0}"});
  std::vector<HloCost> body = {
      InstructionCost(Op("parameter", "bf16[256]{0}", {})),
      InstructionCost(Op("parameter", "bf16[256]{0}", {})),
      InstructionCost(Op("multiply", "bf16[256]{0}", {"bf16[256]{0}", "bf16[256]{0}"})),
      InstructionCost(Op("exponential", "bf16[256]{0}", {"bf16[256]{0}"})),
      InstructionCost(Op("add", "bf16[256]{0}", {"bf16[256]{0}", "bf16[256]{0}"}))};
  const HloCost c = FusionCost(fusion, body);
  ASSERT_TRUE(c.modelled) << c.why;
  EXPECT_EQ(c.flops, 512);
  EXPECT_EQ(c.transcendentals, 256);
  EXPECT_EQ(c.bytes, 3 * 256 * 2);  // intermediates stay on chip
  EXPECT_EQ(c.unit, "vector");
  // A fusion holding a dot takes the dot's dtype and the matrix peak.
  HloOp dot = Op("dot", "f32[16,16]{1,0}", {"bf16[16,32]{1,0}", "bf16[32,16]{1,0}"});
  dot.dot_dims = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
  const HloCost gemm =
      FusionCost(Op("fusion", "f32[16,16]{1,0}", {"bf16[16,32]{1,0}", "bf16[32,16]{1,0}"}),
                 {InstructionCost(dot)});
  EXPECT_EQ(gemm.unit, "matrix");
  EXPECT_EQ(gemm.dtype, "bf16");
  EXPECT_EQ(gemm.flops, 2 * 16 * 16 * 32);
  // An unmodelled fused instruction makes the fusion unmodelled.
  body.push_back(InstructionCost(Op("custom-call", "f32[4]{0}", {})));
  EXPECT_FALSE(FusionCost(fusion, body).modelled);
}

TEST(HloModels, Unmodelled) {
  HloOp other = Op("custom-call", "(bf16[2,16]{1,0}, f32[2]{0})", {"bf16[2,16]{1,0}"});
  other.custom_call_target = "my_kernel_ffi";
  const HloCost c = InstructionCost(other);
  EXPECT_FALSE(c.modelled);
  EXPECT_EQ(c.why, "custom-call my_kernel_ffi: no model");
  EXPECT_FALSE(InstructionCost(Op("all-reduce", "f32[4]{0}", {"f32[4]{0}"})).modelled);
  // An asynchronous copy's time on the device is its issue or its wait.
  EXPECT_FALSE(
      InstructionCost(Op("copy-done", "f32[64]{0}", {"(f32[64]{0}, f32[64]{0}, u32[])"})).modelled);
  EXPECT_FALSE(InstructionCost(Op("add", "f32[4", {})).modelled);
  EXPECT_EQ(InstructionCost(Op("while", "f32[4]{0}", {})).why, "no model for opcode while");
}

// TransformerEngine's fused attention as XLA:GPU records it: the sizes in
// the custom-call's attribute dictionary (the capture's own spelling).
constexpr std::string_view kTeConfig =
    "{attn_heads = 16 : i64, bias_batch = 0 : i64, bias_heads = 0 : i64, bias_type = 0 : i64, "
    "deterministic = false, dropout_probability = 1.000000e-01 : f64, input_batch = 2 : i64, "
    "is_training = true, kv_max_seqlen = 2048 : i64, mask_type = 2 : i64, "
    "max_segments_per_seq = 1 : i64, num_gqa_groups = 16 : i64, q_max_seqlen = 2048 : i64, "
    "qk_head_dim = 128 : i64, qkv_layout = 5 : i64, scaling_factor = 0.0883883461 : f64}";

HloOp TeAttention(std::string_view target, std::string config) {
  static std::vector<std::string> kept;  // the views below outlive the call
  kept.push_back(std::move(config));
  HloOp op = Op("custom-call", "(bf16[2,2048,16,128]{3,2,1,0}, f32[2,16,2048,1]{3,2,1,0})",
                {"bf16[2,2048,3,16,128]{4,3,2,1,0}"});
  op.custom_call_target = target;
  op.custom_call_config = kept.back();
  return op;
}

std::string With(std::string_view config, const std::string& from, const std::string& to) {
  std::string s(config);
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(HloModels, FusedAttentionKnownAnswers) {
  // Causal, B=2, H=16, S=2048, d=128: 4·B·H·S²·d / 2 (the SDPA answer).
  const HloCost fwd =
      InstructionCost(TeAttention("te_fused_attn_forward_ffi", std::string(kTeConfig)));
  ASSERT_TRUE(fwd.modelled) << fwd.why;
  EXPECT_EQ(fwd.flops, 34359738368);
  EXPECT_EQ(fwd.bytes, int64_t{2} * (16 * 2048 * 256 + 16 * 2048 * 128 * 2) * 2);  // Q, O, K, V
  EXPECT_EQ(fwd.dtype, "bf16");
  EXPECT_EQ(fwd.unit, "matrix");
  // Backward: Q·Kᵀ again, dV, dP, dQ, dK (2.5× at dqk = dv); dO and the
  // gradients as many bytes again.
  const HloCost bwd =
      InstructionCost(TeAttention("te_fused_attn_backward_ffi", std::string(kTeConfig)));
  ASSERT_TRUE(bwd.modelled) << bwd.why;
  EXPECT_EQ(bwd.flops, 85899345920);
  EXPECT_EQ(bwd.bytes, 2 * fwd.bytes);
  // No mask: twice the causal count; causal with Sq != Skv: not halved.
  EXPECT_EQ(InstructionCost(TeAttention("te_fused_attn_forward_ffi",
                                        With(kTeConfig, "mask_type = 2", "mask_type = 0")))
                .flops,
            68719476736);
  EXPECT_EQ(
      InstructionCost(TeAttention("te_fused_attn_forward_ffi",
                                  With(kTeConfig, "kv_max_seqlen = 2048", "kv_max_seqlen = 4096")))
          .flops,
      137438953472);
  // Grouped-query attention: 4 key/value heads read a quarter of K and V.
  const HloCost gqa = InstructionCost(TeAttention(
      "te_fused_attn_forward_ffi", With(kTeConfig, "num_gqa_groups = 16", "num_gqa_groups = 4")));
  EXPECT_EQ(gqa.flops, 34359738368);
  EXPECT_EQ(gqa.bytes, int64_t{2} * (16 * 2048 * 256 + 4 * 2048 * 128 * 2) * 2);
}

TEST(HloModels, FusedAttentionItCannotSize) {
  auto why = [](std::string config) {
    return InstructionCost(TeAttention("te_fused_attn_forward_ffi", std::move(config))).why;
  };
  EXPECT_EQ(why(With(kTeConfig, "mask_type = 2", "mask_type = 3")),
            "te_fused_attn_forward_ffi: a padding mask (the real sequence lengths are not "
            "recorded)");
  EXPECT_EQ(why(With(kTeConfig, "qkv_layout = 5", "qkv_layout = 10")),
            "te_fused_attn_forward_ffi: a packed (THD) or paged layout (lengths vary per "
            "sequence)");
  EXPECT_EQ(why(With(kTeConfig, "input_batch = 2 : i64, ", "")),
            "te_fused_attn_forward_ffi: its backend_config lacks the attention's sizes");
  EXPECT_EQ(why(""), "te_fused_attn_forward_ffi: its backend_config lacks the attention's sizes");
  EXPECT_EQ(why(With(kTeConfig, "attn_heads = 16", "attn_heads = -16")),
            "te_fused_attn_forward_ffi: a size of 0 or less in its backend_config");
  EXPECT_EQ(why(std::string(kTeConfig).insert(1, "window_size_left = 128 : i64, ")),
            "te_fused_attn_forward_ffi: a sliding window");
  EXPECT_TRUE(InstructionCost(
                  TeAttention("te_fused_attn_forward_ffi",
                              std::string(kTeConfig).insert(1, "window_size_left = -1 : i64, ")))
                  .modelled);
}

TEST(HloModels, IntAttribute) {
  EXPECT_EQ(IntAttribute(kTeConfig, "attn_heads"), 16);
  EXPECT_EQ(IntAttribute(kTeConfig, "heads"), std::nullopt);  // only whole names
  EXPECT_EQ(IntAttribute(kTeConfig, "bias_heads"), 0);
  EXPECT_EQ(IntAttribute(kTeConfig, "dropout_probability"), std::nullopt);  // f64
  EXPECT_EQ(IntAttribute(kTeConfig, "deterministic"), std::nullopt);        // a bool
  EXPECT_EQ(IntAttribute("{w = -1 : i64}", "w"), -1);
  EXPECT_EQ(IntAttribute("{w = 7}", "w"), std::nullopt);  // no type
}

TEST(HloModels, Parsers) {
  const auto w = ParseWindow("size=3x2 stride=2x1 pad=1_2x0_0 lhs_dilate=1x2 rhs_dilate=3x1");
  ASSERT_TRUE(w.has_value());
  ASSERT_EQ(w->size(), 2u);
  EXPECT_EQ((*w)[0].size, 3);
  EXPECT_EQ((*w)[0].stride, 2);
  EXPECT_EQ((*w)[0].padding_low, 1);
  EXPECT_EQ((*w)[0].padding_high, 2);
  EXPECT_EQ((*w)[0].window_dilation, 3);
  EXPECT_EQ((*w)[1].base_dilation, 2);
  EXPECT_FALSE(ParseWindow("size=3x3 stride=2").has_value());
  EXPECT_TRUE(ParseWindow("")->empty());

  const auto d = ParseDimLabels("b01f_01io->b01f");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->input_feature, 3);
  EXPECT_EQ(d->kernel_input_feature, 2);
  EXPECT_EQ(d->kernel_output_feature, 3);
  EXPECT_EQ(d->kernel_spatial, std::vector<int64_t>({0, 1}));
  EXPECT_FALSE(ParseDimLabels("b0f_01io->b01f").has_value());
  EXPECT_FALSE(ParseDimLabels("bf01").has_value());

  const auto dd = ParseDotDims("lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}");
  ASSERT_TRUE(dd.has_value());
  EXPECT_EQ(dd->lhs_contracting, std::vector<int64_t>({1, 2}));
  EXPECT_FALSE(ParseDotDims("lhs_contracting_dims=1").has_value());

  EXPECT_EQ(PeakDtype("f8e4m3fn"), "fp8");
  EXPECT_EQ(PeakDtype("bf16"), "bf16");
  EXPECT_EQ(PeakDtype("s8"), "int8");
  EXPECT_EQ(ShapeBytes("(f32[2,3]{1,0}, bf16[4]{0})"), 32);
}

TEST(DeviceIdentity, VendorOnlyNamesGetTheProductTheirPropertiesIdentify) {
  // As the MI300X captures of ../shared/data describe their planes.
  const int64_t mem = int64_t{12287} << 24;  // 191.98 GiB
  EXPECT_EQ(IdentifiedDeviceName("AMD GPU", 9, 4, 304, mem),
            "AMD GPU [MI300X: gfx 9.4, 304 CUs, 191 GiB]");
  // gfx 9.5 with 256 CUs: MI350X or MI355X, not guessed.
  EXPECT_EQ(IdentifiedDeviceName("AMD GPU", 9, 5, 256, int64_t{288} << 30), "AMD GPU");
  // A real product name is kept as it is.
  EXPECT_EQ(IdentifiedDeviceName("NVIDIA H100 80GB HBM3", 9, 0, 132, int64_t{80} << 30),
            "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(IdentifiedDeviceName("AMD GPU", 9, 4, 228, mem), "AMD GPU");  // MI300A-like
}

}  // namespace
}  // namespace th::roofline
