// RunOverview: the coarse levels of a run, encoded once. For every level
// from the one a whole-trace view at 3,840 px uses, less one, up to the one
// where the whole trace is one tile (at most kOverviewBudgetBytes; finer
// levels are dropped first), each non-empty tile's THVP bytes (the part
// EncodeThvp writes per tile), with name indexes into a dictionary of the
// level. A viewport or tile at such a level is then assembled (tiles copied,
// name indexes renumbered into the response's dictionary) instead of
// computed, byte for byte what EncodeThvp(Viewport(...)) gives.
//
// It also holds what /runs and meta say of the run, so that a start whose
// overview is in the cache answers them before the trace is imported.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/serve/serve_run.h"

namespace th::serve {

inline constexpr int64_t kOverviewWidthPx = 3840;
inline constexpr uint64_t kOverviewBudgetBytes = uint64_t{96} << 20;

struct OverviewTile {
  uint32_t row = 0;
  int64_t tile = 0;
  uint64_t offset = 0;   // of its bytes in OverviewLevel::bytes
  uint32_t size = 0;     // bytes
  uint32_t drawn = 0;    // drawn events
  uint32_t started = 0;  // drawn events starting in the tile (not before it)
  uint64_t counted = 0;  // sum of its bucket counts
};

struct OverviewLevel {
  int level = 0;
  std::vector<std::string> names;   // what the tiles' name indexes refer to
  std::vector<OverviewTile> tiles;  // by (row, tile)
  std::vector<uint32_t> row_first;  // row r's tiles: [row_first[r], row_first[r + 1])
  std::string bytes;
};

struct RunOverview {
  std::string content_key;
  uint64_t events = 0;
  int64_t origin_ns = 0, end_rel_ns = 0;
  uint32_t row_count = 0;
  std::string meta_tail;              // MetaJsonTail of the run
  std::vector<OverviewLevel> levels;  // ascending, consecutive

  // The level, or null when it is not held.
  const OverviewLevel* Level(int level) const;
  // origin + rel, or nullopt when it leaves the int64 range.
  std::optional<int64_t> Absolute(int64_t rel_ns) const;
  uint64_t bytes() const;
};

// Encodes the coarse levels of a ready run.
RunOverview BuildOverview(const ServeRun& run);

// The THVP response for tiles [first_tile, last_tile] of `rows` (each <
// row_count) at level `l`, with the totals Viewport() gives.
std::string AssembleThvp(const OverviewLevel& l, std::span<const uint32_t> rows, int64_t first_tile,
                         int64_t last_tile);

}  // namespace th::serve
