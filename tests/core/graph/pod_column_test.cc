#include "core/graph/pod_column.h"

#include <gtest/gtest.h>

#include <cstdint>

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

}  // namespace
}  // namespace th
