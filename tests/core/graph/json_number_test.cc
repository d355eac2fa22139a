#include "core/graph/json_number.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace th {
namespace {

TEST(JsonNumber, IntegralValuesAreWrittenAsIntegers) {
  // The peak issue 15 quoted, written as 1.51822e+11 (318 KB off) by %.6g.
  EXPECT_EQ(JsonNumber(151821681664.0), "151821681664");
  EXPECT_EQ(JsonNumber(1234567891234567.0), "1234567891234567");  // summed ns
  EXPECT_EQ(JsonNumber(1e15), "1000000000000000");
  EXPECT_EQ(JsonNumber(9007199254740992.0), "9007199254740992");  // 2^53
  EXPECT_EQ(JsonNumber(-42.0), "-42");
  EXPECT_EQ(JsonNumber(0.0), "0");
  EXPECT_EQ(JsonNumber(-0.0), "0");
}

TEST(JsonNumber, OtherValuesAreTheShortestTextThatReadsBack) {
  for (double v : {0.1, 1.0 / 3, 97.53, 1e-7, 6.02214076e23, 1e300, -2.5e-300,
                   18014398509481984.0 /* 2^54 */, 12345.678901234567}) {
    std::string text = JsonNumber(v);
    EXPECT_EQ(std::stod(text), v) << text;
    EXPECT_LE(text.size(), 24u) << text;
  }
  EXPECT_EQ(JsonNumber(0.1), "0.1");
  EXPECT_EQ(JsonNumber(97.53), "97.53");
  EXPECT_EQ(JsonNumber(1e-7), "1e-07");
}

TEST(JsonNumber, NonFiniteIsNullInJsonAndNamedElsewhere) {
  EXPECT_EQ(JsonNumber(std::nan("")), "null");
  EXPECT_EQ(JsonNumber(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(ShortestNumber(std::nan("")), "nan");
  EXPECT_EQ(ShortestNumber(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(ShortestNumber(151821681664.0), "151821681664");
}

}  // namespace
}  // namespace th
