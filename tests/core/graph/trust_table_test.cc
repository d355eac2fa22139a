#include "core/graph/trust_table.h"

#include <gtest/gtest.h>

#include "core/graph/string_pool.h"

namespace th {
namespace {

TEST(TrustTable, CountsMergesAndOrdersBySeverity) {
  TrustTable a;
  a.Add("minor", Severity::kInfo, 2, "first");
  a.Add("minor", Severity::kInfo, 3, "second");
  a.Add("nothing", Severity::kError, 0);
  TrustTable b;
  b.Add("lost", Severity::kDataLoss, 1);
  b.Add("minor", Severity::kInfo, 1);
  a.Merge(b);
  EXPECT_EQ(a.Count("minor"), 6);
  EXPECT_EQ(a.Count("nothing"), 0);
  auto entries = a.Entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].what, "lost");
  EXPECT_EQ(entries[1].example, "first");
  EXPECT_EQ(SeverityName(Severity::kDataLoss), "data_loss");
}

TEST(StringPool, InternsOnce) {
  StringPool pool;
  EXPECT_EQ(pool.Intern(""), kEmptyString);
  StringId a = pool.Intern("aten::mm");
  EXPECT_EQ(pool.Intern(std::string("aten::") + "mm"), a);
  EXPECT_NE(pool.Intern("aten::add"), a);
  EXPECT_EQ(pool.Get(a), "aten::mm");
  EXPECT_EQ(pool.Find("missing"), StringPool::kNotFound);
  EXPECT_EQ(pool.size(), 3u);
}

}  // namespace
}  // namespace th
