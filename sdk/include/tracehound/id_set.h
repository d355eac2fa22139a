// A set of int64 ids (correlation ids, external ids) for membership tests,
// without a node per id: a bitmap over [min, max] when the ids are dense
// (at most 4 bytes per id), else the ids sorted (8 bytes per id).
#ifndef TRACEHOUND_ID_SET_H_
#define TRACEHOUND_ID_SET_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace th::sdk {

class IdSet {
 public:
  // The ids that each(add) passes to add(id); each is called twice (bounds,
  // then the ids) and must pass the same ids both times.
  template <typename Each>
  static IdSet Of(Each each) {
    IdSet s;
    uint64_t count = 0;
    int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
    each([&](int64_t id) {
      ++count;
      lo = std::min(lo, id);
      hi = std::max(hi, id);
    });
    if (count == 0) return s;
    s.lo_ = lo;
    s.span_ = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    if (s.span_ / 32 <= count) {
      s.bits_.assign(s.span_ / 64 + 1, 0);
      each([&](int64_t id) {
        const uint64_t k = static_cast<uint64_t>(id) - static_cast<uint64_t>(s.lo_);
        s.bits_[k / 64] |= uint64_t{1} << (k % 64);
      });
    } else {
      s.sorted_.reserve(count);
      each([&](int64_t id) { s.sorted_.push_back(id); });
      std::sort(s.sorted_.begin(), s.sorted_.end());
      s.sorted_.erase(std::unique(s.sorted_.begin(), s.sorted_.end()), s.sorted_.end());
      s.sorted_.shrink_to_fit();
    }
    return s;
  }

  bool Contains(int64_t id) const {
    if (!bits_.empty()) {
      const uint64_t k = static_cast<uint64_t>(id) - static_cast<uint64_t>(lo_);
      return k <= span_ && ((bits_[k / 64] >> (k % 64)) & 1) != 0;
    }
    return std::binary_search(sorted_.begin(), sorted_.end(), id);
  }
  // Whether the ids are held as a bitmap (dense) rather than sorted.
  bool dense() const { return !bits_.empty(); }

 private:
  int64_t lo_ = 0;
  uint64_t span_ = 0;  // max - min
  std::vector<uint64_t> bits_;
  std::vector<int64_t> sorted_;
};

}  // namespace th::sdk

#endif  // TRACEHOUND_ID_SET_H_
