// Viewport: the tiles a view of some rows needs, and the status line's totals.
//
// For a window [t0, t1) drawn `width_px` pixels wide the level is the
// smallest L with 2^L * width_px >= t1 - t0, L = ceil(log2((t1 - t0) /
// width_px)) (0 when the window is no wider than the width, at most
// kMaxLevel): a bucket spans one to two pixels, so a drawn event (dur >= 2^L)
// is at least a pixel wide and everything narrower than a bucket is merged
// into its count and busy time. The tiles are those of level L covering
// [t0, t1): first_tile = floor(t0 / 2^(L+8)) .. last_tile = floor((t1-1) / 2^(L+8)).
// Totals are over the span of those tiles [start of first_tile, end of
// last_tile): events_drawn counts each drawn event once (it may be in several
// tiles), events_in_view = events_drawn + the bucket counts, which is every
// event overlapping the span except narrow ones starting before it (the
// spill rule of lod_tile.h: they belong to the tile of their start).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/graph/status.h"
#include "core/serve/lod_index.h"

namespace th::serve {

// Widths above this are refused (a 16K screen is 15360 px).
inline constexpr int64_t kMaxViewportWidth = 1 << 15;

struct ViewportTile {
  uint32_t row = 0;
  int64_t tile = 0;
  LodTile data;
};

struct LodViewport {
  int level = 0;
  int64_t first_tile = 0, last_tile = 0;  // inclusive
  std::vector<ViewportTile> tiles;        // the non-empty ones, by row (as asked), then tile
  uint64_t events_in_view = 0;
  uint64_t events_drawn = 0;
};

// The level for a window of `span_ns` drawn `width_px` wide (both > 0).
int ViewportLevel(Int128 span_ns, int64_t width_px);

// The tiles of `rows` (row numbers of the index) for [t0, t1) at width_px;
// an error names the bad parameter (t1 <= t0, width outside
// 1..kMaxViewportWidth, an unknown row).
StatusOr<LodViewport> Viewport(const LodIndex& index, std::span<const uint32_t> rows, int64_t t0,
                               int64_t t1, int64_t width_px);

// Bytes of the binary response for `v`: per non-empty tile a 16-byte header
// (row, tile, lengths), per drawn event 24 bytes (row, start, dur, id), per
// non-empty bucket 13 bytes (bucket, count, busy).
uint64_t ViewportPayloadBytes(const LodViewport& v);

}  // namespace th::serve
