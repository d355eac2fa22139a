// The host call of each correlation id (its lowest row): dense ids (Kineto
// numbers them up from 1) are looked up in an array, sparse ones (traces
// merged or amplified) by binary search, or by galloping from a cursor.
#pragma once

#include <tracehound/sorted_runs.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "cp_graph.h"

namespace th::critical_path {

class CallByCorrelation {
 public:
  // `calls`: (correlation > 0, row), by row.
  explicit CallByCorrelation(std::vector<std::pair<int64_t, uint32_t>> calls) {
    if (calls.empty()) return;
    int64_t lo = calls.front().first, hi = lo;
    for (const auto& [c, row] : calls) {
      lo = std::min(lo, c);
      hi = std::max(hi, c);
    }
    if (static_cast<uint64_t>(hi - lo) < 4 * calls.size() + 1024) {
      base_ = lo;
      dense_.assign(static_cast<size_t>(hi - lo) + 1, kNone);
      for (const auto& [c, row] : calls)
        if (uint32_t& call = dense_[static_cast<size_t>(c - lo)]; call == kNone) call = row;
      return;
    }
    sparse_ = std::move(calls);
    th::sdk::StableSortRuns(sparse_);  // by id, then row
  }
  uint32_t operator()(int64_t c) const {
    if (!dense_.empty())
      return c < base_ || c - base_ >= static_cast<int64_t>(dense_.size())
                 ? kNone
                 : dense_[static_cast<size_t>(c - base_)];
    auto it = std::lower_bound(sparse_.begin(), sparse_.end(), std::make_pair(c, uint32_t{0}));
    return it != sparse_.end() && it->first == c ? it->second : kNone;
  }
  // The same for ids asked in about ascending order (a stream's GPU events by
  // row): `cursor` (0 before the first call, then kept by the caller) is
  // where the last search ended; sparse ids are searched from there by
  // doubling steps, from the start when the id is below it.
  uint32_t operator()(int64_t c, size_t* cursor) const {
    if (!dense_.empty()) return (*this)(c);
    const std::pair<int64_t, uint32_t> key{c, 0};
    const size_t n = sparse_.size();
    // Everything before lo is below key: from the cursor, else from the start.
    size_t lo = std::min(*cursor, n);
    if (lo > 0 && !(sparse_[lo - 1] < key)) lo = 0;
    size_t step = 1;
    while (lo + step < n && sparse_[lo + step - 1] < key) {
      lo += step;
      step *= 2;
    }
    const auto it = std::lower_bound(
        sparse_.begin() + static_cast<std::ptrdiff_t>(lo),
        sparse_.begin() + static_cast<std::ptrdiff_t>(std::min(lo + step, n)), key);
    *cursor = static_cast<size_t>(it - sparse_.begin());
    return it != sparse_.end() && it->first == c ? it->second : kNone;
  }

 private:
  int64_t base_ = 0;
  std::vector<uint32_t> dense_;
  std::vector<std::pair<int64_t, uint32_t>> sparse_;
};

}  // namespace th::critical_path
