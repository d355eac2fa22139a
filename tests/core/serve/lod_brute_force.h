// Test support for the level-of-detail index: hand-made event graphs and the
// tile contract (core/serve/lod_tile.h) computed by brute force, directly from
// its definition, over every event of a row.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/graph/event_graph.h"
#include "core/serve/lod_tile.h"

namespace th::serve::testing {

struct SyntheticEvent {
  TrackId track = 0;
  uint16_t depth = 0;
  int64_t ts = 0;
  int64_t dur = 0;
};

// A graph holding just these events (ts, dur, track, depth columns) on
// `tracks` tracks, with each track's time order as the importer writes it.
std::unique_ptr<EventGraph> MakeGraph(const std::vector<SyntheticEvent>& events, uint32_t tracks);

// The events of row (track, depth): TrackEvents(track) at that depth.
std::vector<EventId> RowEvents(const EventGraph& graph, TrackId track, uint16_t depth);

// Tile `tile` of `level` over `row_events`, by definition.
LodTile BruteForceTile(const EventColumns& events, const std::vector<EventId>& row_events,
                       int level, int64_t tile);

// Events of `row_events` overlapping [t0, t1) (instants: t0 <= ts < t1),
// less the narrow ones at `level` that start before t0.
uint64_t BruteForceInView(const EventColumns& events, const std::vector<EventId>& row_events,
                          int level, __int128 t0, __int128 t1);

}  // namespace th::serve::testing
