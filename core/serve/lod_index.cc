#include "core/serve/lod_index.h"

#include <tbb/parallel_for.h>

#include <string>

#include "core/serve/lod_levels.h"

namespace th::serve {

LodIndex::LodIndex(const EventGraph& graph, std::vector<RowIndex> rows)
    : graph_(&graph), graph_events_(graph.events.size()), rows_(std::move(rows)) {
  for (const RowIndex& r : rows_) indexed_events_ += r.size();
}

StatusOr<LodTile> LodIndex::Tile(uint32_t row, int level, int64_t tile) const {
  if (row >= rows_.size())
    return InvalidInput("tile: no row " + std::to_string(row) + " (the index has " +
                        std::to_string(rows_.size()) + ")");
  if (level < 0 || level > kMaxLevel)
    return InvalidInput("tile: level " + std::to_string(level) + " outside 0.." +
                        std::to_string(kMaxLevel));
  LodTile out;
  TileInto(row, level, tile, &out);
  return out;
}

void LodIndex::TileInto(uint32_t row, int level, int64_t tile, LodTile* out) const {
  QueryRow(rows_[row], graph_->events, level, tile, out);
}

size_t LodIndex::bytes() const {
  size_t b = sizeof(LodIndex) + (rows_.capacity() - rows_.size()) * sizeof(RowIndex);
  for (const RowIndex& r : rows_) b += r.bytes();
  return b;
}

namespace {

// One track's events split by depth, in time order: (depth, events) pairs by depth.
std::vector<std::pair<uint16_t, std::vector<EventId>>> SplitByDepth(const EventGraph& graph,
                                                                    TrackId track) {
  const EventGraph::TrackEventsView view = graph.TrackEvents(track);
  std::vector<uint32_t> per_depth;
  for (uint32_t k = 0; k < view.size(); ++k) {
    const uint16_t d = graph.events.depth[view[k]];
    if (d >= per_depth.size()) per_depth.resize(size_t{d} + 1, 0);
    ++per_depth[d];
  }
  std::vector<std::pair<uint16_t, std::vector<EventId>>> rows;
  std::vector<int32_t> slot(per_depth.size(), -1);
  for (size_t d = 0; d < per_depth.size(); ++d) {
    if (per_depth[d] == 0) continue;
    slot[d] = static_cast<int32_t>(rows.size());
    rows.emplace_back(static_cast<uint16_t>(d), std::vector<EventId>());
    rows.back().second.reserve(per_depth[d]);
  }
  for (uint32_t k = 0; k < view.size(); ++k)
    rows[slot[graph.events.depth[view[k]]]].second.push_back(view[k]);
  return rows;
}

}  // namespace

LodIndex BuildLodIndex(const EventGraph& graph) {
  const size_t tracks = graph.tracks.size();
  std::vector<std::vector<std::pair<uint16_t, std::vector<EventId>>>> split(tracks);
  tbb::parallel_for(size_t{0}, tracks,
                    [&](size_t t) { split[t] = SplitByDepth(graph, static_cast<TrackId>(t)); });
  struct Pending {
    TrackId track;
    uint16_t depth;
    std::vector<EventId>* events;
  };
  std::vector<Pending> pending;
  for (size_t t = 0; t < tracks; ++t)
    for (auto& [depth, events] : split[t])
      pending.push_back({static_cast<TrackId>(t), depth, &events});
  std::vector<RowIndex> rows(pending.size());
  tbb::parallel_for(size_t{0}, pending.size(), [&](size_t r) {
    rows[r] =
        BuildRow(graph.events, pending[r].track, pending[r].depth, std::move(*pending[r].events));
  });
  return LodIndex(graph, std::move(rows));
}

}  // namespace th::serve
