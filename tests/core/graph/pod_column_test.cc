#include "core/graph/pod_column.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>

namespace th {
namespace {

TEST(PodColumn, AssignZerosGivesZeroValuesThatGrowAndChange) {
  for (size_t n : {size_t{0}, size_t{3}, size_t{5'000'000}}) {  // a small and a mapped block
    PodColumn<int32_t> c;
    c.push_back(7);
    c.assign_zeros(n);
    ASSERT_EQ(c.size(), n);
    for (size_t i = 0; i < n; i += 4093) ASSERT_EQ(c[i], 0) << i;
    if (n) {
      EXPECT_EQ(c[n - 1], 0);
    }
    c.push_back(9);  // grows past the zero block
    const int32_t more[] = {0, 5};
    c.append(more, 2);
    ASSERT_EQ(c.size(), n + 3);
    EXPECT_EQ(c[n], 9);
    if (n) {
      c[n / 2] = 4;
      EXPECT_EQ(c[n / 2], 4);
      EXPECT_EQ(c[n + 1], 0);
    }
  }
}

// Values written, cut back, cleared or left by shrink_zeroed never show
// through grow_zeroed, on the heap and in a mapping (and across the move
// from one to the other).
TEST(PodColumn, GrowZeroedIsZeroWhateverWasWrittenBefore) {
  for (size_t n : {size_t{100}, size_t{3'000'000}}) {
    PodColumn<int64_t> c;
    std::fill_n(c.grow_uninitialized(n), n, int64_t{-1});
    c.resize(n / 2);
    int64_t* z = c.grow_zeroed(n);  // half over written values, half past them
    ASSERT_EQ(c.size(), n / 2 + n);
    for (size_t i = 0; i < n; i += 997) ASSERT_EQ(z[i], 0) << n << " " << i;
    EXPECT_EQ(c[n / 2 + n - 1], 0);
    EXPECT_EQ(c[n / 2 - 1], -1);  // values before the growth are kept
    c[n] = 5;                     // written past what shrink_zeroed keeps
    c.resize(n + 1);
    c.grow_zeroed(3);
    EXPECT_EQ(c[n], 5);
    EXPECT_EQ(c[n + 1], 0);
    z = c.grow_zeroed(10);
    z[2] = 8;
    c.shrink_zeroed(c.size() - 7);  // keeps the 8, the rest stayed zero
    z = c.grow_zeroed(10);
    for (int i = 0; i < 10; ++i) EXPECT_EQ(z[i], 0) << i;
    EXPECT_EQ(c[c.size() - 11], 8);
    c.clear();
    z = c.grow_zeroed(n);
    for (size_t i = 0; i < n; i += 997) ASSERT_EQ(z[i], 0) << i;
  }
}

TEST(PodColumn, MappedBlockShrinksToTheHeapKeepingValues) {
  PodColumn<int32_t> c;
  for (int32_t i = 0; i < 1'000'000; ++i) c.push_back(i);  // mapped (4 MB)
  c.resize(10);
  c.shrink_to_fit();  // back to a heap block
  ASSERT_EQ(c.size(), 10u);
  for (int32_t i = 0; i < 10; ++i) EXPECT_EQ(c[i], i);
  c.push_back(77);
  EXPECT_EQ(c[10], 77);
  PodColumn<int32_t> moved(std::move(c));
  EXPECT_EQ(moved[10], 77);
  EXPECT_TRUE(c.empty());
}

long ResidentPages() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident;
}

// What grow_zeroed is for: zero values of a big column cost no memory until
// one is written.
TEST(PodColumn, GrowZeroedLeavesAMappingUntouched) {
  const long page = sysconf(_SC_PAGESIZE);
  PodColumn<uint32_t> c;
  c.reserve(size_t{64} << 20);  // 256 MB of address space
  const long before = ResidentPages();
  uint32_t* z = c.grow_zeroed(size_t{64} << 20);
  z[12345678] = 1;  // one page
  const long grown = (ResidentPages() - before) * page;
  EXPECT_LT(grown, 16L << 20) << "grow_zeroed touched " << grown << " bytes";
  EXPECT_EQ(c[12345678], 1u);
  EXPECT_EQ(c[(size_t{64} << 20) - 1], 0u);
}

}  // namespace
}  // namespace th
