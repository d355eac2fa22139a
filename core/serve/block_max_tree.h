// BlockMaxTree: over a row's events in time order, cut into blocks of
// kBlockEvents positions, the largest duration class and the largest end
// (saturated to int64) of each block, in an implicit binary tree. It finds the
// blocks of a range that hold a class >= c, or an end > t, in
// O((blocks found + 1) * log(blocks)) without looking at the others. It also
// keeps each block's first start, so that a time is found among the blocks
// in a small array before the events themselves are read.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/serve/lod_levels.h"

namespace th::serve {

class BlockMaxTree {
 public:
  static constexpr uint32_t kBlockEvents = 64;

  BlockMaxTree() = default;
  // starts[p], cls[p], ends[p]: start, class and saturated end of position p.
  BlockMaxTree(std::span<const int64_t> starts, std::span<const int8_t> cls,
               std::span<const int64_t> ends);
  // From stored nodes (deserialization): `leaves` a power of two, both vectors
  // of 2 * leaves nodes (node 1 the root, node leaves + b block b), one first
  // start per block.
  BlockMaxTree(uint32_t leaves, std::vector<int8_t> max_class, std::vector<int64_t> max_end,
               std::vector<int64_t> block_start)
      : leaves_(leaves),
        max_class_(std::move(max_class)),
        max_end_(std::move(max_end)),
        block_start_(std::move(block_start)) {}

  // The block where the first start >= t may lie: the last block whose first
  // start is < t (0 if none); the answer is in it or is the next block's first position.
  uint32_t BlockBefore(Int128 t) const {
    uint32_t lo = 0,
             hi = static_cast<uint32_t>(block_start_.size());  // first block with start >= t
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo) / 2;
      if (static_cast<Int128>(block_start_[mid]) < t)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo == 0 ? 0 : lo - 1;
  }

  // visit(block) in ascending order, for the blocks in [first, last] whose
  // largest class is >= min_class.
  template <typename Visit>
  void ForBlocksWithClassAtLeast(uint32_t first, uint32_t last, int min_class,
                                 Visit&& visit) const {
    if (leaves_ == 0) return;
    Descend(
        1, 0, leaves_ - 1, first, last,
        [&](uint32_t node) { return max_class_[node] >= min_class; }, visit);
  }
  // visit(block) in ascending order, for the blocks in [first, last] whose
  // largest end may be > t (MayEndAfter: a saturated end always may).
  template <typename Visit>
  void ForBlocksWithEndAbove(uint32_t first, uint32_t last, Int128 t, Visit&& visit) const {
    if (leaves_ == 0) return;
    Descend(
        1, 0, leaves_ - 1, first, last,
        [&](uint32_t node) { return MayEndAfter(max_end_[node], t); }, visit);
  }

  uint32_t leaves() const { return leaves_; }
  const std::vector<int8_t>& max_class() const { return max_class_; }
  const std::vector<int64_t>& max_end() const { return max_end_; }
  const std::vector<int64_t>& block_start() const { return block_start_; }
  size_t bytes() const {
    return max_class_.capacity() +
           (max_end_.capacity() + block_start_.capacity()) * sizeof(int64_t);
  }

 private:
  template <typename Keep, typename Visit>
  void Descend(uint32_t node, uint32_t lo, uint32_t hi, uint32_t first, uint32_t last, Keep&& keep,
               Visit&& visit) const {
    if (hi < first || lo > last || !keep(node)) return;
    if (lo == hi) {
      visit(lo);
      return;
    }
    const uint32_t mid = lo + (hi - lo) / 2;
    Descend(2 * node, lo, mid, first, last, keep, visit);
    Descend(2 * node + 1, mid + 1, hi, first, last, keep, visit);
  }

  uint32_t leaves_ = 0;
  std::vector<int8_t> max_class_;
  std::vector<int64_t> max_end_;
  std::vector<int64_t> block_start_;
};

}  // namespace th::serve
