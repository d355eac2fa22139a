// CopyTextColumn: rows that point at one text share one value, in runs or
// apart; NULL reads as ""; a column whose rows share nothing is copied as it comes, with the same
// values.
#include "core/plugin/text_column_copy.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace th {
namespace {

TEST(CopyTextColumn, RowsPointingAtOneTextShareItsValue) {
  const char* compute = "compute";
  const char* host = "host";
  std::string same_letters = "compute";  // equal text at another address: a value of its own
  const std::vector<const char*> rows{
      compute, host, compute, nullptr, compute, same_letters.c_str(), host};
  const TextColumn c = CopyTextColumn(rows.data(), rows.size());
  EXPECT_EQ(c.ToStrings(), (std::vector<std::string>{"compute", "host", "compute", "", "compute",
                                                     "compute", "host"}));
  EXPECT_EQ(c.value_count(), 4u);  // compute, host, "", the copy's compute
  EXPECT_STREQ(c.c_str(3), "");
}

TEST(CopyTextColumn, RunsOfOneAddressKeepTheirValue) {
  // Runs (the previous row's value is reused) of texts, of NULL, and a text
  // coming back after others.
  const char* host = "host";
  const char* idle = "idle";
  const std::vector<const char*> rows{host, host, host, nullptr, nullptr,
                                      idle, idle, host, nullptr};
  const TextColumn c = CopyTextColumn(rows.data(), rows.size());
  EXPECT_EQ(c.ToStrings(),
            (std::vector<std::string>{"host", "host", "host", "", "", "idle", "idle", "host", ""}));
  EXPECT_EQ(c.value_count(), 3u);
}

TEST(CopyTextColumn, ManyRowsOfFewNamesCostAValueEach) {
  const std::vector<std::string> names{"aten::mm", "cudaLaunchKernel", "sm90_xmma_gemm"};
  std::vector<const char*> rows;
  for (int i = 0; i < 100000; ++i) rows.push_back(names[i % 3].c_str());
  const TextColumn c = CopyTextColumn(rows.data(), rows.size());
  ASSERT_EQ(c.size(), rows.size());
  EXPECT_EQ(c.value_count(), 3u);
  for (size_t i = 0; i < rows.size(); i += 7919) EXPECT_EQ(c[i], names[i % 3]);
}

TEST(CopyTextColumn, RowsOfTheirOwnAreCopiedWithTheSameValues) {
  std::vector<std::string> texts;
  for (int i = 0; i < 20000; ++i) texts.push_back("row " + std::to_string(i));
  std::vector<const char*> rows;
  for (const std::string& t : texts) rows.push_back(t.c_str());
  rows.push_back(texts[0].c_str());  // past the probe: copied again, not looked up
  const TextColumn c = CopyTextColumn(rows.data(), rows.size());
  ASSERT_EQ(c.size(), rows.size());
  for (size_t i = 0; i < texts.size(); ++i) ASSERT_EQ(c[i], texts[i]) << i;
  EXPECT_EQ(c[texts.size()], "row 0");
  EXPECT_EQ(c.value_count(), rows.size());
}

TEST(CopyTextColumn, NoRows) { EXPECT_TRUE(CopyTextColumn(nullptr, 0).empty()); }

}  // namespace
}  // namespace th
