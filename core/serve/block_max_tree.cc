#include "core/serve/block_max_tree.h"

#include <algorithm>
#include <bit>

namespace th::serve {

BlockMaxTree::BlockMaxTree(std::span<const int64_t> starts, std::span<const int8_t> cls,
                           std::span<const int64_t> ends) {
  const size_t n = cls.size();
  if (n == 0) return;
  const uint32_t blocks = static_cast<uint32_t>((n + kBlockEvents - 1) / kBlockEvents);
  leaves_ = std::bit_ceil(blocks);
  max_class_.assign(2 * size_t{leaves_}, INT8_MIN);
  max_end_.assign(2 * size_t{leaves_}, INT64_MIN);
  block_start_.resize(blocks);
  for (uint32_t b = 0; b < blocks; ++b) block_start_[b] = starts[size_t{b} * kBlockEvents];
  for (size_t p = 0; p < n; ++p) {
    const size_t leaf = leaves_ + p / kBlockEvents;
    max_class_[leaf] = std::max(max_class_[leaf], cls[p]);
    max_end_[leaf] = std::max(max_end_[leaf], ends[p]);
  }
  for (size_t node = leaves_ - 1; node >= 1; --node) {
    max_class_[node] = std::max(max_class_[2 * node], max_class_[2 * node + 1]);
    max_end_[node] = std::max(max_end_[2 * node], max_end_[2 * node + 1]);
  }
}

}  // namespace th::serve
