// IdColumn: a column of int64 ids (correlation ids, External ids, flow ids)
// stored in 4 bytes per event. Profilers hand these out from 32-bit counters,
// so nearly every value fits; the rare one that does not is kept in a side
// list. Read with operator[] (by value); kNoValue means "absent".
// Stored as value + 1 with 0 for "absent", so a column of absent ids is
// zero pages that cost nothing (PodColumn::grow_zeroed).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/graph/pod_column.h"

namespace th {

class IdColumn {
 public:
  static constexpr int64_t kAbsent = INT64_MIN;  // == kNoValue

  int64_t operator[](size_t i) const {
    const uint32_t v = narrow_[i];
    if (v - 1u < kWide - 1u) return v - 1u;  // 1 .. kWide - 1: a narrow value
    if (v == kNone) return kAbsent;
    auto it = std::lower_bound(wide_.begin(), wide_.end(),
                               std::make_pair(static_cast<uint64_t>(i), INT64_MIN));
    return it->second;
  }
  void push_back(int64_t v) {
    if (v == kAbsent) {
      narrow_.push_back(kNone);
    } else if (Narrow(v)) {
      narrow_.push_back(static_cast<uint32_t>(v) + 1u);
    } else {
      wide_.emplace_back(narrow_.size(), v);
      narrow_.push_back(kWide);
    }
  }
  // Appends `other`, its values passed through `map` (value -> value).
  template <typename Map>
  void AppendMapped(const IdColumn& other, Map&& map) {
    size_t base = narrow_.size();
    for (size_t i = 0; i < other.size(); ++i) {
      int64_t v = map(i, other[i]);
      if (v == kAbsent) {
        narrow_.push_back(kNone);
      } else if (Narrow(v)) {
        narrow_.push_back(static_cast<uint32_t>(v) + 1u);
      } else {
        wide_.emplace_back(base + i, v);
        narrow_.push_back(kWide);
      }
    }
  }
  // Appends values[0, n) (as push_back would, in one pass). When present
  // values are sparse (under one in 16), absent ones are not written: runs of
  // them stay untouched zero pages. Denser values touch every page anyway, so
  // all are written, onto pages the column fills ahead in one call instead of
  // a fault per page.
  void AppendValues(const int64_t* values, size_t n) {
    const size_t base = narrow_.size();
    size_t present = 0;
    for (size_t i = 0; i < n; ++i) present += values[i] != kAbsent;
    const bool dense = present * 16 >= n;
    uint32_t* out = dense ? narrow_.grow_uninitialized(n) : narrow_.grow_zeroed(n);
    for (size_t i = 0; i < n; ++i) {
      const int64_t v = values[i];
      if (v == kAbsent) {
        if (dense) out[i] = kNone;
        continue;
      }
      if (Narrow(v)) {
        out[i] = static_cast<uint32_t>(v) + 1u;
      } else {
        wide_.emplace_back(base + i, v);
        out[i] = kWide;
      }
    }
  }
  // Appends n absent values (untouched zero pages in a big column).
  void AppendAbsent(size_t n) { narrow_.grow_zeroed(n); }
  void reserve(size_t n) { narrow_.reserve(n); }
  void Append(const IdColumn& other) {
    size_t base = narrow_.size();
    narrow_.append(other.narrow_.data(), other.narrow_.size());
    for (const auto& [row, v] : other.wide_) wide_.emplace_back(base + row, v);
  }
  size_t size() const { return narrow_.size(); }
  size_t bytes() const { return narrow_.bytes() + wide_.size() * sizeof(wide_[0]); }
  void clear() {
    narrow_.clear();
    wide_.clear();
  }

 private:
  static constexpr uint32_t kNone = 0;            // absent
  static constexpr uint32_t kWide = 0xFFFFFFFFu;  // the value is in wide_
  // Values stored in 4 bytes: 0 .. kWide - 2 (as value + 1).
  static bool Narrow(int64_t v) { return v >= 0 && v < int64_t{kWide} - 1; }
  PodColumn<uint32_t> narrow_;
  std::vector<std::pair<uint64_t, int64_t>> wide_;  // (row, value), rows ascending
};

}  // namespace th
