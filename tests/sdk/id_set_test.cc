// IdSet (sdk/include/tracehound/id_set.h): membership as a bitmap and as
// sorted ids.
#include <gtest/gtest.h>
#include <tracehound/id_set.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace th::sdk {
namespace {

IdSet Of(const std::vector<int64_t>& ids) {
  return IdSet::Of([&](auto add) {
    for (int64_t id : ids) add(id);
  });
}

TEST(IdSet, DenseIdsAsABitmap) {
  const IdSet s = Of({105, 107, 109, 200, 107});
  EXPECT_TRUE(s.dense());
  for (int64_t id : {105, 107, 109, 200}) EXPECT_TRUE(s.Contains(id)) << id;
  for (int64_t id : {104, 106, 199, 201, 0, -105}) EXPECT_FALSE(s.Contains(id)) << id;
  EXPECT_FALSE(s.Contains(std::numeric_limits<int64_t>::min()));
  EXPECT_FALSE(s.Contains(std::numeric_limits<int64_t>::max()));
}

TEST(IdSet, SparseIdsSorted) {
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  const IdSet s = Of({int64_t{1} << 50, -(int64_t{1} << 40), 0, hi, lo, 0});
  EXPECT_FALSE(s.dense());
  for (int64_t id : {int64_t{1} << 50, -(int64_t{1} << 40), int64_t{0}, hi, lo})
    EXPECT_TRUE(s.Contains(id)) << id;
  for (int64_t id : {int64_t{1}, int64_t{-1}, hi - 1, lo + 1}) EXPECT_FALSE(s.Contains(id)) << id;
}

TEST(IdSet, EmptyHoldsNothing) {
  const IdSet s = Of({});
  EXPECT_FALSE(s.Contains(0));
  EXPECT_FALSE(s.Contains(std::numeric_limits<int64_t>::min()));
}

}  // namespace
}  // namespace th::sdk
