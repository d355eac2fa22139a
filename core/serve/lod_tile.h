// LodTile: what one tile of one row holds at one level (lod_levels.h).
//
// - drawn: every event of the row with dur >= 2^L that overlaps the tile
//   (ts < tile end and ts + dur > tile start), by start (ts ascending, longer
//   first, then id), each once.
// - buckets: the non-empty buckets, by bucket number (0..kTileBuckets-1):
//   count = events with dur < 2^L ("narrow") whose start lies in the bucket;
//   busy_ns = the time of the bucket covered by narrow events, summed per
//   event (an event's [ts, ts + dur) clipped to the bucket; a narrow event
//   may spill into the next bucket, or into the first bucket of the next
//   tile, where its spill is busy time but not counted). Saturates at
//   INT64_MAX (only rows of overlapping huge events get there).
// A bucket is non-empty when count > 0 or busy_ns > 0.
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph/event_graph.h"

namespace th::serve {

struct LodBucket {
  uint16_t bucket = 0;
  uint32_t count = 0;
  int64_t busy_ns = 0;
  bool operator==(const LodBucket&) const = default;
};

struct LodTile {
  std::vector<EventId> drawn;
  std::vector<LodBucket> buckets;
  bool empty() const { return drawn.empty() && buckets.empty(); }
  void clear() {
    drawn.clear();
    buckets.clear();
  }
};

}  // namespace th::serve
