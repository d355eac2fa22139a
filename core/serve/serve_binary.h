// The binary viewport/tile format of the HTTP API ("THVP", version 3,
// little-endian; docs/serve.md): a 56-byte header, a dictionary of the names
// of the drawn events local to the response, then per non-empty tile its
// header, its drawn events' columns and its buckets (a map, varint counts and
// a busy level byte each). Times are relative to the run's origin; tile
// numbers absolute. A bucket's exact busy time is /bucket's answer.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/serve/lod_viewport.h"
#include "core/serve/serve_run.h"

namespace th::serve {

inline constexpr uint32_t kThvpVersion = 3;
inline constexpr size_t kThvpHeaderBytes = 56;
inline constexpr size_t kThvpTileHeaderBytes = 24;

// A bucket's busy time at display precision, one byte: 0 when it is 0, 255
// (kThvpBusyFull) when it covers the whole bucket of w = 2^level ns or more
// (overlapping events), else 1 + floor(254 * busy / w) (1..254: busy in
// [(q - 1) * w / 254, q * w / 254)).
inline constexpr uint8_t kThvpBusyFull = 255;
uint8_t ThvpBusyLevel(int64_t busy_ns, int level);

std::string EncodeThvp(const ServeRun& run, const LodViewport& v);

// The bytes of one tile as EncodeThvp writes it, with name_index[k] as the
// name index of its k-th drawn event.
std::string EncodeThvpTile(const ServeRun& run, const ViewportTile& t, int level,
                           std::span<const uint32_t> name_index);

// Writes the 56-byte header at `at`.
void WriteThvpHeader(char* at, int level, uint32_t tile_count, int64_t first_tile,
                     int64_t last_tile, uint64_t events_in_view, uint64_t events_drawn,
                     uint32_t name_count);

// One tile as a viewport of itself: level, first = last = tile, the tile
// when non-empty, events_drawn = its drawn events, events_in_view = those
// plus its bucket counts.
LodViewport TileViewport(uint32_t row, int level, int64_t tile, LodTile data);

}  // namespace th::serve
