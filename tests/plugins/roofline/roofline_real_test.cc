// The roofline plugin through tracehound's importer and plugin host on a
// real Kineto trace with record_shapes (../shared/data; skipped when absent):
// the Qwen 0.5B H100 capture. F of a GEMM row by hand from its shapes, the
// step's figures reconcile, and no op exceeds the H100's roofline. The OWLv2
// capture: its patch-embedding conv2d modelled from Concrete Inputs; the
// MI300X ResNet capture: its convolution_backward.
#include <gtest/gtest.h>

#include <string>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "tests/support/derived_values.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

using th::testing::Col;

// The roofline plugin on one trace, its results in *r.
void RunRoofline(const std::string& path, PluginResults* r) {
  auto plugin = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/th_roofline.so");
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  auto set = LoadTraceSet({path}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  Status s = RunPlugin(**plugin, *set, {}, r);
  ASSERT_TRUE(s.ok()) << s.message();
}

TEST(RooflineRealTrace, QwenOnH100) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent";
  PluginResults r;
  RunRoofline(data + "/tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", &r);
  if (HasFatalFailure()) return;

  const DerivedTable& ops = r.tables.at("roofline_ops");
  ASSERT_GT(ops.rows, 0u);
  bool found = false;
  for (size_t i = 0; i < ops.rows; ++i) {
    EXPECT_EQ(Col<std::string>(ops, "device")[i], "NVIDIA H100 80GB HBM3");
    EXPECT_LE(Col<double>(ops, "efficiency")[i], 1.05) << Col<std::string>(ops, "name")[i];
    if (Col<std::string>(ops, "name")[i] == "aten::linear" &&
        Col<std::string>(ops, "input_dims")[i] == "[[16,559,1024],[2816,1024],[]]") {
      found = true;
      // 48 calls of x [16·559, 1024] · Wᵀ [1024, 2816] in bf16.
      EXPECT_EQ(Col<int64_t>(ops, "count")[i], 48);
      EXPECT_EQ(Col<int64_t>(ops, "flops")[i], int64_t{48} * 2 * 16 * 559 * 1024 * 2816);
      EXPECT_EQ(Col<int64_t>(ops, "bytes")[i],
                int64_t{48} * 2 * (16 * 559 * 1024 + 2816 * 1024 + 16 * 559 * 2816));
      EXPECT_EQ(Col<std::string>(ops, "bound")[i], "compute");
      EXPECT_EQ(Col<std::string>(ops, "peak")[i], "matrix bf16");
    }
  }
  EXPECT_TRUE(found);
  EXPECT_TRUE(r.findings.empty());

  const DerivedTable& steps = r.tables.at("roofline_steps");
  ASSERT_EQ(steps.rows, 1u);
  const int64_t busy = Col<int64_t>(steps, "busy")[0],
                modelled = Col<int64_t>(steps, "modelled")[0];
  EXPECT_GT(modelled, 0);
  EXPECT_LE(modelled, busy);
  EXPECT_EQ(Col<int64_t>(steps, "unmodelled")[0], busy - modelled);
  EXPECT_LT(Col<double>(steps, "mfu")[0], 1.0);
  // The unmodelled time is listed by op, with a reason.
  const DerivedTable& loose = r.tables.at("roofline_unmodelled");
  ASSERT_GT(loose.rows, 0u);
  for (size_t i = 0; i < loose.rows; ++i)
    EXPECT_FALSE(Col<std::string>(loose, "reason")[i].empty());
}

