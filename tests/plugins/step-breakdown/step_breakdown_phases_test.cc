// The step-breakdown analyzer's phases (plugins/step-breakdown/
// step_breakdown_phases.h) on hand-built steps and events; every expected
// figure is worked out in the comments.
#include "step_breakdown_phases.h"

#include <gtest/gtest.h>

#include <vector>

namespace th::step_breakdown {
namespace {

TEST(CpuCategory, ByName) {
  EXPECT_EQ(CpuCategory("ProfilerStep#3"), kNoCategory);
  EXPECT_EQ(CpuCategory("nccl:all_reduce"), kCommunication);
  EXPECT_EQ(CpuCategory("gloo:broadcast"), kCommunication);
  EXPECT_EQ(CpuCategory("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"),
            kDataLoader);
  EXPECT_EQ(CpuCategory("enumerate(DataLoader)#_SingleProcessDataLoaderIter.reset"), kCpuExec);
  EXPECT_EQ(CpuCategory("enumerate(DataPipe)#Mapper"), kDataLoader);
  EXPECT_EQ(CpuCategory("aten::mm"), kCpuExec);
}

TEST(StepUnions, EachEventUnitedInEveryStepItOverlaps) {
  // Rank 0's steps are rows 0 [0, 100), 2 [100, 150), 3 [300, 400); row 1 is
  // another rank's.
  std::vector<StepRow> steps = {{0, 1, 0, 100, false, false},
                                {1, 1, 0, 50, false, false},
                                {0, 2, 100, 50, false, false},
                                {0, 3, 300, 100, false, false}};
  StepUnions unions(steps, {0, 2, 3});
  unions.Add({10, 20, kNoCategory, true, false});  // a sync: GPU rows only, row 0
  unions.Add({90, 120, kKernel, true, true});      // rows 0 [90, 100) and 2 [100, 120)
  unions.Add({95, 110, kCpuExec, false, false});   // rows 0 [95, 100) and 2 [100, 110)
  unions.Add({160, 250, kCpuExec, false, false});  // between steps 2 and 3: nothing
  unions.Add({350, 360, kMemcpy, true, false});    // row 3
  ASSERT_EQ(unions.size(), 3u);
  EXPECT_EQ(unions.row(0), 0u);
  EXPECT_EQ(unions.row(1), 2u);
  EXPECT_EQ(unions.row(2), 3u);
  // Row 0: kernel [90, 100) in every union; cpu_exec [95, 100) inside it.
  EXPECT_EQ(unions.Cumulative(0), (std::array<int64_t, kCategories>{10, 10, 10, 10, 10, 10, 10}));
  EXPECT_EQ(unions.Busy(0), 20);  // [10, 20) and [90, 100)
  EXPECT_EQ(unions.Computing(0), 10);
  EXPECT_EQ(unions.Cumulative(1), (std::array<int64_t, kCategories>{20, 20, 20, 20, 20, 20, 20}));
  EXPECT_EQ(unions.Busy(1), 20);
  EXPECT_EQ(unions.Computing(1), 20);
  // Row 3: memcpy from the memcpy union on.
  EXPECT_EQ(unions.Cumulative(2), (std::array<int64_t, kCategories>{0, 10, 10, 10, 10, 10, 10}));
  EXPECT_EQ(unions.Busy(2), 10);
  EXPECT_EQ(unions.Computing(2), 0);
}

TEST(StepUnions, OverlappingStepsEachGetTheirPart) {
  // Two steps of one rank overlap in [50, 100); one long one spans both.
  std::vector<StepRow> steps = {
      {0, 1, 0, 100, false, false}, {0, 2, 50, 100, false, false}, {0, 3, 0, 400, false, false}};
  StepUnions unions(steps, {0, 2, 1});  // by start
  EXPECT_TRUE(unions.Overlaps(399, 500));
  EXPECT_FALSE(unions.Overlaps(400, 500));
  unions.Add({40, 60, kRuntime, false, false});       // rows 0 [40, 60), 2 [40, 60), 1 [50, 60)
  unions.Add({55, 70, kKernel, true, true});          // rows 0, 2 [55, 70), 1 [55, 70)
  unions.Add({120, 130, kDataLoader, false, false});  // rows 2 and 1
  unions.Add({300, 310, kMemset, true, false});       // row 2 only: the others ended
  // Row 0: kernel 15; runtime adds [40, 55) = 15.
  EXPECT_EQ(unions.Cumulative(0), (std::array<int64_t, kCategories>{15, 15, 15, 15, 30, 30, 30}));
  // Row 2 (k = 1): as row 0, then dataloader 10, and memset 10.
  EXPECT_EQ(unions.Cumulative(1), (std::array<int64_t, kCategories>{15, 15, 25, 25, 40, 50, 50}));
  EXPECT_EQ(unions.Busy(1), 25);
  EXPECT_EQ(unions.Computing(1), 15);
  // Row 1 (k = 2): kernel [55, 70), runtime [50, 55), dataloader 10.
  EXPECT_EQ(unions.Cumulative(2), (std::array<int64_t, kCategories>{15, 15, 15, 15, 20, 30, 30}));
  EXPECT_EQ(unions.Busy(2), 15);
}

TEST(SplitStep, CategoriesFromCumulativeUnionsThenTemporal) {
  // Unions 40 50 50 60 70 70 80 of a 100 ns step: kernel 40, memcpy 10,
  // memset 0, communication 10, runtime 10, dataloader 0, cpu_exec 10, other
  // 20; busy 55 with 35 computing: idle 45, compute 35, non-compute 20.
  auto v = SplitStep(100, {40, 50, 50, 60, 70, 70, 80}, 55, 35);
  EXPECT_EQ(v, (std::array<int64_t, kParts>{40, 10, 0, 10, 10, 0, 10, 20, 45, 35, 20}));
  EXPECT_TRUE(AddsUp(v, 100));
  EXPECT_FALSE(AddsUp(v, 90));
  // A union shrinking (impossible for true unions) gives a negative part.
  EXPECT_FALSE(AddsUp(SplitStep(100, {40, 30, 30, 30, 30, 30, 30}, 0, 0), 100));
}

TEST(SummarizePart, MeanMinMaxOverTheChosenRows) {
  std::vector<int64_t> ns = {10, 20, 35, 1000};
  std::vector<double> pct = {10, 20, 35, 99};
  PartSummary p = SummarizePart(ns, &pct, {0, 1, 2});  // row 3 is another phase's
  EXPECT_EQ(p.steps, 3);
  EXPECT_EQ(p.mean, 21);  // 65 / 3, integer
  EXPECT_EQ(p.min, 10);
  EXPECT_EQ(p.max, 35);
  EXPECT_DOUBLE_EQ(p.mean_pct, 65.0 / 3);
  EXPECT_EQ(p.min_pct, 10);
  EXPECT_EQ(p.max_pct, 35);
  PartSummary whole = SummarizePart(ns, nullptr, {3});
  EXPECT_EQ(whole.mean, 1000);
  EXPECT_EQ(whole.mean_pct, 100);
}

TEST(KernelTypeRegions, ExactlyEachSetOfTypes) {
  // Computation [0, 10), communication [5, 15), memory [8, 20): unions a 10,
  // b 10, c 12, ab 15, ac 20, bc 15, abc 20. Exactly: a [0, 5) 5, b 0,
  // c [15, 20) 5, a+b [5, 8) 3, a+c 0, b+c [10, 15) 5, all [8, 10) 2.
  EXPECT_EQ(KernelTypeRegions(10, 10, 12, 15, 20, 15, 20),
            (std::array<int64_t, 7>{5, 0, 5, 3, 0, 5, 2}));
}

}  // namespace
}  // namespace th::step_breakdown
