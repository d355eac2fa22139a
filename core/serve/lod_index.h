// LodIndex: the server-side level-of-detail index of one trace.
//
// Built from a Trace's EventGraph: one row per (track, nesting depth) that has
// events (the events EventGraph::TrackEvents lists: slices, instants,
// counters; no metadata, flows or E markers), rows ordered by track, then
// depth. Tile(row, L, k) answers the tile contract of lod_tile.h in about
// O(buckets + drawn + log n), whatever the level, from the row's RowIndex and
// the graph's ts/dur columns (the index holds event ids, not times: it reads
// the graph it was built from, which must outlive it and stay unchanged).
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph/event_graph.h"
#include "core/graph/status.h"
#include "core/serve/lod_row.h"
#include "core/serve/lod_tile.h"

namespace th::serve {

struct LodRow {
  TrackId track = 0;
  uint16_t depth = 0;
  uint32_t events = 0;
};

class LodIndex {
 public:
  LodIndex() = default;
  // From finished rows (BuildLodIndex, deserialization).
  LodIndex(const EventGraph& graph, std::vector<RowIndex> rows);

  // The tile, or an error for an unknown row or a level outside 0..kMaxLevel.
  // Tiles outside the int64 clock are empty.
  StatusOr<LodTile> Tile(uint32_t row, int level, int64_t tile) const;
  // The same into *out; row and level must be valid.
  void TileInto(uint32_t row, int level, int64_t tile, LodTile* out) const;

  size_t row_count() const { return rows_.size(); }
  LodRow row(uint32_t r) const {
    return {rows_[r].track, rows_[r].depth, static_cast<uint32_t>(rows_[r].size())};
  }
  const RowIndex& row_index(uint32_t r) const { return rows_[r]; }
  const EventGraph* graph() const { return graph_; }
  // Events of the graph it was built from, and events in its rows.
  uint64_t graph_events() const { return graph_events_; }
  uint64_t indexed_events() const { return indexed_events_; }
  // Bytes the index holds (the graph excluded).
  size_t bytes() const;

 private:
  const EventGraph* graph_ = nullptr;
  uint64_t graph_events_ = 0;
  uint64_t indexed_events_ = 0;
  std::vector<RowIndex> rows_;
};

// Builds the index, rows in parallel (oneTBB); the result does not depend on
// the number of threads.
LodIndex BuildLodIndex(const EventGraph& graph);

}  // namespace th::serve
