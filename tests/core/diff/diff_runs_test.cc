#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "core/diff/diff_aggregate.h"
#include "tests/core/diff/diff_test_support.h"

namespace th::diff {
namespace {

using testing::Diff;
using testing::FixtureSide;
using th::testing::DiffFixture;

std::map<std::string, const AggregateRow*> ByName(const DiffResult& r) {
  std::map<std::string, const AggregateRow*> out;
  for (const AggregateRow& row : r.aggregate)
    out[std::string(EventClassName(row.cls)) + " " + row.name] = &row;
  return out;
}

TEST(DiffRuns, SelfDiffIsUnchangedEverywhere) {
  auto a = FixtureSide(DiffFixture{}, "A");
  DiffResult r = Diff(*a, *a);
  EXPECT_EQ(r.a.steps, 3);  // 4 steps, the first is warm-up
  EXPECT_EQ(r.a.warmup_left_out, 1);
  ASSERT_EQ(r.aggregate.size(), 7u);  // 3 op names + 4 kernel names
  for (const AggregateRow& row : r.aggregate) {
    EXPECT_EQ(row.status, RowStatus::kUnchanged) << row.name;
    EXPECT_EQ(row.delta_ns, 0) << row.name;
    EXPECT_EQ(row.a.count, row.b.count);
  }
  ASSERT_EQ(r.structure.size(), 3u);
  for (const StepPair& p : r.structure) {
    EXPECT_TRUE(p.rows.empty());
    EXPECT_EQ(p.a_unmatched + p.b_unmatched, 0);
    EXPECT_EQ(p.matched, 2 + 4 + 4);  // modules, ops, kernels
  }
  ASSERT_TRUE(r.attribution.available);
  EXPECT_EQ(r.attribution.delta_ns, 0);
  for (const Contributor& c : r.attribution.contributors) EXPECT_EQ(c.delta_ns, 0);
}

TEST(DiffRuns, FindsTheDoubledKernelAndTheInsertedOp) {
  DiffFixture fa, fb;
  fb.double_gemm = fb.insert_mul = true;
  fb.address = 0x7f00beef0;  // another address in the gemm's name: the same row
  auto a = FixtureSide(fa, "A");
  auto b = FixtureSide(fb, "B");
  DiffResult r = Diff(*a, *b);
  auto rows = ByName(r);
  ASSERT_EQ(rows.size(), 9u);
  std::map<std::string, RowStatus> expected = {{"gpu_kernel gemm_kernel<0x*>", RowStatus::kChanged},
                                               {"cpu_op aten::mul", RowStatus::kAdded},
                                               {"gpu_kernel mul_kernel", RowStatus::kAdded}};
  for (const auto& [name, row] : rows) {
    auto it = expected.find(name);
    EXPECT_EQ(row->status, it == expected.end() ? RowStatus::kUnchanged : it->second) << name;
  }
  const AggregateRow& gemm = *rows.at("gpu_kernel gemm_kernel<0x*>");
  EXPECT_EQ(gemm.a.time_per_step_ns, 50000);
  EXPECT_EQ(gemm.b.time_per_step_ns, 100000);
  EXPECT_EQ(gemm.delta_ns, 50000);
  EXPECT_EQ(gemm.delta_pct, 100.0);
  EXPECT_EQ(gemm.noise_ns, 0);
  EXPECT_EQ(rows.at("cpu_op aten::mul")->b.count, 3);
  EXPECT_FALSE(rows.at("cpu_op aten::mul")->has_pct);

  // Structure: the insert sits under Decoder_0, the gemm under Encoder_0 › aten::linear.
  ASSERT_EQ(r.structure.size(), 3u);
  for (const StepPair& p : r.structure) {
    ASSERT_EQ(p.rows.size(), 2u);
    EXPECT_EQ(p.rows[0].kind, "time_changed");
    EXPECT_EQ(p.rows[0].path, (std::vector<std::string>{"nn.Module: Encoder_0", "aten::linear"}));
    EXPECT_EQ(p.rows[0].b_device_ns - p.rows[0].a_device_ns, 50000);
    EXPECT_EQ(p.rows[1].kind, "added");
    EXPECT_EQ(p.rows[1].level, "op");
    EXPECT_EQ(p.rows[1].b_name, "aten::mul");
    EXPECT_EQ(p.rows[1].path, std::vector<std::string>{"nn.Module: Decoder_0"});
    EXPECT_EQ(p.rows[1].b_device_ns, 15000);
    EXPECT_EQ(p.b_unmatched, 2);  // aten::mul and its kernel
  }

  // Attribution closes to the nanosecond, against the steps table itself.
  const Attribution& at = r.attribution;
  ASSERT_TRUE(at.available);
  int64_t sum = 0;
  for (const Contributor& c : at.contributors) sum += c.delta_ns;
  EXPECT_EQ(sum, at.delta_ns);
  auto mean_steady = [](const testing::Side& s) {
    const DerivedTable& t = s.results.tables.at("steps");
    const auto& dur = th::testing::Column<int64_t>(t, "dur");
    const auto& warm = th::testing::Column<int64_t>(t, "warmup");
    int64_t total = 0, n = 0;
    for (size_t i = 0; i < t.rows; ++i)
      if (!warm[i]) total += dur[i], ++n;
    return DivRound(total, n);
  };
  EXPECT_EQ(at.delta_ns, mean_steady(*b) - mean_steady(*a));
  EXPECT_EQ(at.a_step_ns, mean_steady(*a));
}

TEST(DiffRuns, FewerThanTwoStepsIsUnknownNeverUnchanged) {
  DiffFixture one;
  one.steps = 1;  // a single step: no warm-up, one kept step
  auto a = FixtureSide(one, "A");
  auto b = FixtureSide(DiffFixture{}, "B");
  DiffResult r = Diff(*a, *b);
  EXPECT_EQ(r.a.steps, 1);
  for (const AggregateRow& row : r.aggregate) EXPECT_EQ(row.status, RowStatus::kUnknown);
  EXPECT_EQ(r.warnings[0],
            "side A has 1 kept step(s): rows present on both sides are unknown, not unchanged");
}

TEST(DiffRuns, InferredStepsMakeInferredFigures) {
  DiffFixture f;
  f.markers = false;
  f.steps = 6;
  auto a = FixtureSide(f, "A");
  auto b = FixtureSide(DiffFixture{}, "B");
  DiffResult r = Diff(*a, *b);
  EXPECT_EQ(r.a.step_source, "inferred");
  EXPECT_EQ(r.a.kind, "inferred");
  EXPECT_EQ(r.b.kind, "measured");
  EXPECT_EQ(r.warnings[0], "steps come from different sources: A inferred, B profiler_step");
}

TEST(DiffRuns, AllStepsKeepsTheWarmUp) {
  auto a = FixtureSide(DiffFixture{}, "A");
  DiffOptions o;
  o.all_steps = true;
  DiffResult r = Diff(*a, *a, o);
  EXPECT_EQ(r.a.steps, 4);
  EXPECT_EQ(r.a.warmup_left_out, 0);
}

TEST(DiffRuns, ThresholdAboveTheChangeKeepsItUnchanged) {
  DiffFixture fb;
  fb.double_gemm = true;
  auto a = FixtureSide(DiffFixture{}, "A");
  auto b = FixtureSide(fb, "B");
  DiffOptions o;
  o.threshold_ns = 50000;  // |Δ| must exceed it
  for (const AggregateRow& row : Diff(*a, *b, o).aggregate)
    EXPECT_EQ(row.status, RowStatus::kUnchanged) << row.name;
}

}  // namespace
}  // namespace th::diff

