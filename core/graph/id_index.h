// IdIndex: int64 id -> EventId for the joins of import (correlation ids, flow
// ids). Profilers hand out these ids from counters, so they are dense or
// moderately sparse. Three layouts, chosen from the id span:
//   dense   (span <= 2 x count):  an array over [min, max];
//   ranked  (span <= 64 x count): a bitmap of present ids with per-word rank
//            counts and one EventId per present id (<= 1.5 bytes + 4 per id);
//   hashed  (otherwise):          an open-addressing hash map.
// The first event given for an id wins.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/graph/event_graph.h"
#include "core/graph/flat_hash_map.h"

namespace th {

class IdIndex {
 public:
  // Builds the index in two passes over the caller's events: `each(visit)`
  // must call visit(id, event) for every (id, event), in event order, and give
  // the same sequence both times. No intermediate list is kept.
  template <typename ForEach>
  static IdIndex Build(ForEach&& each) {
    IdIndex index;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    size_t count = 0;
    each([&](int64_t id, EventId) {
      lo = std::min(lo, id);
      hi = std::max(hi, id);
      ++count;
    });
    if (count == 0) return index;
    index.min_ = lo;
    uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
    auto offset = [lo](int64_t id) {
      return static_cast<uint64_t>(id) - static_cast<uint64_t>(lo);
    };
    if (span <= 2 * count + 4096) {
      index.layout_ = Layout::kDense;
      index.values_.assign(span, kNoRow);
      each([&](int64_t id, EventId ev) {
        EventId& slot = index.values_[offset(id)];
        if (slot == kNoRow) slot = ev;
      });
    } else if (span / 64 <= count) {
      index.layout_ = Layout::kRanked;
      index.bits_.assign((span + 63) / 64, 0);
      each([&](int64_t id, EventId) {
        uint64_t o = offset(id);
        index.bits_[o >> 6] |= uint64_t{1} << (o & 63);
      });
      index.rank_.resize(index.bits_.size());
      uint32_t total = 0;
      for (size_t w = 0; w < index.bits_.size(); ++w) {
        index.rank_[w] = total;
        total += static_cast<uint32_t>(__builtin_popcountll(index.bits_[w]));
      }
      index.values_.assign(total, kNoRow);
      each([&](int64_t id, EventId ev) {
        EventId& slot = index.values_[index.RankOf(offset(id))];
        if (slot == kNoRow) slot = ev;
      });
    } else {
      index.layout_ = Layout::kHashed;
      index.hashed_ = FlatHashMap<int64_t, EventId, Int64Hash>(count);
      each([&](int64_t id, EventId ev) { index.hashed_.TryEmplace(id, ev); });
    }
    return index;
  }

  // The event for id, or kNoRow.
  EventId Find(int64_t id) const {
    uint64_t o = static_cast<uint64_t>(id) - static_cast<uint64_t>(min_);
    switch (layout_) {
      case Layout::kEmpty:
        return kNoRow;
      case Layout::kDense:
        return o < values_.size() ? values_[o] : kNoRow;
      case Layout::kRanked:
        if ((o >> 6) >= bits_.size() || !((bits_[o >> 6] >> (o & 63)) & 1)) return kNoRow;
        return values_[RankOf(o)];
      case Layout::kHashed: {
        const EventId* e = hashed_.Find(id);
        return e ? *e : kNoRow;
      }
    }
    return kNoRow;
  }

 private:
  enum class Layout : uint8_t { kEmpty, kDense, kRanked, kHashed };
  // Number of present ids below offset o (o itself present).
  uint32_t RankOf(uint64_t o) const {
    uint64_t below = bits_[o >> 6] & ((uint64_t{1} << (o & 63)) - 1);
    return rank_[o >> 6] + static_cast<uint32_t>(__builtin_popcountll(below));
  }

  Layout layout_ = Layout::kEmpty;
  int64_t min_ = 0;
  std::vector<EventId> values_;  // dense: by offset; ranked: by rank
  std::vector<uint64_t> bits_;   // ranked: present offsets
  std::vector<uint32_t> rank_;   // ranked: present offsets before each word
  FlatHashMap<int64_t, EventId, Int64Hash> hashed_{16};
};

}  // namespace th
