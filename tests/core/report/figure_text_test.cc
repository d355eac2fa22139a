// Figures as the terminal and Markdown reports print them: integers whole,
// times with a unit, rates with an SI prefix, never an exponent.
#include "core/report/figure_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace th {
namespace {

TEST(FigureText, IntegersKeepEveryDigit) {
  EXPECT_EQ(NumberText(0), "0");
  EXPECT_EQ(NumberText(-0.0), "0");
  EXPECT_EQ(NumberText(42), "42");
  EXPECT_EQ(NumberText(151821681664), "151821681664");
  EXPECT_EQ(NumberText(-3e15), "-3000000000000000");
  EXPECT_EQ(FigureText(140784353391, "FLOP"), "140784353391 FLOP");  // not exact as 140.8 G
  EXPECT_EQ(FigureText(7, "count"), "7");
}

TEST(FigureText, FractionsHaveFourSignificantDigitsWithoutExponent) {
  EXPECT_EQ(NumberText(0.03646), "0.03646");
  EXPECT_EQ(NumberText(5.3), "5.3");
  EXPECT_EQ(NumberText(379.44), "379.4");
  EXPECT_EQ(NumberText(0.99996), "1");
  EXPECT_EQ(NumberText(0.00001234567), "0.00001235");
  EXPECT_EQ(NumberText(-0.0001), "-0.0001");
  EXPECT_EQ(NumberText(12345.6), "12346");  // was 1.235e+04
  EXPECT_EQ(NumberText(9999.5), "10000");   // was 1e+04
  EXPECT_EQ(NumberText(2.5e19), "25000000000000000000");
  EXPECT_EQ(NumberText(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(NumberText(std::nan("")), "nan");
  for (double v : {1e-300, 3.3e-7, 4.767e13, 1.5e300, -2.2e-12})
    EXPECT_EQ(NumberText(v).find('e'), std::string::npos) << v;
}

TEST(FigureText, RatesAndAmountsTakeAnSiPrefix) {
  EXPECT_EQ(FigureText(4.767e13 + 0.5, "FLOP/s"), "47.67 TFLOP/s");
  EXPECT_EQ(FigureText(1.2567e11 + 0.25, "B/s"), "125.7 GB/s");
  EXPECT_EQ(FigureText(1.3069e15 + 0.5, "FLOP/s"), "1.307 PFLOP/s");
  EXPECT_EQ(FigureText(999999.5, "B/s"), "1 MB/s");  // rounds into the next prefix
  EXPECT_EQ(FigureText(12345.5, "B"), "12.35 kB");
  // Integral: the prefix only where it loses no digit.
  EXPECT_EQ(FigureText(5.3e12, "B/s"), "5.3 TB/s");
  EXPECT_EQ(FigureText(989400000000000, "FLOP/s"), "989.4 TFLOP/s");
  EXPECT_EQ(FigureText(2475914428416, "FLOP"), "2475914428416 FLOP");
  EXPECT_EQ(FigureText(12000, "B"), "12 kB");
  EXPECT_EQ(FigureText(12001, "B"), "12001 B");
  EXPECT_EQ(FigureText(2e18, "B"), "2000000000000000000 B");
  EXPECT_EQ(FigureText(379.4, "FLOP/B"), "379.4 FLOP/B");
  EXPECT_EQ(FigureText(123456.7, "ratio"), "123457 ratio");
}

TEST(FigureText, NanosecondsReadAsTime) {
  EXPECT_EQ(FigureText(1164000, "ns"), "1.164 ms");
  EXPECT_EQ(FigureText(959007, "ns"), "959.007 us");
  EXPECT_EQ(FigureText(12, "ns"), "12 ns");
  EXPECT_EQ(FigureText(92486000000, "ns"), "92.486 s");
}

}  // namespace
}  // namespace th
