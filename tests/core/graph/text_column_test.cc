// TextColumn: values packed with a NUL after each, read back as views and C
// strings, empty values and embedded bytes kept, compared with vectors.
#include "core/graph/text_column.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace th {
namespace {

TEST(TextColumn, ValuesReadBackAsViewsAndCStrings) {
  TextColumn c;
  c.reserve(4, 16);
  c.push_back("compute");
  c.push_back("");
  c.push_back(std::string_view("a\0b", 3));  // an embedded NUL stays in the view
  c.push_back("a much longer name than a short string holds inline");
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0], "compute");
  EXPECT_EQ(c[1], "");
  EXPECT_EQ(c[2], std::string_view("a\0b", 3));
  EXPECT_EQ(c.back(), "a much longer name than a short string holds inline");
  EXPECT_STREQ(c.c_str(0), "compute");
  EXPECT_STREQ(c.c_str(1), "");
  EXPECT_EQ(std::strlen(c.c_str(3)), c[3].size());
  EXPECT_EQ(c.bytes(), 7u + 0 + 3 + c[3].size());
  std::vector<std::string> seen;
  for (std::string_view v : c) seen.emplace_back(v);
  EXPECT_EQ(seen, c.ToStrings());
  EXPECT_EQ(c.end() - c.begin(), 4);
}

TEST(TextColumn, EqualityAndConstructionFromStrings) {
  const std::vector<std::string> owned = {"x", "", "yz"};
  const TextColumn a(owned), b{"x", "", "yz"}, c{"x", "y", "z"};
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(a == owned);
  EXPECT_FALSE(a == c);  // same bytes, other boundaries
  EXPECT_FALSE(c == owned);
  EXPECT_EQ(TextColumn(3, "measured").ToStrings(), std::vector<std::string>(3, "measured"));
  EXPECT_TRUE(TextColumn().empty());
}

}  // namespace
}  // namespace th
