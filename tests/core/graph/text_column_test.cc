// TextColumn: values packed with a NUL after each, read back as views and C
// strings, empty values and embedded bytes kept, rows sharing a value,
// compared by what the rows hold.
#include "core/graph/text_column.h"

#include <gtest/gtest.h>

#include <cstring>
#include <iterator>
#include <stdexcept>
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
  EXPECT_EQ(c[3], "a much longer name than a short string holds inline");
  EXPECT_STREQ(c.c_str(0), "compute");
  EXPECT_STREQ(c.c_str(1), "");
  EXPECT_EQ(std::strlen(c.c_str(3)), c[3].size());
  std::vector<std::string> seen;
  for (std::string_view v : c) seen.emplace_back(v);
  EXPECT_EQ(seen, c.ToStrings());
  EXPECT_EQ(std::distance(c.begin(), c.end()), 4);
}

TEST(TextColumn, EqualityAndConstructionFromStrings) {
  const TextColumn a(std::vector<std::string>{"x", "", "yz"}),
      b(std::vector<std::string>{"x", "", "yz"}), c(std::vector<std::string>{"x", "y", "z"});
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a == c);  // the same letters, other values
  EXPECT_EQ(a.ToStrings(), (std::vector<std::string>{"x", "", "yz"}));
  EXPECT_TRUE(TextColumn().empty());
}

TEST(TextColumn, RowsShareAValueAddedOnce) {
  TextColumn shared;
  const uint32_t mm = shared.AddValue("aten::mm");
  const uint32_t empty = shared.AddValue("");
  for (uint32_t v : {mm, empty, mm, mm}) shared.PushRow(v);
  EXPECT_EQ(shared.size(), 4u);
  EXPECT_EQ(shared.value_count(), 2u);
  EXPECT_EQ(shared.ToStrings(), (std::vector<std::string>{"aten::mm", "", "aten::mm", "aten::mm"}));
  EXPECT_STREQ(shared.c_str(3), "aten::mm");
  EXPECT_STREQ(shared.c_str(1), "");
  // The same rows, each value stored apart: equal, since the rows hold the same.
  const TextColumn apart(std::vector<std::string>{"aten::mm", "", "aten::mm", "aten::mm"});
  EXPECT_EQ(apart.value_count(), 4u);
  EXPECT_TRUE(shared == apart);
  EXPECT_THROW(shared.PushRow(2), std::out_of_range);
  EXPECT_EQ(shared.size(), 4u);
}

}  // namespace
}  // namespace th
