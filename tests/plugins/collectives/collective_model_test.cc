// collective_model.h: the step lookup (the hinted search against a plain
// binary search, for queries in and out of time order, steps starting
// together included), the per-name byte, and the matching across ranks.
#include "collective_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
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

Instance Gpu(int64_t ts, int64_t stream, std::string name, std::string collective = "allreduce",
             std::string group = "") {
  Instance x;
  x.ts = ts;
  x.end = ts + 10;
  x.lane = stream;
  x.name = std::move(name);
  x.collective = std::move(collective);
  x.group = std::move(group);
  return x;
}

// Ranks match by position: the k-th collective of a process group, else of a
// (stream ordinal, name) or (thread by first use, name); streams with other
// ids on another rank still match by their ordinal. Matches come in the first
// rank's start order, then those only later ranks ran.
TEST(MatchAcrossRanks, MatchesTheKthCollectiveOfEachPosition) {
  Instance gloo0 = Gpu(5, 900, "gloo:all_reduce");
  gloo0.gpu = false;
  Instance gloo1 = gloo0;
  gloo1.lane = 17;  // another tid, the rank's first CPU lane all the same
  const std::vector<std::vector<Instance>> inst = {
      {gloo0, Gpu(10, 7, "nccl_a"), Gpu(20, 7, "nccl_b"), Gpu(30, 7, "nccl_a"),
       Gpu(40, 3, "nccl_a", "allgather", "pg0")},
      {Gpu(11, 13, "nccl_a"), Gpu(12, 2, "nccl_a", "allreduce", "pg0"), gloo1,
       Gpu(31, 13, "nccl_a", "broadcast"), Gpu(32, 13, "nccl_a")}};
  const std::vector<Match> m = MatchAcrossRanks(inst);
  std::vector<std::string> keys;
  for (const Match& x : m) keys.push_back(x.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"thread#0 gloo:all_reduce #0", "stream#0 nccl_a #0",
                                            "stream#0 nccl_b #0", "stream#0 nccl_a #1", "pg pg0 #0",
                                            "stream#0 nccl_a #2"}));
  using Members = std::vector<std::pair<size_t, size_t>>;
  EXPECT_EQ(m[0].members, (Members{{0, 0}, {1, 2}}));
  EXPECT_EQ(m[1].members, (Members{{0, 1}, {1, 0}}));
  EXPECT_EQ(m[2].members, (Members{{0, 2}}));
  EXPECT_EQ(m[3].members, (Members{{0, 3}, {1, 3}}));
  EXPECT_EQ(m[4].members, (Members{{0, 4}, {1, 1}}));
  EXPECT_EQ(m[5].members, (Members{{1, 4}}));
  EXPECT_TRUE(m[3].name_mismatch);  // allreduce on rank 0, broadcast on rank 1
  EXPECT_TRUE(m[4].name_mismatch);  // the group's first: allgather against allreduce
  EXPECT_FALSE(m[1].name_mismatch);
  EXPECT_EQ(m[1].position, m[3].position);  // one text per position, shared
}

}  // namespace
}  // namespace th::collectives
