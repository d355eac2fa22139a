// PerStepSweep against the definition (every call against every step) on
// nested, overlapping, touching and empty steps and on calls of every shape.
#include "per_step_sweep.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace th::cuda_sync {
namespace {

struct Expected {
  std::vector<int64_t> blocked, calls;
};

Expected EveryCallAgainstEveryStep(const std::vector<StepWindow>& steps,
                                   const std::vector<std::pair<int64_t, int64_t>>& calls) {
  Expected e{std::vector<int64_t>(steps.size(), 0), std::vector<int64_t>(steps.size(), 0)};
  for (const auto& [ts, end] : calls) {
    for (size_t s = 0; s < steps.size(); ++s) {
      const int64_t first = steps[s].ts, last = steps[s].ts + steps[s].dur;
      e.blocked[s] += std::max<int64_t>(std::min(end, last) - std::max(ts, first), 0);
      e.calls[s] += ts >= first && ts < last;
    }
  }
  return e;
}

// By start: step 1 [0,1000) holds step 2 [100,200); step 3 [300,400); step 5
// [350,2000) overlaps step 3; step 4 [400,400) is empty and touches step 3.
TEST(PerStepSweep, NestedOverlappingAndEmptySteps) {
  const std::vector<StepWindow> steps = {
      {1, 0, 1000}, {2, 100, 100}, {3, 300, 100}, {5, 350, 1650}, {4, 400, 0}};
  PerStepSweep sweep(steps);
  sweep.Add(500, 600);    // after step 2 ends: step 1 and step 5 only
  sweep.Add(150, 150);    // no time; starts in steps 1 and 2
  sweep.Add(390, 2500);   // from step 3 to past step 5
  sweep.Add(3000, 3100);  // after every step
  EXPECT_EQ(sweep.blocked(), (std::vector<int64_t>{100 + 610, 0, 10, 100 + 1610, 0}));
  EXPECT_EQ(sweep.calls(), (std::vector<int64_t>{3, 1, 1, 2, 0}));
}

TEST(PerStepSweep, EqualsEveryCallAgainstEveryStep) {
  std::mt19937_64 random(7);
  const auto below = [&](int64_t n) {
    return static_cast<int64_t>(random() % static_cast<uint64_t>(n));
  };
  for (int round = 0; round < 200; ++round) {
    std::vector<StepWindow> steps(static_cast<size_t>(below(12)));
    for (size_t s = 0; s < steps.size(); ++s)
      steps[s] = {static_cast<int64_t>(s), below(1000), below(4) == 0 ? 0 : below(300)};
    std::stable_sort(steps.begin(), steps.end(),
                     [](const StepWindow& a, const StepWindow& b) { return a.ts < b.ts; });
    std::vector<std::pair<int64_t, int64_t>> calls(static_cast<size_t>(below(30)));
    for (auto& [ts, end] : calls) {
      ts = below(1400) - 100;
      end = ts + (below(5) == 0 ? 0 : below(500));
    }
    PerStepSweep sweep(steps);
    for (const auto& [ts, end] : calls) sweep.Add(ts, end);
    const Expected e = EveryCallAgainstEveryStep(steps, calls);
    ASSERT_EQ(sweep.blocked(), e.blocked) << "round " << round;
    ASSERT_EQ(sweep.calls(), e.calls) << "round " << round;
  }
}

}  // namespace
}  // namespace th::cuda_sync
