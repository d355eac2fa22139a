#include "core/diff/diff_attribution.h"

#include <gtest/gtest.h>

#include <numeric>

namespace th::diff {
namespace {

ProfileStep Step(int64_t dur, std::array<int64_t, kCategoryCount> cats) {
  ProfileStep s;
  s.dur = dur;
  s.has_categories = true;
  s.categories = cats;
  return s;
}

TEST(CategoryMeans, LargestRemaindersAddUpToTheRoundedStep) {
  Profile p;
  // Three steps: 100, 101, 101 ns -> mean 100.67 -> 101.
  p.steps = {Step(100, {50, 0, 0, 0, 25, 0, 25, 0}), Step(101, {51, 0, 0, 0, 25, 0, 25, 0}),
             Step(101, {50, 1, 0, 0, 25, 0, 24, 1})};
  std::vector<int64_t> m = CategoryMeans(p);
  EXPECT_EQ(m[0], 101);
  // kernel 151/3 = 50 r1, memcpy 1/3 = 0 r1, runtime 75/3 = 25, cpu_exec 74/3 = 24 r2,
  // other 1/3 = 0 r1: floors 99, two more ns to cpu_exec (r2), then kernel (first r1).
  EXPECT_EQ(m[1], 51);
  EXPECT_EQ(m[2], 0);
  EXPECT_EQ(m[5], 25);
  EXPECT_EQ(m[7], 25);
  EXPECT_EQ(m[8], 0);
  EXPECT_EQ(std::accumulate(m.begin() + 1, m.end(), int64_t{0}), m[0]);
}

TEST(Attribute, DeltasCloseAndAreOrdered) {
  Profile a, b;
  a.steps = {Step(100, {60, 0, 0, 0, 10, 0, 20, 10}), Step(100, {60, 0, 0, 0, 10, 0, 20, 10})};
  b.steps = {Step(130, {85, 0, 0, 0, 10, 0, 30, 5}), Step(131, {86, 0, 0, 0, 10, 0, 30, 5})};
  Attribution at = Attribute(a, b);
  ASSERT_TRUE(at.available);
  EXPECT_EQ(at.a_step_ns, 100);
  EXPECT_EQ(at.b_step_ns, 131);  // 130.5 rounds half away from zero
  EXPECT_EQ(at.delta_ns, 31);
  int64_t sum = 0;
  for (const Contributor& c : at.contributors) sum += c.delta_ns;
  EXPECT_EQ(sum, at.delta_ns);
  EXPECT_EQ(at.contributors[0].category, "kernel");
  EXPECT_EQ(at.contributors[0].delta_ns, 26);
  EXPECT_EQ(at.contributors[1].category, "cpu_exec");
  EXPECT_EQ(at.contributors[2].category, "other");
  EXPECT_EQ(at.contributors[2].delta_ns, -5);
}

TEST(Attribute, UnavailableWithoutBreakdown) {
  Profile a, b;
  a.steps.resize(2);
  b.steps = {Step(1, {1, 0, 0, 0, 0, 0, 0, 0})};
  EXPECT_FALSE(Attribute(a, b).available);
}

TEST(ParityWarnings, DeviceWorldSizeAndSteps) {
  SideSummary a, b;
  a.label = "A";
  b.label = "B";
  a.device = "NVIDIA H100";
  b.device = "AMD MI300X";
  a.world_size = 8;
  b.world_size = 16;
  a.steps = 3;
  b.steps = 1;
  a.ranks = b.ranks = 1;
  a.step_source = b.step_source = "profiler_step";
  std::vector<std::string> w = ParityWarnings(a, b);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0], "device differs: A NVIDIA H100, B AMD MI300X");
  EXPECT_EQ(w[1], "world size differs: A 8, B 16 (0 = unknown)");
  EXPECT_EQ(w[2],
            "side B has 1 kept step(s): rows present on both sides are unknown, not unchanged");
  b.device = a.device;
  b.world_size = a.world_size;
  b.steps = 2;
  EXPECT_TRUE(ParityWarnings(a, b).empty());
}

}  // namespace
}  // namespace th::diff
