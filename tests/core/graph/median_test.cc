#include "core/graph/median.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace th {
namespace {

TEST(Median, OfAnOddCountIsTheMiddleValue) {
  EXPECT_EQ(Median<int64_t>({9, 1, 5}, EvenMedian::kUpperMiddle), 5);
  EXPECT_EQ(Median<double>({9, 1, 5}, EvenMedian::kMeanOfMiddles), 5.0);
}

TEST(Median, OfAnEvenCountIsTheUpperMiddleOrTheMeanOfBoth) {
  EXPECT_EQ(Median<int64_t>({40, 10, 30, 20}, EvenMedian::kUpperMiddle), 30);
  EXPECT_EQ(Median<double>({40, 10, 30, 20}, EvenMedian::kMeanOfMiddles), 25.0);
  EXPECT_EQ(Median<double>({2, 1}, EvenMedian::kMeanOfMiddles), 1.5);
}

TEST(Median, OfNoValuesIsZero) {
  EXPECT_EQ(Median<int64_t>({}, EvenMedian::kUpperMiddle), 0);
  EXPECT_EQ(Median<double>({}, EvenMedian::kMeanOfMiddles), 0.0);
}

}  // namespace
}  // namespace th
