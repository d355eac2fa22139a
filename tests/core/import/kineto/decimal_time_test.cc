#include "core/import/kineto/decimal_time.h"

#include <gtest/gtest.h>

#include <string>

namespace th::kineto {
namespace {

TEST(MicrosToNs, KinetoThreeDecimals) {
  DecimalNs d = MicrosToNs("7889238123456.789");
  ASSERT_TRUE(d.ok);
  EXPECT_EQ(d.ns, 7889238123456789LL);
  EXPECT_FALSE(d.rounded);
}

TEST(MicrosToNs, AbsoluteEpochMicrosKeepsEveryDigit) {
  // 19 significant digits: a double would lose the last ones.
  DecimalNs d = MicrosToNs("1661938466240491.123");
  ASSERT_TRUE(d.ok);
  EXPECT_EQ(d.ns, 1661938466240491123LL);
  EXPECT_NE(static_cast<int64_t>(1661938466240491.123 * 1000), d.ns);
}

TEST(MicrosToNs, IntegersNegativesAndExponents) {
  EXPECT_EQ(MicrosToNs("42").ns, 42000);
  EXPECT_EQ(MicrosToNs("-1.5").ns, -1500);
  EXPECT_EQ(MicrosToNs("1.5e3").ns, 1500000);
  EXPECT_EQ(MicrosToNs("25E-3").ns, 25);
  EXPECT_EQ(MicrosToNs("0").ns, 0);
  EXPECT_TRUE(MicrosToNs("12.5  \n").ok);
}

TEST(MicrosToNs, SubNanosecondDigitsRoundHalfToEven) {
  DecimalNs a = MicrosToNs("1.0005");  // 1000.5 ns -> 1000
  EXPECT_EQ(a.ns, 1000);
  EXPECT_TRUE(a.rounded);
  EXPECT_EQ(MicrosToNs("1.0015").ns, 1002);  // 1001.5 -> 1002
  EXPECT_EQ(MicrosToNs("1.00151").ns, 1002);
  EXPECT_EQ(MicrosToNs("1.0004999").ns, 1000);
  EXPECT_EQ(MicrosToNs("0.0005000001").ns, 1);  // above half
}

TEST(MicrosToNs, XprofTiesRoundAwayFromZero) {
  constexpr NsRounding kAway = NsRounding::kHalfAwayFromZero;
  EXPECT_EQ(MicrosToNs("0.0025", kAway).ns, 3);  // 2.5 ns: like (ps + 500) / 1000
  EXPECT_EQ(MicrosToNs("0.0025").ns, 2);
  EXPECT_EQ(MicrosToNs("-0.0025", kAway).ns, -3);
  EXPECT_EQ(MicrosToNs("5439011.7445", kAway).ns, 5439011745);
  EXPECT_EQ(MicrosToNs("5439011.7444999998", kAway).ns, 5439011744);  // "%.17g" below the tie
  DecimalNs tiny = MicrosToNs("9.9999999999999995e-07", kAway);       // TSL's 1 ps
  EXPECT_TRUE(tiny.ok);
  EXPECT_TRUE(tiny.rounded);
  EXPECT_EQ(tiny.ns, 0);
  // Far below a ns, with more digits than the accumulator keeps.
  DecimalNs deep =
      MicrosToNs("0." + std::string(45, '0') + "123456789012345678901234567890123456789");
  EXPECT_TRUE(deep.ok);
  EXPECT_EQ(deep.ns, 0);
  EXPECT_TRUE(deep.rounded);
  DecimalNs edge = MicrosToNs("0.000000" + std::string(36, '9'));  // 10^-39 scale
  EXPECT_TRUE(edge.ok);
  EXPECT_EQ(edge.ns, 0);
}

TEST(MicrosToNs, RejectsWhatIsNotANumber) {
  for (const char* bad : {"", "\"12\"", "null", "true", "1.", ".5", "1e", "12a", "-", "NaN"}) {
    EXPECT_FALSE(MicrosToNs(bad).ok) << bad;
  }
}

TEST(MicrosToNs, RejectsOverflow) {
  EXPECT_FALSE(MicrosToNs("99999999999999999999").ok);
  EXPECT_TRUE(MicrosToNs("9223372036854775.807").ok);
  EXPECT_FALSE(MicrosToNs("9223372036854775.808").ok);
}

}  // namespace
}  // namespace th::kineto
