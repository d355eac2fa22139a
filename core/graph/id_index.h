// IdIndex: int64 id -> EventId for the joins of import (correlation ids, flow
// ids). Profilers hand out these ids from counters, so they are usually dense:
// then the index is a plain array over [min, max] (sequential, no hashing);
// otherwise an open-addressing hash map. The first event given for an id wins.
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
    if (span <= 2 * count + 4096) {
      index.dense_.assign(span, kNoRow);
      each([&](int64_t id, EventId ev) {
        EventId& slot = index.dense_[static_cast<uint64_t>(id) - static_cast<uint64_t>(lo)];
        if (slot == kNoRow) slot = ev;
      });
    } else {
      index.sparse_ = FlatHashMap<int64_t, EventId, Int64Hash>(count);
      index.use_sparse_ = true;
      each([&](int64_t id, EventId ev) { index.sparse_.TryEmplace(id, ev); });
    }
    return index;
  }
  // The event for id, or kNoRow.
  EventId Find(int64_t id) const {
    if (use_sparse_) {
      const EventId* e = sparse_.Find(id);
      return e ? *e : kNoRow;
    }
    uint64_t off = static_cast<uint64_t>(id) - static_cast<uint64_t>(min_);
    return off < dense_.size() ? dense_[off] : kNoRow;
  }

 private:
  int64_t min_ = 0;
  std::vector<EventId> dense_;
  FlatHashMap<int64_t, EventId, Int64Hash> sparse_{16};
  bool use_sparse_ = false;
};

}  // namespace th
