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

TEST(ClipToSteps, EachEventClippedToEveryStepItOverlaps) {
  // Rank 0's steps are rows 0 [0, 100), 2 [100, 150), 3 [300, 400); row 1 is
  // another rank's.
  std::vector<StepRow> steps = {{0, 1, 0, 100, false, false},
                                {1, 1, 0, 50, false, false},
                                {0, 2, 100, 50, false, false},
                                {0, 3, 300, 100, false, false}};
  std::vector<StepEvent> events = {
      {90, 120, kKernel, true, true},       // rows 2 [100, 120) then 0 [90, 100)
      {160, 250, kCpuExec, false, false},   // between steps 2 and 3: nothing
      {350, 360, kMemcpy, true, false},     // row 3
      {10, 20, kNoCategory, true, false}};  // a sync: GPU rows only, row 0
  StepClips clips;
  ClipToSteps(steps, {0, 2, 3}, events, clips);
  EXPECT_EQ(clips.bucket[kKernel].group, (std::vector<uint32_t>{2, 0}));
  EXPECT_EQ(clips.bucket[kKernel].begin, (std::vector<int64_t>{100, 90}));
  EXPECT_EQ(clips.bucket[kKernel].end, (std::vector<int64_t>{120, 100}));
  EXPECT_EQ(clips.bucket[kMemcpy].group, (std::vector<uint32_t>{3}));
  EXPECT_TRUE(clips.bucket[kCpuExec].group.empty());
  EXPECT_EQ(clips.gpu.group, (std::vector<uint32_t>{2, 0, 3, 0}));
  EXPECT_EQ(clips.gpu.begin, (std::vector<int64_t>{100, 90, 350, 10}));
  EXPECT_EQ(clips.gpu.end, (std::vector<int64_t>{120, 100, 360, 20}));
  EXPECT_EQ(clips.comp.group, (std::vector<uint32_t>{2, 0}));
  EXPECT_EQ(clips.comp.end, (std::vector<int64_t>{120, 100}));
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
