// layout-mismatch-copies on HLO modules written by the test (every gate,
// positive and negative), and on the real JAX capture against the oracle's
// copy classification of its side files.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <map>
#include <set>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "tests/support/derived_values.h"
#include "tests/support/hlo_fixture.h"
#include "tests/support/test_files.h"
#include "tests/support/xspace_fixture.h"

namespace th {
namespace {

using testing::AddComputation;
using testing::AddInstruction;
using tracehound::hlo::HloInstructionProto;
using tracehound::hlo::HloModuleProto;

const LoadedPlugin& Plugin() {
  static const std::shared_ptr<const LoadedPlugin> plugin = [] {
    auto p = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/th_layout_mismatch_copies.so");
    EXPECT_TRUE(p.ok()) << p.status().message();
    return *p;
  }();
  return *plugin;
}

void SetShape(HloInstructionProto* ins, int64_t type, std::vector<int64_t> dims,
              std::vector<int64_t> minor_to_major) {
  auto* s = ins->mutable_shape();
  s->Clear();
  s->set_element_type(type);
  for (int64_t d : dims) s->add_dimensions(d);
  for (int64_t m : minor_to_major) s->mutable_layout()->add_minor_to_major(m);
}

constexpr int64_t kF32 = 11, kBf16 = 16;

// entry: p0 -> dot.1 -> copy.2 (layout {1,0} -> {0,1}) -> dot.3;
//        p0 -> dot.4 -> copy.5 (same layout) -> dot.6;
//        iota.7 -> copy.8 (no producer) -> dot.9;
//        dot.1 -> copy.10 (changes layout) -> tuple.11 (no compute after it);
//        p0 -> fusion.12 (body: dot) ; bf16 copy.13 of fusion.12 -> fusion.14 (body: reduce)
//        while.15 over body {param, copy.b (changes layout), dot.b}
HloModuleProto Module() {
  HloModuleProto m;
  m.set_name("jit_layouts");
  m.set_id(21);
  auto* fused_dot = AddComputation(&m, 100, "fused_dot", true);
  AddInstruction(fused_dot, 101, "fp", "parameter")->set_parameter_number(0);
  AddInstruction(fused_dot, 102, "fdot", "dot", {101, 101});
  auto* fused_reduce = AddComputation(&m, 110, "fused_reduce", true);
  AddInstruction(fused_reduce, 111, "rp", "parameter")->set_parameter_number(0);
  AddInstruction(fused_reduce, 112, "rr", "reduce", {111});
  auto* body = AddComputation(&m, 120, "body");
  AddInstruction(body, 121, "b.p", "parameter")->set_parameter_number(0);
  SetShape(AddInstruction(body, 122, "copy.b", "copy", {121}), kF32, {8, 16}, {0, 1});
  AddInstruction(body, 123, "dot.b", "dot", {122, 122});
  auto* e = AddComputation(&m, 1, "main");
  m.set_entry_computation_id(1);
  auto matrix = [&](int64_t id, const char* name, const char* op, std::vector<int64_t> ops,
                    std::vector<int64_t> layout = {1, 0}) {
    auto* ins = AddInstruction(e, id, name, op, ops, "jit(f)/" + std::string(op), "model.py",
                               static_cast<int>(id));
    SetShape(ins, kF32, {8, 16}, layout);
    return ins;
  };
  matrix(1, "p0", "parameter", {})->set_parameter_number(0);
  matrix(2, "dot.1", "dot", {1, 1});
  matrix(3, "copy.2", "copy", {2}, {0, 1});
  matrix(4, "dot.3", "dot", {3, 1});
  matrix(5, "dot.4", "dot", {1, 1});
  matrix(6, "copy.5", "copy", {5});
  matrix(7, "dot.6", "dot", {6, 1});
  matrix(8, "iota.7", "iota", {});
  matrix(9, "copy.8", "copy", {8}, {0, 1});
  matrix(10, "dot.9", "dot", {9, 1});
  matrix(11, "copy.10", "copy", {2}, {0, 1});
  matrix(12, "tuple.11", "tuple", {11});
  matrix(13, "fusion.12", "fusion", {1})->add_called_computation_ids(100);
  SetShape(matrix(14, "copy.13", "copy", {13}, {0, 1}), kBf16, {8, 100}, {0, 1});
  matrix(15, "fusion.14", "fusion", {14})->add_called_computation_ids(110);
  auto* w = matrix(16, "while.15", "while", {1});
  w->add_called_computation_ids(120);
  w->add_called_computation_ids(120);
  return m;
}

struct Outcome {
  PluginResults results;
  std::map<std::string, double> metrics;
  std::vector<std::string> copies;  // table order
};

Outcome RunOn(const std::vector<testing::StatSpec>& copy2_kernel_stats,
              std::map<std::string, OptionValue> options = {}) {
  testing::XSpaceBuilder b;
  b.EmbedHlo(Module());
  auto* gpu = b.AddPlane(0, "/device:GPU:0");
  auto* line = b.AddLine(gpu, 1, "Stream #1(Kernel)", 0);
  b.AddEvent(gpu, line, "copy_2", 0, 5000000, copy2_kernel_stats);  // 5 µs
  static int n = 0;
  std::string dir = testing::TempDir() + "/layouts" + std::to_string(++n);
  std::filesystem::create_directories(dir);
  EXPECT_TRUE(b.WriteTo(dir + "/h.xplane.pb"));
  auto set = LoadTraceSet({dir + "/h.xplane.pb"}, LoadOptions{});
  EXPECT_TRUE(set.ok()) << set.status().message();
  Outcome r;
  EXPECT_TRUE(RunPlugin(Plugin(), *set, options, &r.results).ok());
  for (const Metric& m : r.results.metrics) r.metrics[m.name] = m.value;
  const DerivedTable& t = r.results.tables.at("layout_mismatch_copies");
  r.copies = th::testing::Col<std::string>(t, "copy");
  return r;
}

TEST(LayoutMismatchCopies, FlagsSandwichedLayoutChangesOnly) {
  Outcome r = RunOn({{"hlo_op", std::string("copy.2")},
                     {"hlo_module", std::string("jit_layouts")},
                     {"program_id", int64_t{21}}});
  EXPECT_EQ(r.metrics["copies"], 6);
  EXPECT_EQ(r.metrics["copies_layout_changing"], 5);  // all but copy.5
  EXPECT_EQ(r.metrics["copies_same_layout"], 1);
  // copy.2 (dot -> dot), copy.13 (fusion with dot -> fusion with reduce),
  // copy.b (while body: entry parameter through the while -> dot) and copy.5
  // (same layout) are sandwiched; copy.8 has no producer, copy.10 no consumer.
  EXPECT_EQ(r.metrics["copies_sandwiched"], 4);
  ASSERT_EQ(r.copies.size(), 3u);
  EXPECT_EQ(r.copies[0], "copy.2");  // measured time ranks first
  EXPECT_EQ((std::set<std::string>{r.copies[1], r.copies[2]}),
            (std::set<std::string>{"copy.13", "copy.b"}));
  const DerivedTable& t = r.results.tables.at("layout_mismatch_copies");
  EXPECT_EQ(th::testing::Col<int64_t>(t, "device_time")[0], 5000);
  EXPECT_EQ(th::testing::Col<std::string>(t, "python_line")[0], "model.py:3");
  EXPECT_EQ(th::testing::Col<std::string>(t, "producer")[0], "dot dot.1 (1 hop)");
  // bf16 minor-most dim 8 ({0,1}: dim 0) is not a multiple of the 256-element lane.
  const auto& lanes = th::testing::Col<std::string>(t, "lanes");
  size_t row13 = r.copies[1] == "copy.13" ? 1 : 2;
  EXPECT_NE(lanes[row13].find("256-element TPU lane"), std::string::npos) << lanes[row13];
  ASSERT_EQ(r.results.findings.size(), 3u);
  EXPECT_EQ(r.results.findings[0].severity, FindingSeverity::kP1);  // P1: it has measured time
}

TEST(LayoutMismatchCopies, SameLayoutOnRequestAndRadius) {
  Outcome all = RunOn({}, {{"report_same_layout", true}});
  EXPECT_EQ(all.copies.size(), 4u);
  // Radius 1: copy.b's producer is two hops away (parameter -> while operand).
  Outcome near = RunOn({}, {{"max_hops", int64_t{1}}});
  EXPECT_EQ(std::count(near.copies.begin(), near.copies.end(), "copy.b"), 0);
  EXPECT_EQ(std::count(near.copies.begin(), near.copies.end(), "copy.2"), 1);
}

TEST(LayoutMismatchCopies, RealCaptureAgreesWithTheOracleCopyClassification) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: real-capture test skipped";
  std::string dir = data + "/tracelens/tests/traces/mi300/jax_conv_minimal_legacy";
  int64_t total = 0, changing = 0, same = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (name.find(".hlo_proto.pb") == std::string::npos) continue;
    simdjson::dom::parser p;
    simdjson::dom::element o =
        p.load(data + "/expected/tracelens/tests/traces/mi300/jax_conv_minimal_legacy/" + name +
               ".oracle.json")
            .value();
    total += o["copy"]["total"].get_int64().value();
    changing += o["copy"]["layout_changing"].get_int64().value();
    same += o["copy"]["same_layout"].get_int64().value();
  }
  auto set =
      LoadTraceSet({dir + "/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb"}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  PluginResults r;
  ASSERT_TRUE(RunPlugin(Plugin(), *set, {}, &r).ok());
  std::map<std::string, double> m;
  for (const Metric& x : r.metrics) m[x.name] = x.value;
  EXPECT_EQ(m["copies"], total);
  EXPECT_EQ(m["copies_layout_changing"], changing);
  EXPECT_EQ(m["copies_same_layout"], same);
}

}  // namespace
}  // namespace th
