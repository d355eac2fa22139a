#include "core/graph/trust_table.h"

#include <gtest/gtest.h>

#include "core/graph/string_pool.h"

namespace th {
namespace {

TEST(TrustTable, CountsById) {
  TrustTable t;
  EXPECT_TRUE(t.empty());
  t.Add(TrustId::kTrailingComma);
  t.Add(TrustId::kKernelWithoutLaunch, 2, "first");
  t.Add(TrustId::kKernelWithoutLaunch, 3, "second");
  t.Add(TrustId::kInputTruncated, 0, "never");
  EXPECT_FALSE(t.empty());
  EXPECT_EQ(t.Count(TrustId::kTrailingComma), 1);
  EXPECT_EQ(t.Count(TrustId::kKernelWithoutLaunch), 5);
  EXPECT_EQ(t.Count(TrustId::kInputTruncated), 0);  // n = 0 adds no entry
  EXPECT_EQ(t.Count(TrustId::kCopyWithoutLaunch), 0);
  EXPECT_EQ(t.Entries().size(), 2u);
}

TEST(TrustTable, EntriesTakeNameSeverityAndTextFromTheIdList) {
  TrustTable t;
  t.Add(TrustId::kKernelWithoutLaunch, 2, "stream 7");
  auto entries = t.Entries();
  ASSERT_EQ(entries.size(), 1u);
  const TrustEntry& e = entries[0];
  EXPECT_EQ(e.id, TrustId::kKernelWithoutLaunch);
  EXPECT_EQ(e.name, "kernel_without_launch");
  EXPECT_EQ(e.what, "kernel with no launch event inside the capture window");
  EXPECT_EQ(e.severity, Severity::kDataLoss);
  EXPECT_EQ(e.count, 2);
  EXPECT_EQ(e.example, "stream 7");
}

TEST(TrustTable, KeepsTheFirstExampleAndMakesItPrintable) {
  TrustTable t;
  t.Add(TrustId::kNonFiniteNumber, 1);
  t.Add(TrustId::kNonFiniteNumber, 1,
        "r\xff"
        "ank0.json");
  t.Add(TrustId::kNonFiniteNumber, 1, "later");
  auto entries = t.Entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].example, "r\\xffank0.json");
}

TEST(TrustTable, MergeSumsCountsOfTheSameIdAndKeepsTheFirstExample) {
  TrustTable rank0, rank1;
  rank0.Add(TrustId::kTrailingComma, 2, "rank0.json");
  rank1.Add(TrustId::kTrailingComma, 1, "rank1.json");
  rank1.Add(TrustId::kDuplicateRank, 1, "rank 1: b.json");
  TrustTable all;
  all.Merge(rank0);
  all.Merge(rank1);
  EXPECT_EQ(all.Count(TrustId::kTrailingComma), 3);
  EXPECT_EQ(all.Count(TrustId::kDuplicateRank), 1);
  auto entries = all.Entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].id, TrustId::kTrailingComma);
  EXPECT_EQ(entries[1].example, "rank0.json");
}

TEST(TrustTable, OrdersBySeverityThenByDescription) {
  TrustTable t;
  t.Add(TrustId::kTrailingComma);      // info, "trailing comma ..."
  t.Add(TrustId::kCopyWithoutLaunch);  // info, "memcpy/memset ..."
  t.Add(TrustId::kUnknownPhase);       // data_loss, "event with an unknown phase"
  t.Add(TrustId::kInputTruncated);     // error
  t.Add(TrustId::kEventWithoutPhase);  // data_loss, "event without ph"
  std::vector<TrustId> order;
  for (const TrustEntry& e : t.Entries()) order.push_back(e.id);
  EXPECT_EQ(order, (std::vector<TrustId>{TrustId::kInputTruncated, TrustId::kUnknownPhase,
                                         TrustId::kEventWithoutPhase, TrustId::kCopyWithoutLaunch,
                                         TrustId::kTrailingComma}));
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
