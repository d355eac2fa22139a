// The roofline's pieces on their own: the FLOP/byte models (known answers,
// every figure by hand), the peak table parser (the shipped file, and errors
// that name the line), and the attribution helpers.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "op_models.h"
#include "peaks.h"
#include "roofline_attribution.h"

namespace th::roofline {
namespace {

OpInputs In(std::vector<std::vector<int64_t>> dims, std::vector<std::string> types) {
  OpInputs in;
  in.dims = std::move(dims);
  in.types = std::move(types);
  return in;
}

TEST(OpModels, MmBf16KnownAnswer) {
  const OpCost c =
      CostOf("aten::mm", In({{4096, 4096}, {4096, 4096}}, {"c10::BFloat16", "c10::BFloat16"}), {});
  ASSERT_TRUE(c.modelled) << c.why;
  EXPECT_EQ(c.flops, 137438953472);  // 2 * 4096^3
  EXPECT_EQ(c.bytes, 100663296);     // 3 * 4096^2 * 2
  EXPECT_EQ(c.dtype, "bf16");
  EXPECT_EQ(c.unit, "matrix");
}

TEST(OpModels, AddFp32KnownAnswer) {
  const int64_t n = int64_t{1} << 26;
  const OpCost c = CostOf("aten::add", In({{n}, {n}, {}}, {"float", "float", "Scalar"}), {});
  ASSERT_TRUE(c.modelled) << c.why;
  EXPECT_EQ(c.flops, n);
  EXPECT_EQ(c.bytes, 3 * n * 4);  // two inputs read, one output written
  EXPECT_EQ(c.dtype, "fp32");
  EXPECT_EQ(c.unit, "vector");
}

TEST(OpModels, CausalAttentionHalvesOnlyWithEqualLengths) {
  const std::vector<int64_t> q = {2, 16, 2048, 128};
  const auto in = In({q, q, q}, {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16"});
  EXPECT_EQ(CostOf("aten::scaled_dot_product_attention", in, {true}).flops, 34359738368);
  EXPECT_EQ(CostOf("aten::scaled_dot_product_attention", in, {false}).flops, 68719476736);
  EXPECT_EQ(CostOf("aten::scaled_dot_product_attention", in, {false}).bytes,
            4 * 2 * 16 * 2048 * 128 * 2);
  // Query shorter than key (decode with a cache): causal does not halve.
  const auto decode = In({{2, 16, 1, 128}, q, q}, {"c10::Half", "c10::Half", "c10::Half"});
  EXPECT_EQ(CostOf("aten::_scaled_dot_product_flash_attention", decode, {true}).flops,
            2 * 2 * 16 * 1 * 2048 * 256);
  // _flash_attention_forward takes [B, N, H, d].
  const std::vector<int64_t> bnhd = {2, 2048, 16, 128};
  EXPECT_EQ(
      CostOf("aten::_flash_attention_forward",
             In({bnhd, bnhd, bnhd}, {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16"}), {true})
          .flops,
      34359738368);
}

TEST(OpModels, LinearAddmmBmmMatmul) {
  const OpCost linear = CostOf(
      "aten::linear", In({{8, 128, 512}, {1024, 512}, {1024}}, {"float", "float", "float"}), {});
  EXPECT_EQ(linear.flops, 2 * 1024 * 512 * 1024);
  EXPECT_EQ(linear.bytes, (1024 * 512 + 512 * 1024 + 1024 * 1024 + 1024) * 4);
  const OpCost addmm = CostOf("aten::addmm",
                              In({{64}, {32, 16}, {16, 64}, {}, {}},
                                 {"c10::Half", "c10::Half", "c10::Half", "Scalar", "Scalar"}),
                              {});
  EXPECT_EQ(addmm.flops, 2 * 32 * 16 * 64);
  EXPECT_EQ(addmm.bytes, (32 * 16 + 16 * 64 + 32 * 64 + 64) * 2);
  EXPECT_EQ(CostOf("aten::bmm", In({{4, 8, 16}, {4, 16, 32}}, {"float", "float"}), {}).flops,
            2 * 4 * 8 * 16 * 32);
  // matmul broadcasts a 2-D weight over the batch: read once.
  const OpCost mm = CostOf("aten::matmul", In({{3, 8, 16}, {16, 4}}, {"float", "float"}), {});
  EXPECT_EQ(mm.flops, 2 * 3 * 8 * 16 * 4);
  EXPECT_EQ(mm.bytes, (3 * 8 * 16 + 16 * 4 + 3 * 8 * 4) * 4);
  EXPECT_FALSE(CostOf("aten::mm", In({{4, 5}, {6, 7}}, {"float", "float"}), {}).modelled);
}

TEST(OpModels, NormsReductionsEmbeddingElementwiseBroadcast) {
  const OpCost ln = CostOf("aten::layer_norm",
                           In({{4, 10}, {}, {10}, {10}, {}, {}},
                              {"float", "ScalarList", "float", "float", "Double", "Bool"}),
                           {});
  EXPECT_EQ(ln.flops, 7 * 40);
  EXPECT_EQ(ln.bytes, (40 + 40 + 10 + 10) * 4);
  EXPECT_EQ(CostOf("aten::softmax", In({{4, 10}, {}, {}}, {"c10::Half", "Int", ""}), {}).flops,
            200);
  EXPECT_EQ(CostOf("aten::sum", In({{4, 10}, {}}, {"float", "ScalarList"}), {}).bytes, 160);
  const OpCost emb =
      CostOf("aten::embedding", In({{1000, 64}, {2, 8}}, {"c10::BFloat16", "long int"}), {});
  EXPECT_EQ(emb.flops, 0);
  EXPECT_EQ(emb.bytes, 2 * 16 * 64 * 2 + 16 * 8);
  const OpCost mul = CostOf("aten::mul", In({{8, 1}, {1, 4}}, {"float", "float"}), {});
  EXPECT_EQ(mul.flops, 32);
  EXPECT_EQ(mul.bytes, (8 + 4 + 32) * 4);
  // mul.out(self, other, out): the out tensor is written once, not read
  // (seen on a real A100 trace, where counting it read gave efficiency 1.29).
  const OpCost out =
      CostOf("aten::mul", In({{4, 8}, {}, {4, 8}}, {"float", "Scalar", "float"}), {});
  EXPECT_EQ(out.flops, 32);
  EXPECT_EQ(out.bytes, 2 * 32 * 4);
}

TEST(OpModels, ConvolutionNeedsConcreteInputsAndUnknownOpsAreUnmodelled) {
  const OpCost conv =
      CostOf("aten::convolution", In({{1, 3, 8, 8}, {4, 3, 3, 3}}, {"float", "float"}), {});
  EXPECT_FALSE(conv.modelled);
  EXPECT_EQ(conv.why, "aten::convolution: no Concrete Inputs (stride, padding, dilation, groups)");
  EXPECT_FALSE(CostOf("aten::nonzero", In({{4}}, {"float"}), {}).modelled);
  // With the arguments: 2 * |out| * Cin * kh * kw (+ |out| bias).
  const OpCost c =
      ConvolutionCost({1, 3, 8, 8}, {4, 3, 3, 3}, true, {1, 1}, {1, 1}, {1, 1}, 1, {"fp32", 4});
  ASSERT_TRUE(c.modelled);
  EXPECT_EQ(c.flops, 4 * 64 * 2 * 27 + 4 * 64);
  EXPECT_EQ(c.bytes, (192 + 108 + 4 + 256) * 4);
}

OpInputs Conv(std::vector<std::vector<int64_t>> dims, std::vector<std::string> types,
              std::vector<std::string> concrete) {
  OpInputs in = In(std::move(dims), std::move(types));
  in.concrete = std::move(concrete);
  return in;
}

TEST(OpModels, Conv2dBf16KnownAnswer) {
  // input [8, 64, 56, 56], weight [128, 64, 3, 3], no bias, stride 1, pad 1:
  // out [8, 128, 56, 56]. F = 2 * 8*128*56*56 * 64*3*3 = 3,699,376,128.
  // B = (8*64*56*56 + 128*64*9 + 8*128*56*56) * 2 = (1605632 + 73728 +
  // 3211264) * 2 = 9,781,248.
  const OpCost c = CostOf("aten::conv2d",
                          Conv({{8, 64, 56, 56}, {128, 64, 3, 3}, {}, {}, {}, {}, {}},
                               {"c10::BFloat16", "c10::BFloat16", "", "ScalarList", "ScalarList",
                                "ScalarList", "Scalar"},
                               {"", "", "", "[1, 1]", "[1, 1]", "[1, 1]", "1"}),
                          {});
  ASSERT_TRUE(c.modelled) << c.why;
  EXPECT_EQ(c.flops, 3699376128);
  EXPECT_EQ(c.bytes, 9781248);
  EXPECT_EQ(c.dtype, "bf16");
  EXPECT_EQ(c.unit, "matrix");
  EXPECT_TRUE(HasModel("aten::conv2d"));
  EXPECT_TRUE(HasModel("aten::cudnn_convolution"));
}

TEST(OpModels, Conv1dStridedDilatedGroupedWithBias) {
  // input [2, 4, 10], weight [6, 2, 3], groups 2, stride 2, pad 1, dilation
  // 2: out = (10 + 2 - 2*2 - 1) / 2 + 1 = 4; |out| = 2*6*4 = 48.
  // F = 2 * 48 * 2*3 + 48 (bias) = 624; B = (80 + 36 + 6 + 48) * 4 = 680.
  const OpCost c =
      CostOf("aten::conv1d",
             Conv({{2, 4, 10}, {6, 2, 3}, {6}, {}, {}, {}, {}},
                  {"float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar"},
                  {"", "", "", "[2]", "[1]", "[2]", "2"}),
             {});
  ASSERT_TRUE(c.modelled) << c.why;
  EXPECT_EQ(c.flops, 624);
  EXPECT_EQ(c.bytes, 680);
  EXPECT_EQ(c.dtype, "fp32");
}

TEST(OpModels, Conv3dThroughConvolutionAndCudnnArgumentOrder) {
  // input [1, 2, 4, 4, 4], weight [3, 2, 2, 2, 2], stride 2, no padding: out
  // [1, 3, 2, 2, 2]; F = 2 * 24 * 2*8 = 768; B = (128 + 48 + 24) * 2 = 400.
  const OpCost c =
      CostOf("aten::convolution",
             Conv({{1, 2, 4, 4, 4}, {3, 2, 2, 2, 2}, {}, {}, {}, {}, {}, {}, {}},
                  {"c10::Half", "c10::Half", "", "ScalarList", "ScalarList", "ScalarList", "Scalar",
                   "ScalarList", "Scalar"},
                  {"", "", "", "[2, 2, 2]", "[0, 0, 0]", "[1, 1, 1]", "False", "[0, 0, 0]", "1"}),
             {});
  ASSERT_TRUE(c.modelled) << c.why;
  EXPECT_EQ(c.flops, 768);
  EXPECT_EQ(c.bytes, 400);
  EXPECT_EQ(c.dtype, "fp16");
  // cudnn_convolution(self, weight, padding, stride, dilation, groups, ...):
  // owlv2's patch embedding, 1008 / 14 = 72 per side; F = 2 * 1024*72*72 *
  // 3*14*14 = 6,242,697,216; B = (3*1008*1008 + 1024*3*14*14 + 1024*72*72)
  // * 2 = 17,917,440.
  const OpCost cudnn =
      CostOf("aten::cudnn_convolution",
             Conv({{1, 3, 1008, 1008}, {1024, 3, 14, 14}, {}, {}, {}, {}, {}, {}, {}},
                  {"c10::BFloat16", "c10::BFloat16", "ScalarList", "ScalarList", "ScalarList",
                   "Scalar", "Scalar", "Scalar", "Scalar"},
                  {"", "", "[0, 0]", "[14, 14]", "[1, 1]", "1", "False", "False", "True"}),
             {});
  ASSERT_TRUE(cudnn.modelled) << cudnn.why;
  EXPECT_EQ(cudnn.flops, 6242697216);
  EXPECT_EQ(cudnn.bytes, 17917440);
}

TEST(OpModels, TransposedConvolutionKnownAnswer) {
  // input [1, 4, 5, 5], weight [4, 2, 3, 3] (Cin, Cout/groups, k), stride 2,
  // pad 1, output_padding 1, bias [2]: out = (5 - 1)*2 - 2 + 2 + 1 + 1 = 10,
  // [1, 2, 10, 10]. F = 2 * 100 * 2*9 + 200 (bias) = 3,800; B = (100 + 72 +
  // 2 + 200) * 4 = 1,496.
  const OpCost c =
      CostOf("aten::_convolution",
             Conv({{1, 4, 5, 5}, {4, 2, 3, 3}, {2}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}},
                  {"float", "float", "float", "ScalarList", "ScalarList", "ScalarList", "Scalar",
                   "ScalarList", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar"},
                  {"", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "True", "[1, 1]", "1", "False",
                   "False", "True", "True"}),
             {});
  ASSERT_TRUE(c.modelled) << c.why;
  EXPECT_EQ(c.flops, 3800);
  EXPECT_EQ(c.bytes, 1496);
  // Grouped: weight [4, 1, 3, 3], groups 2 -> Cout 2; F = 2 * 100 * 1*9.
  const OpCost g = ConvTransposeCost({1, 4, 5, 5}, {4, 1, 3, 3}, false, {2, 2}, {1, 1}, {1, 1},
                                     {1, 1}, 2, {"fp32", 4});
  ASSERT_TRUE(g.modelled) << g.why;
  EXPECT_EQ(g.flops, 1800);
  EXPECT_EQ(g.bytes, (100 + 36 + 200) * 4);
  EXPECT_FALSE(ConvTransposeCost({1, 4, 5, 5}, {4, 1, 3, 3}, false, {int64_t{1} << 40, 1}, {0, 0},
                                 {0, 0}, {1, 1}, 1, {"fp32", 4})
                   .modelled);
}

// A ResNet layer's backward as the MI300X trace records it.
OpInputs ConvBackward(std::string mask, std::string transposed = "False") {
  return Conv({{10, 512, 7, 7}, {10, 512, 7, 7}, {512, 512, 3, 3}, {}, {}, {}, {}, {}, {}, {}, {}},
              {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "ScalarList", "ScalarList",
               "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar", "ScalarList"},
              {"", "", "", "[0]", "[1, 1]", "[1, 1]", "[1, 1]", transposed, "[0, 0]", "1",
               std::move(mask)});
}

TEST(OpModels, ConvolutionBackwardKnownAnswers) {
  // grad_output = out [10, 512, 7, 7] (250,880), per output 2 * 512 * 9 =
  // 9,216 multiply-adds: the forward's F = 2,312,110,080.
  const OpCost both = CostOf("aten::convolution_backward", ConvBackward("[True, True, False]"), {});
  ASSERT_TRUE(both.modelled) << both.why;
  EXPECT_EQ(both.flops, 4624220160);  // grad_input + grad_weight
  // grad_out 250,880 + (weight 2,359,296 + grad_input 250,880) + (input
  // 250,880 + grad_weight 2,359,296) elements of 2 bytes.
  EXPECT_EQ(both.bytes, 10942464);
  EXPECT_EQ(both.dtype, "bf16");
  EXPECT_EQ(both.unit, "matrix");
  const OpCost input_only =
      CostOf("aten::convolution_backward", ConvBackward("[True, False, False]"), {});
  ASSERT_TRUE(input_only.modelled) << input_only.why;
  EXPECT_EQ(input_only.flops, 2312110080);
  EXPECT_EQ(input_only.bytes, (250880 + 2359296 + 250880) * 2);
  const OpCost with_bias =
      CostOf("aten::convolution_backward", ConvBackward("[False, True, True]"), {});
  ASSERT_TRUE(with_bias.modelled) << with_bias.why;
  EXPECT_EQ(with_bias.flops, 2312110080 + 250880);
  EXPECT_EQ(with_bias.bytes, (250880 + 250880 + 2359296 + 512) * 2);
  EXPECT_EQ(CostOf("aten::convolution_backward", ConvBackward("[False, False, False]"), {}).why,
            "aten::convolution_backward: no gradient asked (output_mask all false)");
  EXPECT_EQ(CostOf("aten::convolution_backward", ConvBackward("[True, True]"), {}).why,
            "aten::convolution_backward: unreadable Concrete Inputs (stride, padding, dilation, "
            "transposed, groups, output_mask)");
  // A grad_output that is not the forward's output (stride 2 would give 4 x 4).
  OpInputs strided = ConvBackward("[True, True, False]");
  strided.concrete[4] = "[2, 2]";
  EXPECT_EQ(CostOf("aten::convolution_backward", strided, {}).why,
            "aten::convolution_backward: grad_output is not the convolution's output shape");
  // Transposed: weight [Cin 512, Cout/groups 512, 3, 3], input 7 x 7, stride
  // 1, pad 1 -> out 7 x 7; F_fwd = 2 * |input| * 512 * 9, the same count.
  const OpCost transposed =
      CostOf("aten::convolution_backward", ConvBackward("[True, True, False]", "True"), {});
  ASSERT_TRUE(transposed.modelled) << transposed.why;
  EXPECT_EQ(transposed.flops, 4624220160);
  EXPECT_TRUE(HasModel("aten::convolution_backward"));
}

TEST(OpModels, NormBackwardKnownAnswers) {
  // Batch norm as the MI300X ResNet capture records it: dy, x [10, 512, 7, 7]
  // bf16 (250,880 each), weight / running mean / running var [512] bf16,
  // saved mean / invstd [512] fp32, output_mask all true. Read 2 * 250,880 *
  // 2 + 3 * 512 * 2 + 2 * 512 * 4 = 1,010,688; written grad_input 501,760 +
  // grad_weight and grad_bias 2 * 512 * 2 = 2,048. F = 9 * 250,880.
  const OpInputs bn =
      Conv({{10, 512, 7, 7}, {10, 512, 7, 7}, {512}, {512}, {512}, {512}, {512}, {}, {}, {}},
           {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "c10::BFloat16",
            "float", "float", "Scalar", "Scalar", "ScalarList"},
           {"", "", "", "", "", "", "", "True", "1e-05", "[True, True, True]"});
  const OpCost c = CostOf("aten::native_batch_norm_backward", bn, {});
  ASSERT_TRUE(c.modelled) << c.why;
  EXPECT_EQ(c.flops, 2257920);
  EXPECT_EQ(c.bytes, 1514496);
  EXPECT_EQ(c.unit, "vector");
  EXPECT_EQ(c.dtype, "bf16");
  OpInputs input_only = bn;
  input_only.concrete[9] = "[True, False, False]";
  EXPECT_EQ(CostOf("aten::native_batch_norm_backward", input_only, {}).bytes, 1010688 + 501760);
  OpInputs no_input = bn;
  no_input.concrete[9] = "[False, True, True]";
  const OpCost w = CostOf("aten::native_batch_norm_backward", no_input, {});
  EXPECT_EQ(w.flops, 5 * 250880);
  EXPECT_EQ(w.bytes, 1010688 + 2048);
  // Layer norm without Concrete Inputs (as the HTA test traces record it):
  // every gradient asked. dy, x [1024, 512] fp32, mean / rstd [1024, 1],
  // weight, bias [512]: read 4,194,304 + 8,192 + 4,096, written 2,097,152 +
  // 4,096.
  const OpCost ln =
      CostOf("aten::native_layer_norm_backward",
             In({{1024, 512}, {1024, 512}, {}, {1024, 1}, {1024, 1}, {512}, {512}, {}},
                {"float", "float", "", "float", "float", "float", "float", ""}),
             {});
  ASSERT_TRUE(ln.modelled) << ln.why;
  EXPECT_EQ(ln.flops, 9 * 524288);
  EXPECT_EQ(ln.bytes, 6307840);
  EXPECT_EQ(CostOf("aten::native_layer_norm_backward",
                   In({{1024, 512}, {512, 512}}, {"float", "float"}), {})
                .why,
            "aten::native_layer_norm_backward: grad_output and input of one shape expected");
  EXPECT_TRUE(HasModel("aten::native_batch_norm_backward"));
}

TEST(OpModels, ConvolutionWithoutUsableArgumentsIsUnmodelledWithTheReason) {
  const std::vector<std::vector<int64_t>> dims = {{1, 3, 8, 8}, {4, 3, 3, 3}, {}, {}, {},
                                                  {},           {},           {}, {}};
  const std::vector<std::string> types = {"float",      "float",      "",
                                          "ScalarList", "ScalarList", "ScalarList",
                                          "Scalar",     "ScalarList", "Scalar"};
  auto why = [&](std::vector<std::string> concrete) {
    const OpCost c = CostOf("aten::convolution", Conv(dims, types, std::move(concrete)), {});
    EXPECT_FALSE(c.modelled);
    EXPECT_EQ(c.flops, 0);
    return c.why;
  };
  EXPECT_EQ(why({}), "aten::convolution: no Concrete Inputs (stride, padding, dilation, groups)");
  EXPECT_EQ(why({"", "", "", "[2, 2]", "[0, 0]", "[1, 1]", "True", "[1, x]", "1"}),
            "aten::convolution: unreadable Concrete Inputs (output_padding)");
  EXPECT_EQ(why({"", "", "", "[2, 2]", "[0, 0]", "[1, 1]", "True", "[1, 1]", "1"}),
            "aten::convolution: input [N, C, ...], weight [C, O/groups, ...] expected "
            "(transposed)");
  EXPECT_EQ(why({"", "", "", "[1, 1]", "same", "[1, 1]", "False", "[0, 0]", "1"}),
            "aten::convolution: padding \"same\" not modelled");
  EXPECT_EQ(why({"", "", "", "[1, x]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "1"}),
            "aten::convolution: unreadable Concrete Inputs (stride, padding, dilation, groups)");
  EXPECT_EQ(why({"", "", "", "[1, 1, 1]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "1"}),
            "aten::convolution: unreadable Concrete Inputs (stride, padding, dilation, groups)");
  EXPECT_EQ(why({"", "", "", "[1, 1]", "[0, 0]", "[1, 1]", "False", "[0, 0]", "2"}),
            "aten::convolution: input [N, C, ...], weight [O, C/groups, ...] expected");
  EXPECT_EQ(why({"", "", "", "[1, 1]", "[9, 9]", "[1, 1]", "False"}),
            "aten::convolution: unreadable Concrete Inputs (stride, padding, dilation, groups)");
  // "valid" padding is zeros: out 6x6, F = 2 * 4*36 * 27.
  const OpCost valid = CostOf(
      "aten::convolution",
      Conv(dims, types, {"", "", "", "[1, 1]", "valid", "[1, 1]", "False", "[0, 0]", "1"}), {});
  ASSERT_TRUE(valid.modelled) << valid.why;
  EXPECT_EQ(valid.flops, 2 * 4 * 36 * 27);
}

TEST(OpModels, HostileSizesAreUnmodelledNotOverflowed) {
  const int64_t big = int64_t{1} << 62;
  const OpCost huge = CostOf("aten::mm", In({{big, big}, {big, 4}}, {"float", "float"}), {});
  EXPECT_FALSE(huge.modelled);
  EXPECT_EQ(huge.why, "sizes out of range");
  EXPECT_FALSE(CostOf("aten::mm", In({{-1, 4}, {4, 4}}, {"float", "float"}), {}).modelled);
  EXPECT_FALSE(CostOf("aten::add", In({{big}, {big}}, {"double", "double"}), {}).modelled);
  EXPECT_FALSE(CostOf("aten::linear", In({{4, 0}, {4, 0}}, {"float", "float"}), {}).modelled);
  EXPECT_FALSE(
      ConvolutionCost({1, 3, 8, 8}, {4, 3, 3, 3}, false, {0, 1}, {1, 1}, {1, 1}, 1, {"fp32", 4})
          .modelled);
}

std::string ReadFile(const char* path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(PeakTable, ShippedTableParsesAndMatchesDeviceNames) {
  std::string error;
  auto t = PeakTable::Parse(ReadFile(PEAKS_YAML), "peaks.yaml", &error);
  ASSERT_TRUE(t) << error;
  for (const char* id :
       {"a100-sxm4-40gb", "a100-sxm4-80gb", "h100-sxm", "h200-sxm", "b200-hgx", "mi250x-gcd",
        "mi300x", "mi355x", "tpu-v5e", "tpu-v6e", "v100-sxm2", "mi210"}) {
    ASSERT_NE(t->ById(id), nullptr) << id;
    EXPECT_GT(t->For(id, "matrix", "bf16").bytes_per_s + t->For(id, "matrix", "fp16").flops, 0)
        << id;
  }
  EXPECT_EQ(t->Match("NVIDIA H100 80GB HBM3")->id, "h100-sxm");
  EXPECT_EQ(t->Match("NVIDIA A100-SXM4-80GB")->id, "a100-sxm4-80gb");
  EXPECT_EQ(t->Match("AMD Instinct MI300X")->id, "mi300x");
  EXPECT_EQ(t->Match("TPU v6 Lite")->id, "tpu-v6e");
  EXPECT_EQ(t->Match("Tesla V100-SXM2-16GB")->id, "v100-sxm2");
  EXPECT_EQ(t->Match("NVIDIA GeForce RTX 4090"), nullptr);
  // Per dtype, not one normalised peak: an FP32 GEMM on MI300X is held to
  // the FP32 matrix peak, a BF16 one to the BF16 peak.
  EXPECT_EQ(t->For("mi300x", "matrix", "fp32").flops, 163.4e12);
  EXPECT_EQ(t->For("mi300x", "matrix", "bf16").flops, 1307.4e12);
  // A100 has no FP32 matrix peak (TF32 is a separate mode): the vector one.
  const Roof a100 = t->For("a100-sxm4-80gb", "matrix", "fp32");
  EXPECT_EQ(a100.flops, 19.5e12);
  EXPECT_EQ(a100.peak_row, "vector fp32");
  EXPECT_EQ(a100.bytes_per_s, 2039e9);
}

TEST(PeakTable, ErrorsNameTheLine) {
  std::string error;
  const std::string head =
      "version: 1\ndevices:\n  - {id: x, name: \"X\", match: [\"X\"]}\npeaks:\n";
  EXPECT_FALSE(PeakTable::Parse(head + "  - {device: x, unit: matrix, dtype: bf17, flops: 1e12, "
                                       "kind: datasheet, source: \"s\"}\n",
                                "p.yaml", &error));
  EXPECT_EQ(error, "p.yaml:5: dtype 'bf17' is not one of fp64 fp32 tf32 bf16 fp16 fp8 int8");
  EXPECT_FALSE(PeakTable::Parse(head + "  - {device: y, unit: matrix, dtype: bf16, flops: 1e12, "
                                       "kind: datasheet, source: \"s\"}\n",
                                "p.yaml", &error));
  EXPECT_EQ(error, "p.yaml:5: device 'y' is not under devices:");
  EXPECT_FALSE(PeakTable::Parse(head + "  - {device: x, unit: matrix, dtype: bf16, flops: fast, "
                                       "kind: datasheet, source: \"s\"}\n",
                                "p.yaml", &error));
  EXPECT_EQ(error, "p.yaml:5: flops is not a positive number");
  EXPECT_FALSE(PeakTable::Parse(head + "  - {device: x, unit: matrix}\n", "p.yaml", &error));
  EXPECT_EQ(error, "p.yaml:5: missing key 'dtype'");
  EXPECT_FALSE(
      PeakTable::Parse("devices:\n  - {id: x, name: \"X\", match: [\"X\"]\n", "p.yaml", &error));
  EXPECT_EQ(error, "p.yaml:2: expected ',' or '}'");
  EXPECT_FALSE(PeakTable::Parse("devices: []\n", "p.yaml", &error));
  EXPECT_EQ(error,
            "p.yaml:1: expected version:, devices:, peaks: or bandwidth:, got 'devices: []'");
}

TEST(Attribution, OutermostMarkedAndUnion) {
  // 0 (marked) > 1 (marked) > 2; 3 (root) > 4.
  const std::vector<uint32_t> parent = {kNone, 0, 1, kNone, 3};
  OutermostMarked above(parent, {true, true, false, false, false});
  EXPECT_EQ(above(2), 0u);
  EXPECT_EQ(above(1), 0u);
  EXPECT_EQ(above(4), kNone);
  std::vector<std::pair<int64_t, int64_t>> iv = {{10, 20}, {15, 30}, {40, 50}, {45, 45}};
  EXPECT_EQ(UnionLength(iv), 30);
}

// Against a walk to the root per query, on a forest larger than the answer
// cache (its slots collide and are overwritten), queried in a random order.
TEST(Attribution, OutermostMarkedMatchesAWalkToTheRoot) {
  const uint32_t n = 3 * OutermostMarked::kSlots + 17;
  std::mt19937 rng(7);
  std::vector<uint32_t> parent(n);
  std::vector<bool> marked(n);
  for (uint32_t e = 0; e < n; ++e) {
    // Parents precede children; a few roots; chains up to hundreds deep.
    parent[e] = e == 0 || rng() % 50 == 0 ? kNone : e - 1 - rng() % std::min<uint32_t>(e, 40);
    marked[e] = rng() % 9 == 0;
  }
  auto brute = [&](uint32_t e) {
    uint32_t found = kNone;
    for (; e != kNone; e = parent[e])
      if (marked[e]) found = e;
    return found;
  };
  OutermostMarked above(parent, marked);
  std::vector<uint32_t> order(n);
  for (uint32_t e = 0; e < n; ++e) order[e] = e;
  std::shuffle(order.begin(), order.end(), rng);
  size_t marked_answers = 0;
  for (uint32_t e : order) {
    const uint32_t want = brute(e);
    ASSERT_EQ(above(e), want) << "event " << e;
    marked_answers += want != kNone;
  }
  EXPECT_GT(marked_answers, n / 2);  // the forest tests marked and unmarked chains
  EXPECT_EQ(above(n), kNone);        // out of range
}

}  // namespace
}  // namespace th::roofline