// OWLv2-large on an H100: 5 calls of the patch embedding, aten::conv2d with
// Input Dims [[1, 3, 1008, 1008], [1024, 3, 14, 14], [], ...] (no bias) and
// Concrete Inputs stride [14, 14], padding [0, 0], dilation [1, 1], groups
// 1, each nesting convolution > _convolution > cudnn_convolution. Output
// side (1008 - 14) / 14 + 1 = 72: F = 2 * 1024*72*72 * 3*14*14 =
// 6,242,697,216 per call; B = (3*1008*1008 + 1024*3*14*14 + 1024*72*72) * 2
// = 17,917,440.
TEST(RooflineRealTrace, Owlv2PatchEmbeddingConvolution) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent";
  PluginResults r;
  RunRoofline(data +
                  "/tracelens/tests/traces/h100/"
                  "google_owlv2-large-patch14-ensemble__1016001.json.gz",
              &r);
  if (HasFatalFailure()) return;

  const DerivedTable& ops = r.tables.at("roofline_ops");
  int conv_rows = 0;
  for (size_t i = 0; i < ops.rows; ++i) {
    const std::string name = Col<std::string>(ops, "name")[i];
    if (name.find("conv") == std::string::npos) continue;
    ++conv_rows;
    // The nested ops are inside conv2d: never a row of their own.
    EXPECT_EQ(name, "aten::conv2d");
    EXPECT_EQ(Col<std::string>(ops, "input_dims")[i],
              "[[1,3,1008,1008],[1024,3,14,14],[],[],[],[],[]]");
    EXPECT_EQ(Col<int64_t>(ops, "count")[i], 5);
    EXPECT_EQ(Col<int64_t>(ops, "flops")[i], int64_t{5} * 6242697216);
    EXPECT_EQ(Col<int64_t>(ops, "bytes")[i], int64_t{5} * 17917440);
    EXPECT_EQ(Col<std::string>(ops, "peak")[i], "matrix bf16");
    EXPECT_GT(Col<int64_t>(ops, "time")[i], 0);
    EXPECT_LE(Col<double>(ops, "efficiency")[i], 1.05);
  }
  EXPECT_EQ(conv_rows, 1);
  const DerivedTable& loose = r.tables.at("roofline_unmodelled");
  for (size_t i = 0; i < loose.rows; ++i)
    EXPECT_EQ(Col<std::string>(loose, "name")[i].find("conv"), std::string::npos)
        << Col<std::string>(loose, "name")[i] << ": " << Col<std::string>(loose, "reason")[i];
}

// ResNet training with activation checkpointing on an MI300X: the backward
// of its 3 x 3, 512-channel layers, aten::convolution_backward with
// grad_output, input [10, 512, 7, 7], weight [512, 512, 3, 3], stride,
// padding, dilation 1, groups 1 and output_mask [True, True, False]: F =
// grad_input + grad_weight = 2 * (2 * 10*512*7*7 * 512*9) = 4,624,220,160
// per call; B = (250,880 grad_output + 2,359,296 weight + 250,880
// grad_input + 250,880 input + 2,359,296 grad_weight) * 2 = 10,942,464.
TEST(RooflineRealTrace, ResnetConvolutionBackwardOnMi300x) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent";
  PluginResults r;
  RunRoofline(data + "/tracelens/tests/traces/mi300/resnet_act_checkpoint.json.gz", &r);
  if (HasFatalFailure()) return;

  const DerivedTable& ops = r.tables.at("roofline_ops");
  int backward_rows = 0;
  bool found = false;
  for (size_t i = 0; i < ops.rows; ++i) {
    const std::string name = Col<std::string>(ops, "name")[i];
    if (name != "aten::convolution_backward") continue;
    ++backward_rows;
    EXPECT_LE(Col<double>(ops, "efficiency")[i], 1.05) << Col<std::string>(ops, "input_dims")[i];
    EXPECT_EQ(Col<std::string>(ops, "peak")[i], "matrix bf16");
    if (Col<std::string>(ops, "input_dims")[i] ==
        "[[10,512,7,7],[10,512,7,7],[512,512,3,3],[],[],[],[],[],[],[],[]]") {
      found = true;
      const int64_t count = Col<int64_t>(ops, "count")[i];
      EXPECT_GT(count, 0);
      EXPECT_EQ(Col<int64_t>(ops, "flops")[i], count * 4624220160);
      EXPECT_EQ(Col<int64_t>(ops, "bytes")[i], count * 10942464);
      EXPECT_GT(Col<int64_t>(ops, "time")[i], 0);
    }
  }
  EXPECT_TRUE(found);
  EXPECT_GE(backward_rows, 4);
  const DerivedTable& loose = r.tables.at("roofline_unmodelled");
  for (size_t i = 0; i < loose.rows; ++i)
    EXPECT_NE(Col<std::string>(loose, "name")[i], "aten::convolution_backward")
        << Col<std::string>(loose, "reason")[i];
}

}  // namespace
}  // namespace th
