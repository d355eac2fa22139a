// collective_model.h's step lookup: the hinted search against a plain
// binary search, for queries in and out of time order, steps starting
// together included.
#include "collective_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace th::collectives {
namespace {

size_t Reference(const std::vector<th_step>& steps, int64_t ts) {
  auto it = std::upper_bound(steps.begin(), steps.end(), ts,
                             [](int64_t v, const th_step& s) { return v < s.ts; });
  return it == steps.begin() ? kNoSlot : static_cast<size_t>(it - steps.begin()) - 1;
}

std::vector<th_step> Steps() {
  std::vector<th_step> steps;
  for (int64_t ts : {100, 200, 200, 350, 500, 500, 500, 900})
    steps.push_back({static_cast<int64_t>(steps.size()), 0, ts, 50});
  return steps;
}

TEST(LastStepStartingBy, EqualsTheBinarySearchInTimeOrder) {
  const std::vector<th_step> steps = Steps();
  size_t hint = 0;
  for (int64_t ts = 0; ts < 1000; ts += 7) {
    const size_t slot = LastStepStartingBy(steps, ts, hint);
    ASSERT_EQ(slot, Reference(steps, ts)) << ts;
    if (slot != kNoSlot) hint = slot;
  }
}

TEST(LastStepStartingBy, EqualsTheBinarySearchForAnyHint) {
  const std::vector<th_step> steps = Steps();
  std::mt19937_64 rng(7);
  for (int k = 0; k < 2000; ++k) {
    const auto ts = static_cast<int64_t>(rng() % 1100) - 50;
    const size_t hint = rng() % (steps.size() + 2);
    ASSERT_EQ(LastStepStartingBy(steps, ts, hint), Reference(steps, ts)) << ts << " " << hint;
  }
  EXPECT_EQ(LastStepStartingBy({}, 5, 0), kNoSlot);
  EXPECT_EQ(LastStepStartingBy(steps, 500, 4), 6u);  // the last of steps starting together
}

// A name's byte is decided at its first event and reused for every later
// event bearing it, whatever its id's size.
TEST(ByName, DecidesOncePerNameAtItsFirstEvent) {
  ByName by_name;
  std::vector<uint64_t> decided;
  auto decide = [&](uint64_t event) {
    decided.push_back(event);
    return static_cast<uint8_t>(event % 2 + 1);
  };
  EXPECT_EQ(by_name.At(7, 10, decide), 1);
  EXPECT_EQ(by_name.At(7, 11, decide), 1);  // name 7 keeps event 10's byte
  EXPECT_EQ(by_name.At(1000, 13, decide), 2);
  EXPECT_EQ(by_name.At(0, 12, decide), 1);
  EXPECT_EQ(by_name.At(1000, 14, decide), 2);
  EXPECT_EQ(decided, (std::vector<uint64_t>{10, 13, 12}));
}

}  // namespace
}  // namespace th::collectives
