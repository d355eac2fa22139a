// Kernel -> HLO attribution on captures written by the test (libprotobuf from
// the project's .proto files): every match class and its gates, while-loop
// expansion, kernel names XLA reuses, and the time shares.
#include "core/import/hlo/kernel_attribution.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/import/trace_loader.h"
#include "tests/support/hlo_fixture.h"
#include "tests/support/test_files.h"
#include "tests/support/xspace_fixture.h"

namespace th {
namespace {

using testing::AddComputation;
using testing::AddInstruction;
using testing::SetSchedule;
using testing::StatSpec;
using testing::XSpaceBuilder;

// Module "jit_step" (id 7): fusion.1 -> custom-call.2 -> fusion.3 -> fusion.4,
// in schedule order; parameter and tuple launch nothing.
tracehound::hlo::HloModuleProto StepModule() {
  tracehound::hlo::HloModuleProto m;
  m.set_name("jit_step");
  m.set_id(7);
  auto* fused = AddComputation(&m, 100, "fused_add", true);
  AddInstruction(fused, 101, "add.0", "add", {}, "jit(step)/add", "model.py", 10);
  auto* main = AddComputation(&m, 1, "main");
  m.set_entry_computation_name("main");
  m.set_entry_computation_id(1);
  AddInstruction(main, 10, "p0", "parameter");
  AddInstruction(main, 11, "fusion.1", "fusion", {10})->add_called_computation_ids(100);
  AddInstruction(main, 12, "custom-call.2", "custom-call", {11}, "jit(step)/dot", "model.py", 20);
  AddInstruction(main, 13, "fusion.3", "fusion", {12}, "jit(step)/tanh", "model.py", 30);
  AddInstruction(main, 14, "fusion.4", "fusion", {13}, "jit(step)/exp", "model.py", 40);
  AddInstruction(main, 15, "tuple.5", "tuple", {14});
  SetSchedule(&m, 1, {10, 11, 12, 13, 14, 15});
  return m;
}

// Module "jit_loop" (id 9): a while loop of 3 trips over body {fusion.b} and
// condition {compare.c}.
tracehound::hlo::HloModuleProto LoopModule() {
  tracehound::hlo::HloModuleProto m;
  m.set_name("jit_loop");
  m.set_id(9);
  auto* body = AddComputation(&m, 20, "body");
  AddInstruction(body, 201, "fusion.b", "fusion", {}, "jit(loop)/body", "loop.py", 5);
  auto* cond = AddComputation(&m, 21, "cond");
  AddInstruction(cond, 211, "compare.c", "compare", {}, "jit(loop)/lt", "loop.py", 4);
  auto* main = AddComputation(&m, 2, "main");
  m.set_entry_computation_id(2);
  AddInstruction(main, 30, "p", "parameter");
  auto* w = AddInstruction(main, 31, "while.1", "while", {30});
  w->add_called_computation_ids(20);  // body first, then condition
  w->add_called_computation_ids(21);
  w->set_backend_config(R"({"known_trip_count":{"n":"3"}})");
  return m;
}

struct Kernel {
  std::string name;
  std::string hlo_op;  // "" = the tracer recorded no labels
  std::string module = "jit_step";
  int64_t program_id = 7;
};

struct Result {
  std::vector<std::string> names;
  std::vector<HloMatch> match;
  std::vector<std::string> instruction;  // "" when none
  std::unique_ptr<TraceSet> set;
};

// One GPU stream, kernels 10 µs apart (1 µs long), in the given order.
Result Attribute(const std::vector<Kernel>& kernels, bool with_loop = false) {
  XSpaceBuilder b;
  b.EmbedHlo(StepModule());
  if (with_loop) b.EmbedHlo(LoopModule());
  auto* gpu = b.AddPlane(0, "/device:GPU:0");
  auto* stream = b.AddLine(gpu, 1, "Stream #1(Kernel)", 1000);
  int64_t t = 0;
  for (const Kernel& k : kernels) {
    std::vector<StatSpec> stats;
    if (!k.hlo_op.empty()) {
      stats.push_back({"hlo_op", k.hlo_op});
      stats.push_back({"hlo_module", k.module});
      stats.push_back({"program_id", k.program_id});
    }
    b.AddEvent(gpu, stream, k.name, t, 1000000, stats);
    t += 10000000;
  }
  static int captures = 0;
  std::string dir = testing::TempDir() + "/capture_" + std::to_string(++captures);
  std::filesystem::create_directories(dir);
  EXPECT_TRUE(b.WriteTo(dir + "/host.xplane.pb"));
  auto set = LoadTraceSet({dir + "/host.xplane.pb"}, LoadOptions{});
  EXPECT_TRUE(set.ok()) << set.status().message();
  Result r;
  const Trace& trace = *set->traces.at(0);
  EXPECT_TRUE(trace.xla.attributed);
  const EventGraph& g = trace.graph;
  for (size_t row = 0; row < g.gpu_args.size(); ++row) {
    r.names.emplace_back(g.strings.Get(g.events.name[g.gpu_args.event[row]]));
    r.match.push_back(trace.xla.kernel_match[row]);
    uint32_t f = trace.xla.kernel_instruction[row];
    r.instruction.push_back(f == hlo::kNoInstruction ? "" : trace.xla.index->instruction(f).name);
  }
  r.set = std::make_unique<TraceSet>(std::move(*set));
  return r;
}

TEST(KernelAttribution, ExactWhenTheTracerNamesTheInstruction) {
  Result r = Attribute({{"fusion_1", "fusion.1"},
                        {"Cijk_gemm", "custom-call.2"},
                        {"fusion_3", "fusion.3"},
                        {"fusion_4", "fusion.4"}});
  ASSERT_EQ(r.match.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(r.match[i], HloMatch::kExact) << r.names[i];
  EXPECT_EQ(r.instruction[1], "custom-call.2");
}

TEST(KernelAttribution, NameWithinTheWindowAndLibraryHelpersByOrder) {
  // A helper kernel before the GEMM has no interior candidate: it goes to the
  // next anchor's instruction (order). fusion_3 is the unique name in its window.
  Result r = Attribute({{"fusion_1", "fusion.1"},
                        {"im2col_helper", ""},
                        {"Cijk_gemm", "custom-call.2"},
                        {"fusion_3.kd", ""},
                        {"fusion_4", "fusion.4"}});
  EXPECT_EQ(r.match[1], HloMatch::kOrder);
  EXPECT_EQ(r.instruction[1], "custom-call.2");
  EXPECT_EQ(r.match[3], HloMatch::kName);
  EXPECT_EQ(r.instruction[3], "fusion.3");
}

TEST(KernelAttribution, OrderFillsTheWindowInScheduleOrder) {
  Result r = Attribute(
      {{"fusion_1", "fusion.1"}, {"kernel_a", ""}, {"kernel_b", ""}, {"fusion_4", "fusion.4"}});
  EXPECT_EQ(r.match[1], HloMatch::kOrder);
  EXPECT_EQ(r.instruction[1], "custom-call.2");
  EXPECT_EQ(r.match[2], HloMatch::kOrder);
  EXPECT_EQ(r.instruction[2], "fusion.3");
}

TEST(KernelAttribution, ReusedKernelNameIsNotMatchedOutsideItsWindow) {
  // XLA reuses fusion.1's compiled kernel for an identical fusion elsewhere:
  // a kernel named fusion_1 between custom-call.2 and fusion.4 is fusion.3 by
  // order, never fusion.1 by name.
  Result r = Attribute({{"fusion_1", "fusion.1"},
                        {"Cijk_gemm", "custom-call.2"},
                        {"fusion_1", ""},
                        {"fusion_4", "fusion.4"}});
  EXPECT_EQ(r.match[2], HloMatch::kOrder);
  EXPECT_EQ(r.instruction[2], "fusion.3");
}

TEST(KernelAttribution, NoneBetweenExecutionsAndForUnknownModules) {
  Result r = Attribute({{"fusion_1", "fusion.1"},
                        {"Cijk_gemm", "custom-call.2"},
                        {"fusion_3", "fusion.3"},
                        {"fusion_4", "fusion.4"},
                        {"copy_h2d", ""},  // between two executions: nothing left
                        {"fusion_1", "fusion.1"},
                        {"other", "fusion.9", "jit_other", 99},  // module not captured
                        {"fusion_4", "fusion.4"},
                        {"stray", "fusion.99"}});  // op not in the module, after the last anchor
  EXPECT_EQ(r.match[4], HloMatch::kNone);
  EXPECT_EQ(r.instruction[4], "");
  EXPECT_EQ(r.match[6], HloMatch::kNone);
  EXPECT_EQ(r.match[8], HloMatch::kNone);
  const TrustTable& trust = r.set->traces[0]->trust;
  EXPECT_EQ(trust.Count(TrustId::kGpuEventUnknownHloModule), 1);
  EXPECT_EQ(trust.Count(TrustId::kGpuEventUnknownHloOp), 1);
}

TEST(KernelAttribution, WhileLoopsAreExpandedByTheirTripCount) {
  // Schedule: cond, body, cond, body, cond, body, cond. Unlabelled kernels
  // between the first and last compare alternate body/cond by order.
  std::vector<Kernel> k = {{"compare_c", "compare.c", "jit_loop", 9}};
  for (int i = 0; i < 5; ++i) k.push_back({"k" + std::to_string(i), ""});
  k.push_back({"compare_c", "compare.c", "jit_loop", 9});
  Result r = Attribute(k, true);
  const char* expected[] = {"fusion.b", "compare.c", "fusion.b", "compare.c", "fusion.b"};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(r.match[static_cast<size_t>(i + 1)], HloMatch::kOrder);
    EXPECT_EQ(r.instruction[static_cast<size_t>(i + 1)], expected[i]) << i;
  }
}

TEST(KernelAttribution, LinesAndOpsComeFromTheInstructionOrItsFusedRoot) {
  Result r = Attribute({{"fusion_1", "fusion.1"}, {"fusion_3", "fusion.3"}});
  const Trace& t = *r.set->traces[0];
  uint32_t f1 = t.xla.kernel_instruction[0];
  EXPECT_EQ(t.xla.index->SourceLine(f1), "model.py:10");  // via fused_add's root
  EXPECT_EQ(t.xla.index->OpName(f1), "jit(step)/add");
  EXPECT_EQ(t.xla.index->SourceLine(t.xla.kernel_instruction[1]), "model.py:30");
  // users: fusion.3 is used by fusion.4
  uint32_t f3 = t.xla.kernel_instruction[1];
  ASSERT_EQ(t.xla.index->users(f3).size(), 1u);
  EXPECT_EQ(t.xla.index->instruction(t.xla.index->users(f3)[0]).name, "fusion.4");
  EXPECT_EQ(t.xla.index->instruction(t.xla.index->caller(t.xla.index->FindByName(0, "add.0"))).name,
            "fusion.1");
}

}  // namespace
}  // namespace th
