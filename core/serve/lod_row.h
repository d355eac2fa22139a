// RowIndex: the level-of-detail index of one row (one track, one nesting
// depth): its events in time order with their duration classes, a
// BlockMaxTree over them, and a sparse bucket pyramid at a few levels.
//
// A pyramid level L' holds, for every bucket of 2^L' ns where it is not
// zero, the count of the row's events of class < L' starting in the bucket
// and their busy time inside it (spill from the bucket before included).
// Levels are chosen per row from how many buckets the row's starts occupy
// (ChoosePyramidLevels): every kLevelStep-th level where a bucket holds
// kEventsPerBucketMin events or more on average, up to the first level with
// at most kTopBuckets occupied buckets. BuildRow keeps them from the top down
// while their buckets total at most one per kEventsPerPyramidBucket events
// (memory: at most 10 bytes per event for the pyramid, whatever the row),
// and builds each level from the one below it (merged buckets plus the
// events of the classes between): a pass over the classes, one byte per
// event, and its buckets.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/graph/event_graph.h"
#include "core/serve/block_max_tree.h"
#include "core/serve/lod_tile.h"

namespace th::serve {

// Rows of at most this many events have no pyramid.
inline constexpr uint32_t kRowEventsWithoutPyramid = 512;
// Tiles where at most this many events start are counted from the events
// directly (reading the graph per event costs more than a stored bucket).
inline constexpr uint32_t kDirectScanEvents = 64;
// A level is stored only if the row's starts occupy at most events / this.
inline constexpr uint32_t kEventsPerBucketMin = 2;
// The pyramid's buckets, all levels together, number at most events / this.
inline constexpr uint32_t kEventsPerPyramidBucket = 2;
// Candidate levels are 0, kLevelStep, 2 kLevelStep, ...
inline constexpr int kLevelStep = 2;
// The pyramid ends at the first stored level with at most this many occupied buckets.
inline constexpr uint32_t kTopBuckets = 64;

struct PyramidLevel {
  int level = 0;
  std::vector<int64_t> bucket;  // bucket numbers (ts >> level), ascending
  std::vector<uint32_t> count;
  std::vector<int64_t> busy_ns;
  size_t bytes() const {
    return bucket.capacity() * sizeof(int64_t) + count.capacity() * sizeof(uint32_t) +
           busy_ns.capacity() * sizeof(int64_t);
  }
};

struct RowIndex {
  TrackId track = 0;
  uint16_t depth = 0;
  std::vector<EventId> order;  // by (ts ascending, dur descending, id)
  std::vector<int8_t> cls;     // DurationClass of each position
  int64_t first_start = 0;     // ts of order[0]
  // max over events of max(ts + dur, ts + 1), saturated (MayEndAfter): no
  // event reaches it.
  int64_t reach = 0;
  BlockMaxTree tree;
  std::vector<PyramidLevel> levels;  // ascending by level

  size_t size() const { return order.size(); }
  size_t bytes() const;
};

// Builds the index of one row from its events (any order; sorted here).
RowIndex BuildRow(const EventColumns& events, TrackId track, uint16_t depth,
                  std::vector<EventId> order);

// Levels to store for a row whose starts, in ascending order, are `starts`.
std::vector<int> ChoosePyramidLevels(std::span<const int64_t> starts);

// Tile `tile` of `level` (0..kMaxLevel) of the row into *out (cleared first).
void QueryRow(const RowIndex& row, const EventColumns& events, int level, int64_t tile,
              LodTile* out);

}  // namespace th::serve
