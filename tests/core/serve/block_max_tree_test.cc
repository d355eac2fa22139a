// BlockMaxTree against linear scans of its blocks.
#include "core/serve/block_max_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace th::serve {
namespace {

constexpr uint32_t kB = BlockMaxTree::kBlockEvents;

TEST(BlockMaxTreeTest, FindsExactlyTheBlocksAboveAThreshold) {
  std::mt19937_64 rng(1);
  for (size_t n : {size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{1000}, size_t{5000}}) {
    std::vector<int64_t> starts(n), ends(n);
    std::vector<int8_t> cls(n);
    int64_t t = -1000;
    for (size_t p = 0; p < n; ++p) {
      t += static_cast<int64_t>(rng() % 100);
      starts[p] = t;
      cls[p] = static_cast<int8_t>(static_cast<int>(rng() % 64) - 1);
      ends[p] = rng() % 50 == 0 ? INT64_MAX : t + static_cast<int64_t>(rng() % 5000);
    }
    const BlockMaxTree tree(starts, cls, ends);
    const uint32_t blocks = static_cast<uint32_t>((n + kB - 1) / kB);
    for (int q = 0; q < 200; ++q) {
      const uint32_t first = static_cast<uint32_t>(rng() % blocks);
      const uint32_t last = first + static_cast<uint32_t>(rng() % (blocks - first));
      const int c = static_cast<int>(rng() % 64) - 1;
      const int64_t at = starts[rng() % n];
      std::vector<uint32_t> by_class, by_end, want_class, want_end;
      tree.ForBlocksWithClassAtLeast(first, last, c, [&](uint32_t b) { by_class.push_back(b); });
      tree.ForBlocksWithEndAbove(first, last, at, [&](uint32_t b) { by_end.push_back(b); });
      for (uint32_t b = first; b <= last; ++b) {
        const size_t lo = size_t{b} * kB, hi = std::min(n, lo + kB);
        if (*std::max_element(cls.begin() + lo, cls.begin() + hi) >= c) want_class.push_back(b);
        if (*std::max_element(ends.begin() + lo, ends.begin() + hi) > at) want_end.push_back(b);
      }
      EXPECT_EQ(by_class, want_class) << n << " [" << first << ", " << last << "] class " << c;
      EXPECT_EQ(by_end, want_end) << n << " [" << first << ", " << last << "] end > " << at;
      // BlockBefore: the first start >= at lies in that block or starts the next.
      const uint32_t b = tree.BlockBefore(at);
      const size_t want = std::lower_bound(starts.begin(), starts.end(), at) - starts.begin();
      EXPECT_GE(want, size_t{b} * kB);
      EXPECT_LE(want, std::min(n, (size_t{b} + 1) * kB));
    }
  }
}

TEST(BlockMaxTreeTest, EmptyRowFindsNothing) {
  const BlockMaxTree tree({}, {}, {});
  int visits = 0;
  tree.ForBlocksWithClassAtLeast(0, 0, -1, [&](uint32_t) { ++visits; });
  tree.ForBlocksWithEndAbove(0, 0, INT64_MIN, [&](uint32_t) { ++visits; });
  EXPECT_EQ(visits, 0);
  EXPECT_EQ(tree.BlockBefore(0), 0u);
}

}  // namespace
}  // namespace th::serve
