// The host call of each correlation id (its lowest row): dense ids (Kineto
// numbers them up from 1) are looked up in an array, sparse ones by binary
// search.
#pragma once

#include <tracehound/sorted_runs.h>

#include <algorithm>
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

 private:
  int64_t base_ = 0;
  std::vector<uint32_t> dense_;
  std::vector<std::pair<int64_t, uint32_t>> sparse_;
};

}  // namespace th::critical_path
