#include <gtest/gtest.h>
#include <tracehound/format.h>

namespace th::sdk {
namespace {

TEST(SdkFormat, FiguresAsFindingsWriteThem) {
  EXPECT_EQ(Fixed(2.345, 1), "2.3");
  EXPECT_EQ(Fixed(-0.5, 0), "-0");  // printf's rounding, as every plugin had it
  EXPECT_EQ(Percent(12.34), "12.3%");
  EXPECT_EQ(Significant(0.000123456, 2), "0.00012");
  EXPECT_EQ(Significant(1234567.0, 2), "1.2e+06");
  EXPECT_EQ(Millis(1234567), "1.235 ms");
  EXPECT_EQ(Micros(1250), "1.2 us");  // round half to even in binary: 1.25 -> 1.2
  EXPECT_EQ(Micros(1260, "µs"), "1.3 µs");
  EXPECT_EQ(Duration(850), "850 ns");
  EXPECT_EQ(Duration(12345), "12.3 us");
  EXPECT_EQ(Duration(4560000), "4.56 ms");
  EXPECT_EQ(Duration(1234000000), "1.23 s");
  EXPECT_EQ(Bytes(512), "512 B");
  EXPECT_EQ(Bytes(1536), "1.50 KiB");
  EXPECT_EQ(Bytes(-2.0 * 1024 * 1024 * 1024), "-2.00 GiB");
  EXPECT_EQ(Bytes(3.0 * 1024 * 1024 * 1024 * 1024 * 1024), "3072.00 TiB");
}

}  // namespace
}  // namespace th::sdk
