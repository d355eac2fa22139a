// The roofline's HLO path through tracehound's importer and plugin host on
// the XSpace captures of ../shared/data (skipped when absent): per HLO
// instruction, F and transcendentals equal XLA's cost analysis, and B equals
// it wherever XLA's bytes rule is the plain one (operands + outputs, each
// once) and B is the HLO model's (not the TPU runtime's own figure). The reference
// (tests/data/roofline_hlo/xla_cost_reference.json) was computed once by
// make_xla_cost_reference.py, XLA's rules written apart from tracehound.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "tests/support/derived_values.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

using th::testing::Col;

struct Reference {
  int64_t flops = 0, transcendentals = 0, bytes = 0;
  bool plain_bytes = false;  // XLA's bytes rule is operands + outputs here
};

// capture -> "module(id)/instruction" -> XLA's figures.
std::map<std::string, std::map<std::string, Reference>> LoadReference() {
  std::ifstream in(REFERENCE_JSON);
  std::stringstream ss;
  ss << in.rdbuf();
  simdjson::dom::parser parser;
  const simdjson::padded_string text(ss.str());
  simdjson::dom::element doc = parser.parse(text);
  std::map<std::string, std::map<std::string, Reference>> out;
  for (auto [capture, ops] : simdjson::dom::object(doc["captures"])) {
    for (auto [name, op] : simdjson::dom::object(ops)) {
      Reference r;
      r.flops = int64_t(op["flops"]);
      r.transcendentals = int64_t(op["transcendentals"]);
      r.bytes = int64_t(op["bytes"]);
      r.plain_bytes = simdjson::dom::array(op["notes"]).size() == 0;
      out[std::string(capture)][std::string(name)] = r;
    }
  }
  return out;
}

TEST(RooflineHloRealTrace, MatchesXlaCostAnalysis) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent";
  auto plugin = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/th_roofline.so");
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  const auto reference = LoadReference();
  ASSERT_FALSE(reference.empty());
  int64_t flops_compared = 0, bytes_compared = 0, te_modelled = 0;
  for (const auto& [capture, ops] : reference) {
    SCOPED_TRACE(capture);
    auto set = LoadTraceSet({data + "/" + capture}, LoadOptions{});
    ASSERT_TRUE(set.ok()) << set.status().message();
    PluginResults r;
    Status s = RunPlugin(**plugin, *set, {}, &r);
    ASSERT_TRUE(s.ok()) << s.message();
    const DerivedTable& t = r.tables.at("roofline_ops");
    int64_t rows_here = 0;
    for (size_t i = 0; i < t.rows; ++i) {
      const std::string name = Col<std::string>(t, "name")[i];
      const auto it = ops.find(name);
      if (it == ops.end()) continue;
      SCOPED_TRACE(name);
      ++rows_here;
      const Reference& ref = it->second;
      const int64_t count = Col<int64_t>(t, "count")[i];
      ASSERT_GT(count, 0);
      if (ref.flops < 0) {
        // XLA has no cost for TransformerEngine's fused attention; the plugin
        // models it from the custom-call's sizes (causal, B=2, H=16, S=2048,
        // d=128): per call 4·B·H·S²·d / 2 forward, 2.5 times that backward.
        ASSERT_NE(name.find("te_fused_attn_"), std::string::npos) << "XLA has no cost for it";
        const bool backward = name.find("te_fused_attn_backward") != std::string::npos;
        EXPECT_EQ(Col<int64_t>(t, "flops")[i],
                  (backward ? int64_t{85899345920} : int64_t{34359738368}) * count);
        EXPECT_EQ(Col<int64_t>(t, "bytes")[i], (backward ? 2 : 1) * int64_t{67108864} * count);
        ++te_modelled;
        continue;
      }
      EXPECT_EQ(Col<int64_t>(t, "flops")[i], ref.flops * count);
      EXPECT_EQ(Col<int64_t>(t, "transcendentals")[i], ref.transcendentals * count);
      ++flops_compared;
      // B of the TPU runtime's figures (cost_source runtime) is its own cost
      // model's, checked in roofline_runtime_costs_test.
      if (ref.plain_bytes && Col<std::string>(t, "cost_source")[i] == "hlo") {
        EXPECT_EQ(Col<int64_t>(t, "bytes")[i], ref.bytes * count);
        ++bytes_compared;
      }
    }
    EXPECT_GT(rows_here, 0) << "no HLO instruction of the capture was costed";
    // What XLA cannot cost (custom-calls of unknown targets) and the plugin
    // does not model is listed as unmodelled with a reason, never costed as
    // 0 FLOPs.
    const DerivedTable& loose = r.tables.at("roofline_unmodelled");
    for (size_t i = 0; i < loose.rows; ++i) {
      const auto it = ops.find(Col<std::string>(loose, "name")[i]);
      if (it == ops.end() || it->second.flops >= 0) continue;
      EXPECT_FALSE(Col<std::string>(loose, "reason")[i].empty());
    }
  }
  EXPECT_GT(flops_compared, 50);
  EXPECT_GT(bytes_compared, 35);  // (the TPU rows: roofline_runtime_costs_test)
  EXPECT_EQ(te_modelled, 4);      // the Transformer Engine attention calls: 2 forward, 2 backward
}

