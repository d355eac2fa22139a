// CallByCorrelation: each id's lowest row, dense ids by array, sparse ones by
// search; the cursor form answers as the plain one whatever order the ids
// are asked in (ascending, repeated, going back, absent, past the last).
#include "call_by_correlation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace th::critical_path {
namespace {

TEST(CallByCorrelation, DenseAndSparseIdsGiveTheLowestRow) {
  const CallByCorrelation dense({{5, 10}, {6, 11}, {5, 12}, {8, 13}});
  EXPECT_EQ(dense(5), 10u);
  EXPECT_EQ(dense(6), 11u);
  EXPECT_EQ(dense(7), kNone);
  EXPECT_EQ(dense(4), kNone);
  EXPECT_EQ(dense(9), kNone);
  const CallByCorrelation sparse({{1'000'000'000'000, 3}, {7, 4}, {1'000'000'000'000, 1}});
  EXPECT_EQ(sparse(1'000'000'000'000), 1u);
  EXPECT_EQ(sparse(7), 4u);
  EXPECT_EQ(sparse(8), kNone);
  size_t cursor = 0;
  EXPECT_EQ(sparse(7, &cursor), 4u);
  EXPECT_EQ(sparse(1'000'000'000'000, &cursor), 1u);
  EXPECT_EQ(sparse(7, &cursor), 4u);  // back below the cursor
}

TEST(CallByCorrelation, TheCursorAnswersAsThePlainLookupInAnyOrder) {
  std::mt19937_64 rng(20261205);
  std::vector<std::pair<int64_t, uint32_t>> calls;
  std::vector<int64_t> ids;
  int64_t id = 1;
  for (uint32_t row = 0; row < 20000; ++row) {
    id += 1 + static_cast<int64_t>(rng() % 3) * 1'000'000;  // sparse: gaps of millions
    calls.emplace_back(id, row);
    ids.push_back(id);
  }
  const CallByCorrelation call_of(calls);
  std::vector<int64_t> asked;
  for (int64_t i : ids) {  // about ascending: each id, a neighbour, an absent one
    asked.push_back(i);
    asked.push_back(i + 1);
    if (rng() % 50 == 0) asked.push_back(ids[rng() % ids.size()]);  // back, or far ahead
  }
  asked.push_back(0);
  asked.push_back(id + 5);
  for (int round = 0; round < 2; ++round) {
    size_t cursor = 0;
    for (int64_t c : asked) ASSERT_EQ(call_of(c, &cursor), call_of(c)) << "id " << c;
    std::shuffle(asked.begin(), asked.end(), rng);  // then in random order
  }
}

}  // namespace
}  // namespace th::critical_path
