// IdIndex: int64 id -> EventId for the joins of import (correlation ids, flow
// ids). Profilers hand out these ids from counters, so they are usually dense:
// then the index is a plain array over [min, max] (sequential, no hashing);
// otherwise an open-addressing hash map. The first event given for an id wins.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/graph/event_graph.h"
#include "core/graph/flat_hash_map.h"

namespace th {

class IdIndex {
 public:
  IdIndex() = default;
  // pairs: (id, event) in the order events appear.
  explicit IdIndex(const std::vector<std::pair<int64_t, EventId>>& pairs) {
    if (pairs.empty()) return;
    int64_t lo = pairs[0].first, hi = pairs[0].first;
    for (const auto& [id, ev] : pairs) {
      lo = std::min(lo, id);
      hi = std::max(hi, id);
    }
    min_ = lo;
    uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
    if (span <= 4 * pairs.size() + 4096) {
      dense_.assign(span, kNoRow);
      for (const auto& [id, ev] : pairs) {
        EventId& slot = dense_[static_cast<uint64_t>(id) - static_cast<uint64_t>(lo)];
        if (slot == kNoRow) slot = ev;
      }
    } else {
      sparse_ = FlatHashMap<int64_t, EventId, Int64Hash>(pairs.size());
      for (const auto& [id, ev] : pairs) sparse_.TryEmplace(id, ev);
      use_sparse_ = true;
    }
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
