#include "core/graph/id_column.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/graph/event_graph.h"
#include "core/graph/id_index.h"

namespace th {
namespace {

TEST(IdColumn, StoresNarrowWideAndAbsentValues) {
  IdColumn c;
  const int64_t values[] = {0, 7, kNoValue, 0xFFFFFFFDLL, 0xFFFFFFFELL, -5, INT64_MAX, 42};
  for (int64_t v : values) c.push_back(v);
  ASSERT_EQ(c.size(), std::size(values));
  for (size_t i = 0; i < c.size(); ++i) EXPECT_EQ(c[i], values[i]) << i;
  // Narrow values cost 4 bytes; only the three wide ones take more.
  EXPECT_EQ(c.bytes(), 8 * 4 + 3 * 16);

  IdColumn d;
  d.push_back(1);
  d.Append(c);
  EXPECT_EQ(d[1 + 5], -5);
  EXPECT_EQ(d[1 + 6], INT64_MAX);
  IdColumn m;
  m.AppendMapped(c, [](size_t i, int64_t v) { return i == 1 ? v * 1000000000000LL : v; });
  EXPECT_EQ(m[1], 7000000000000LL);
  EXPECT_EQ(m[2], kNoValue);
}

TEST(IdColumn, BulkAppendsMatchPushBack) {
  const int64_t values[] = {0, 7, kNoValue, 0xFFFFFFFDLL, 0xFFFFFFFELL, -5, INT64_MAX, 42};
  IdColumn one_by_one, bulk;
  one_by_one.push_back(-9);  // a wide value before: rows of later wide values are offset
  bulk.push_back(-9);
  for (int64_t v : values) one_by_one.push_back(v);
  for (int i = 0; i < 3; ++i) one_by_one.push_back(kNoValue);
  bulk.AppendValues(values, std::size(values));
  bulk.AppendAbsent(3);
  bulk.AppendValues(values, 0);
  ASSERT_EQ(bulk.size(), one_by_one.size());
  for (size_t i = 0; i < bulk.size(); ++i) EXPECT_EQ(bulk[i], one_by_one[i]) << i;
  EXPECT_EQ(bulk.bytes(), one_by_one.bytes());
}

// AppendValues writes dense batches whole and sparse ones (under one present
// value in 16) only where a value is present: both read as push_back's, also
// over memory that held other values before.
TEST(IdColumn, DenseAndSparseBulkAppendsMatchPushBackOverReusedMemory) {
  constexpr size_t kRows = 300'000;
  for (size_t every : {size_t{1}, size_t{3}, size_t{15}, size_t{17}, size_t{1000}}) {
    std::vector<int64_t> values(kRows, kNoValue);
    for (size_t i = 0; i < kRows; i += every) values[i] = static_cast<int64_t>(i * 5);
    values[kRows / 2] = -3;  // a wide one
    IdColumn one_by_one, bulk;
    for (size_t i = 0; i < kRows; ++i) bulk.push_back(static_cast<int64_t>(i) + 1);
    bulk.clear();  // the memory keeps its old values
    for (int64_t v : values) one_by_one.push_back(v);
    for (size_t at = 0; at < kRows; at += 4096)
      bulk.AppendValues(values.data() + at, std::min<size_t>(4096, kRows - at));
    ASSERT_EQ(bulk.size(), one_by_one.size());
    for (size_t i = 0; i < kRows; ++i)
      ASSERT_EQ(bulk[i], one_by_one[i]) << "every " << every << " row " << i;
  }
}

// Absent ids are stored as zero and left unwritten: a reused column must
// still read them as absent.
TEST(IdColumn, AbsentAfterReuseOfTheSameMemory) {
  const int64_t values[] = {3, kNoValue, 0, 9, kNoValue};
  for (size_t n : {size_t{50}, size_t{2'000'000}}) {
    IdColumn c;
    for (size_t i = 0; i < n; ++i) c.push_back(static_cast<int64_t>(i));
    c.clear();
    c.AppendAbsent(n / 2);
    for (size_t i = 0; i < n / 2; ++i) ASSERT_EQ(c[i], kNoValue) << i;
    c.AppendValues(values, std::size(values));
    for (size_t i = 0; i < std::size(values); ++i) EXPECT_EQ(c[n / 2 + i], values[i]) << i;
  }
}

TEST(IdIndex, DenseAndSparseAgreeAndFirstWins) {
  // Strides give the dense, ranked and hashed layouts.
  for (int64_t stride : {1, 7, 1000003}) {
    std::vector<std::pair<int64_t, EventId>> pairs;
    for (EventId e = 0; e < 5000; ++e) pairs.emplace_back(100 + (e % 4000) * stride, e);
    IdIndex index = IdIndex::Build([&](auto&& visit) {
      for (auto& [id, ev] : pairs) visit(id, ev);
    });
    for (EventId e = 0; e < 4000; ++e) EXPECT_EQ(index.Find(100 + e * stride), e);
    EXPECT_EQ(index.Find(99), kNoRow);
    EXPECT_EQ(index.Find(100 + 4000 * stride), kNoRow);
    EXPECT_EQ(index.Find(-7), kNoRow);
  }
  IdIndex empty = IdIndex::Build([](auto&&) {});
  EXPECT_EQ(empty.Find(0), kNoRow);
}

}  // namespace
}  // namespace th
