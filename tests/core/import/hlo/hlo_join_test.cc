// HLO modules joined to XProf captures: the metadata plane and side files,
// duplicates kept once, bad side files reported; on the real JAX captures,
// every GPU event gets a class, the classes add up to the GPU time, and the
// known cases of the 8-GPU conv capture land where seed 004 says.
#include "core/import/hlo/hlo_join.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>

#include "core/import/trace_loader.h"
#include "tests/support/hlo_fixture.h"
#include "tests/support/test_files.h"
#include "tests/support/xspace_fixture.h"

namespace th {
namespace {

std::string TrustExample(const Trace& t, TrustId id) {
  for (const TrustEntry& e : t.trust.Entries())
    if (e.id == id) return e.example;
  return "";
}

tracehound::hlo::HloModuleProto Module(const std::string& name, int64_t id) {
  tracehound::hlo::HloModuleProto m;
  m.set_name(name);
  m.set_id(id);
  auto* c = testing::AddComputation(&m, 1, "main");
  m.set_entry_computation_id(1);
  testing::AddInstruction(c, 1, "p", "parameter");
  testing::AddInstruction(c, 2, "fusion", "fusion", {1});
  return m;
}

TEST(HloJoin, MetadataPlaneAndSideFilesOnceEachAndBadSideFilesReported) {
  std::string dir = testing::TempDir() + "/join";
  std::filesystem::create_directories(dir);
  testing::XSpaceBuilder b;
  b.EmbedHlo(Module("jit_a", 1));
  b.AddPlane(0, "/device:GPU:0");
  ASSERT_TRUE(b.WriteTo(dir + "/host.xplane.pb"));
  // The same module as a side file, another module, and a corrupt one.
  std::ofstream(dir + "/jit_a(1).hlo_proto.pb") << testing::SerializeHloProto(Module("jit_a", 1));
  std::ofstream(dir + "/jit_b(2).hlo_proto.pb") << testing::SerializeHloProto(Module("jit_b", 2));
  std::ofstream(dir + "/jit_c(3).hlo_proto.pb") << std::string("\x0a\xff\x01garbage", 10);
  auto set = LoadTraceSet({dir + "/host.xplane.pb"}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  const Trace& t = *set->traces[0];
  ASSERT_EQ(t.xla.modules.size(), 2u);
  EXPECT_EQ(t.xla.modules[0].name, "jit_a");
  EXPECT_EQ(t.xla.modules[0].origin, "metadata plane");
  EXPECT_EQ(t.xla.modules[1].origin, dir + "/jit_b(2).hlo_proto.pb");
  EXPECT_EQ(t.trust.Count(TrustId::kHloModuleDuplicate), 1);
  EXPECT_EQ(t.trust.Count(TrustId::kHloModuleUndecodable), 1);
  std::string example = TrustExample(t, TrustId::kHloModuleUndecodable);
  EXPECT_NE(example.find("jit_c(3).hlo_proto.pb"), std::string::npos) << example;
  EXPECT_NE(example.find("byte offset"), std::string::npos) << example;
}

class RealCapture : public ::testing::TestWithParam<std::string> {};

TEST_P(RealCapture, EveryGpuEventHasAClassAndTheSharesAddUp) {
  std::string data = testing::SharedDataDir();
  auto set = LoadTraceSet({data + "/" + GetParam()}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  const Trace& t = *set->traces[0];
  ASSERT_TRUE(t.xla.attributed);
  const EventGraph& g = t.graph;
  ASSERT_EQ(t.xla.kernel_match.size(), g.gpu_args.size());
  ASSERT_EQ(t.xla.kernel_instruction.size(), g.gpu_args.size());

  // The oracle's metadata plane: one module per "Hlo Proto" stat.
  simdjson::dom::parser parser;
  simdjson::dom::element o = parser.load(data + "/expected/" + GetParam() + ".oracle.json").value();
  EXPECT_EQ(static_cast<int64_t>(t.xla.modules.size()),
            o["metadata_plane"]["hlo_proto_stats"].get_int64().value());

  int64_t by_class[kHloMatchCount] = {}, total = 0, exact_expected = 0;
  const hlo::HloIndex& index = *t.xla.index;
  for (size_t r = 0; r < g.gpu_args.size(); ++r) {
    int64_t dur = g.events.dur[g.gpu_args.event[r]];
    by_class[static_cast<int>(t.xla.kernel_match[r])] += dur;
    total += dur;
    EXPECT_EQ(t.xla.kernel_match[r] == HloMatch::kNone,
              t.xla.kernel_instruction[r] == hlo::kNoInstruction);
    // Exact iff the event's own hlo_op names an instruction of a same-name module.
    uint32_t l = g.xla_labels.Find(g.gpu_args.event[r]);
    bool own_op_found = false;
    if (l != kNoRow && g.xla_labels.hlo_op[l] != kEmptyString) {
      for (uint32_t m : index.FindModulesByName(g.strings.Get(g.xla_labels.hlo_module[l])))
        own_op_found |=
            index.FindByName(m, g.strings.Get(g.xla_labels.hlo_op[l])) != hlo::kNoInstruction;
    }
    exact_expected += own_op_found;
    if (own_op_found) {
      EXPECT_EQ(t.xla.kernel_match[r], HloMatch::kExact);
    }
  }
  EXPECT_EQ(by_class[0] + by_class[1] + by_class[2] + by_class[3], total);
  int64_t exact = 0;
  for (HloMatch m : t.xla.kernel_match) exact += m == HloMatch::kExact;
  EXPECT_EQ(exact, exact_expected);
  EXPECT_GT(exact, 0);
}

INSTANTIATE_TEST_SUITE_P(SharedData, RealCapture,
                         ::testing::ValuesIn(testing::FilesWithOracle(".xplane.pb")),
                         [](const auto& info) { return testing::ParamName(info.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RealCapture);

TEST(RealCaptureCases, ConvOnEightGpusMatchesByNameOrderAndNone) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: real-capture test skipped";
  auto set = LoadTraceSet(
      {data + "/tracelens/tests/traces/mi300/jax_conv_minimal_08/tw003.xplane.pb"}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  const Trace& t = *set->traces[0];
  const EventGraph& g = t.graph;
  int named = 0, ordered = 0, copies = 0;
  for (size_t r = 0; r < g.gpu_args.size(); ++r) {
    std::string_view name = g.strings.Get(g.events.name[g.gpu_args.event[r]]);
    bool labelled = g.xla_labels.Find(g.gpu_args.event[r]) != kNoRow;
    HloMatch m = t.xla.kernel_match[r];
    uint32_t f = t.xla.kernel_instruction[r];
    std::string ins = f == hlo::kNoInstruction ? "" : t.xla.index->instruction(f).name;
    if (name == "__amd_rocclr_copyBuffer.kd") {  // argument transfers, outside any program
      EXPECT_EQ(m, HloMatch::kNone);
      ++copies;
    } else if (!labelled && name == "input_transpose_fusion_1.kd") {
      EXPECT_EQ(m, HloMatch::kName);
      EXPECT_EQ(ins, "input_transpose_fusion.1");
      ++named;
    } else if (!labelled && name == "Im3d2Col.kd") {  // the conv's helper, before its GEMM
      EXPECT_EQ(m, HloMatch::kOrder);
      EXPECT_EQ(ins, "cudnn-conv.1");
      ++ordered;
    }
  }
  EXPECT_EQ(named, 1);
  EXPECT_EQ(ordered, 1);
  EXPECT_EQ(copies, 35);  // 9 + 9 + 9 + 8 on four streams of GPU:0
}

TEST(RealCaptureCases, SideFilesOfTheLegacyConvCaptureAreTheMetadataPlaneModules) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: real-capture test skipped";
  std::string dir = data + "/tracelens/tests/traces/mi300/jax_conv_minimal_legacy";
  ASSERT_EQ(hlo::FindHloSideFiles(dir).size(), 8u);
  auto set =
      LoadTraceSet({dir + "/chi-mi300x-013.ord.vultr.cpe.ice.amd.com.xplane.pb"}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  const Trace& t = *set->traces[0];
  EXPECT_EQ(t.xla.modules.size(), 8u);
  EXPECT_EQ(t.trust.Count(TrustId::kHloModuleDuplicate), 8);
}

}  // namespace
}  // namespace th
