#include "core/serve/lod_viewport.h"

#include <tbb/parallel_for.h>

#include <bit>
#include <string>

#include "core/serve/lod_levels.h"

namespace th::serve {

int ViewportLevel(Int128 span_ns, int64_t width_px) {
  // The smallest L with 2^L * width_px >= span_ns: ceil(log2(ceil(span / width))).
  const Int128 per_px = (span_ns + width_px - 1) / width_px;
  if (per_px <= 1) return 0;
  const Int128 below = per_px - 1;
  const uint64_t high = static_cast<uint64_t>(below >> 64), low = static_cast<uint64_t>(below);
  const int level = high != 0 ? 64 + std::bit_width(high) : std::bit_width(low);
  return level > kMaxLevel ? kMaxLevel : level;
}

namespace {

struct RowTotals {
  std::vector<ViewportTile> tiles;
  uint64_t in_view = 0, drawn = 0;
};

RowTotals QueryRowTiles(const LodIndex& index, uint32_t row, int level, int64_t first,
                        int64_t last) {
  RowTotals out;
  const EventColumns& events = index.graph()->events;
  LodTile tile;
  for (int64_t k = first;; ++k) {
    index.TileInto(row, level, k, &tile);
    if (!tile.empty()) {
      // A drawn event is counted in the first tile that shows it: the first
      // tile of the view, or the tile of its start.
      const Int128 start = TileStart(level, k);
      for (EventId e : tile.drawn)
        if (k == first || static_cast<Int128>(events.ts[e]) >= start) ++out.drawn;
      for (const LodBucket& b : tile.buckets) out.in_view += b.count;
      out.tiles.push_back({row, k, std::move(tile)});
      tile = LodTile();
    }
    if (k == last) break;
  }
  out.in_view += out.drawn;
  return out;
}

}  // namespace

StatusOr<LodViewport> Viewport(const LodIndex& index, std::span<const uint32_t> rows, int64_t t0,
                               int64_t t1, int64_t width_px) {
  if (t1 <= t0)
    return InvalidInput("viewport: empty window [" + std::to_string(t0) + ", " +
                        std::to_string(t1) + ")");
  if (width_px < 1 || width_px > kMaxViewportWidth)
    return InvalidInput("viewport: width " + std::to_string(width_px) + " px outside 1.." +
                        std::to_string(kMaxViewportWidth));
  for (uint32_t r : rows)
    if (r >= index.row_count())
      return InvalidInput("viewport: no row " + std::to_string(r) + " (the index has " +
                          std::to_string(index.row_count()) + ")");
  LodViewport v;
  v.level = ViewportLevel(static_cast<Int128>(t1) - t0, width_px);
  v.first_tile = FloorShift(t0, v.level + kTileBucketsLog2);
  v.last_tile = FloorShift(t1 - 1, v.level + kTileBucketsLog2);
  std::vector<RowTotals> per_row(rows.size());
  tbb::parallel_for(size_t{0}, rows.size(), [&](size_t i) {
    per_row[i] = QueryRowTiles(index, rows[i], v.level, v.first_tile, v.last_tile);
  });
  for (RowTotals& r : per_row) {
    v.events_in_view += r.in_view;
    v.events_drawn += r.drawn;
    for (ViewportTile& t : r.tiles) v.tiles.push_back(std::move(t));
  }
  return v;
}

uint64_t ViewportPayloadBytes(const LodViewport& v) {
  uint64_t bytes = 0;
  for (const ViewportTile& t : v.tiles)
    bytes += 16 + 24 * uint64_t{t.data.drawn.size()} + 13 * uint64_t{t.data.buckets.size()};
  return bytes;
}

}  // namespace th::serve
