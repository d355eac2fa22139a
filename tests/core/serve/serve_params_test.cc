// Query parameters: plain decimal integers only, ranges, defaults, and row
// lists; every error names its parameter.
#include "core/serve/serve_params.h"

#include <gtest/gtest.h>

namespace th::serve {
namespace {

TEST(ServeParamsTest, ParsesPlainDecimalOnly) {
  EXPECT_EQ(ParseInt64("0"), 0);
  EXPECT_EQ(ParseInt64("-42"), -42);
  EXPECT_EQ(ParseInt64("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(ParseInt64("-9223372036854775808"), INT64_MIN);
  for (const char* bad :
       {"", "-", "+1", "1e3", "0x10", " 1", "1 ", "9223372036854775808", "1.0", "../1"})
    EXPECT_FALSE(ParseInt64(bad)) << bad;
}

TEST(ServeParamsTest, IntParamChecksRangeAndNamesTheParameter) {
  QueryParams p{{"width", "3840"}, {"bad", "x"}, {"neg", "-5"}};
  EXPECT_EQ(IntParam(p, "width", 1, 32768).value(), 3840);
  auto missing = IntParam(p, "t0", INT64_MIN, INT64_MAX);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "t0: missing");
  EXPECT_EQ(IntParam(p, "limit", 0, 10, 7).value(), 7);
  auto bad = IntParam(p, "bad", 0, 10);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("bad: ", 0), 0u);
  auto neg = IntParam(p, "neg", 1, 10);
  ASSERT_FALSE(neg.ok());
  EXPECT_EQ(neg.status().message(), "neg: must be in 1..10");
}

TEST(ServeParamsTest, RowsAreAllOrAListOfExistingRows) {
  EXPECT_EQ(RowsParam({}, 3).value(), (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(RowsParam({{"rows", "all"}}, 2).value(), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(RowsParam({{"rows", "2,0"}}, 3).value(), (std::vector<uint32_t>{2, 0}));
  for (const char* bad : {"3", "-1", "1,,2", "", "1,", "a", "/etc/passwd"}) {
    auto r = RowsParam({{"rows", bad}}, 3);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message().rfind("rows: ", 0), 0u) << bad;
  }
}

}  // namespace
}  // namespace th::serve