namespace th::diff {
namespace {

// Real captures of ../shared/data diffed with themselves: every row unchanged,
// every Δ zero, no structural row; XSpace captures give HLO op rows.
class SelfDiff : public ::testing::TestWithParam<const char*> {};

TEST_P(SelfDiff, IsUnchangedEverywhere) {
  const std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data absent";
  auto a = testing::LoadSide({data + "/" + GetParam()}, "A");
  DiffResult r = Diff(*a, *a);
  ASSERT_FALSE(r.aggregate.empty());
  for (const AggregateRow& row : r.aggregate) {
    EXPECT_EQ(row.delta_ns, 0) << row.name;
    EXPECT_EQ(row.a.count, row.b.count) << row.name;
    EXPECT_EQ(row.status, r.a.steps < 2 ? RowStatus::kUnknown : RowStatus::kUnchanged) << row.name;
  }
  for (const StepPair& p : r.structure) {
    EXPECT_TRUE(p.rows.empty());
    EXPECT_EQ(p.a_unmatched + p.b_unmatched, 0);
    EXPECT_GT(p.matched, 0);
  }
  EXPECT_EQ(r.attribution.delta_ns, 0);
  for (const std::string& w : r.warnings) EXPECT_FALSE(w.starts_with("input shapes differ")) << w;
  // The Kineto capture has record_shapes: its shapes were compared, and agree.
  if (std::string(GetParam()).ends_with(".json.gz")) {
    EXPECT_GT(r.a.ranks, 0);
    EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
  }
  if (std::string(GetParam()).ends_with(".xplane.pb")) {
    EXPECT_TRUE(std::any_of(r.totals.begin(), r.totals.end(),
                            [](const ClassTotal& t) { return t.cls == EventClass::kHloOp; }));
  }
}

INSTANTIATE_TEST_SUITE_P(
    RealTraces, SelfDiff,
    ::testing::Values("hta/tests/data/trace_diff/control/control.json.gz",
                      "tracelens/tests/traces/mi300/jax_conv_minimal_08/tw003.xplane.pb",
                      "xprof/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb"),
    [](const auto& info) { return th::testing::ParamName(info.param); });

}  // namespace
}  // namespace th::diff
