#include "core/scan/memory_budget.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/synth/kineto_generator.h"
#include "tests/support/test_files.h"

namespace th::scan {
namespace {

TEST(MemoryBudgetTest, EventEstimateOfAGzipRunIsWithinAFactorOfTwo) {
  synth::Scenario s;
  s.ranks = 2;
  s.steps = 6;
  std::vector<synth::Manifest> manifests;
  std::string dir = th::testing::TempDir() + "/budget";
  ASSERT_TRUE(synth::WriteKinetoTraces(s, dir, true, &manifests).ok());
  auto runs = DiscoverRuns({dir});
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  int64_t events = manifests[0].events + manifests[1].events;
  double ratio = static_cast<double>(EstimateRunEvents((*runs)[0])) / static_cast<double>(events);
  EXPECT_GT(ratio, 0.5) << EstimateRunEvents((*runs)[0]) << " vs " << events;
  EXPECT_LT(ratio, 2.0) << EstimateRunEvents((*runs)[0]) << " vs " << events;
  EXPECT_EQ(EstimateRunBytes((*runs)[0]),
            kScanRunBaseBytes + EstimateRunEvents((*runs)[0]) * kScanBytesPerEvent);
}

TEST(MemoryBudgetTest, WaitsForMemoryAndRunsAnOversizedRunAlone) {
  MemoryBudget budget(100);
  uint64_t a = budget.Acquire(60);
  EXPECT_EQ(a, 60u);
  std::atomic<bool> got{false};
  std::thread t([&] {
    uint64_t b = budget.Acquire(60);
    got = true;
    budget.Release(b);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(got);  // 40 free: waits
  budget.Release(a);
  t.join();
  EXPECT_TRUE(got);
  // Larger than the budget: takes all of it, once nothing else is held.
  uint64_t small = budget.Acquire(10);
  std::atomic<bool> big_started{false};
  std::thread big([&] {
    uint64_t taken = budget.Acquire(500);
    EXPECT_EQ(taken, 100u);
    big_started = true;
    budget.Release(taken);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(big_started);
  budget.Release(small);
  big.join();
  EXPECT_TRUE(big_started);
}

}  // namespace
}  // namespace th::scan