// jax08_gemm on an MI300X: the cuBLAS/hipBLASLt GEMMs by hand, the device
// identified from its plane's properties, every figure read/inferred/measured.
TEST(RooflineHloRealTrace, GemmsOnMi300x) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent";
  auto plugin = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/th_roofline.so");
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  auto set = LoadTraceSet({data + "/tracelens/tests/traces/mi300/jax08_gemm/tw003.xplane.pb"},
                          LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  PluginResults r;
  ASSERT_TRUE(RunPlugin(**plugin, *set, {}, &r).ok());
  const DerivedTable& t = r.tables.at("roofline_ops");
  bool found = false;
  for (size_t i = 0; i < t.rows; ++i) {
    if (Col<std::string>(t, "name")[i] != "jit_dot(34)/custom-call.1") continue;
    found = true;
    // A __cublas$gemm (hipBLASLt on ROCm) of bf16[4096,4096] · bf16[4096,4096]:
    // 2·4096³ per execution; A, B and C once (not the workspace).
    const int64_t count = Col<int64_t>(t, "count")[i];
    EXPECT_EQ(count, 3);
    EXPECT_EQ(Col<int64_t>(t, "flops")[i], count * 137438953472);
    EXPECT_EQ(Col<int64_t>(t, "bytes")[i], count * 100663296);
    EXPECT_EQ(Col<std::string>(t, "input_dims")[i], "bf16[4096,4096]{1,0}, bf16[4096,4096]{1,0}");
    EXPECT_EQ(Col<std::string>(t, "device")[i], "AMD GPU [MI300X: gfx 9.4, 304 CUs, 191 GiB]");
    EXPECT_EQ(Col<std::string>(t, "dtype")[i], "bf16");
    EXPECT_EQ(Col<std::string>(t, "peak")[i], "matrix bf16");
    EXPECT_EQ(Col<std::string>(t, "bound")[i], "compute");
    EXPECT_GT(Col<int64_t>(t, "time")[i], 0);
    EXPECT_GT(Col<double>(t, "efficiency")[i], 0.0);
    EXPECT_LE(Col<double>(t, "efficiency")[i], 1.05);
  }
  EXPECT_TRUE(found);
  const DerivedTable& steps = r.tables.at("roofline_steps");
  ASSERT_EQ(steps.rows, 1u);
  EXPECT_GT(Col<double>(steps, "coverage")[0], 0.9);  // was 0 before the HLO path
  EXPECT_EQ(Col<int64_t>(steps, "unmodelled")[0],
            Col<int64_t>(steps, "busy")[0] - Col<int64_t>(steps, "modelled")[0]);
}

}  // namespace
}  // namespace th
