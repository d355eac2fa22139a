#include "core/serve/serve_overview.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "core/serve/lod_levels.h"
#include "core/serve/lod_viewport.h"
#include "core/serve/serve_binary.h"
#include "core/serve/serve_meta.h"

namespace th::serve {
namespace {

struct RowTiles {
  std::vector<OverviewTile> tiles;
  std::string bytes;
};

// Row r's non-empty tiles of `level` over [first, last], encoded with name
// indexes 0; per tile the StringIds of its drawn events go to *tile_names
// (EncodeLevel numbers them, in row order, once every row is encoded).
RowTiles EncodeRow(const ServeRun& run, uint32_t r, int level, int64_t first, int64_t last,
                   std::vector<std::vector<StringId>>* tile_names) {
  RowTiles out;
  const EventColumns& ev = run.graph().events;
  LodTile data;
  for (int64_t k = first;; ++k) {
    run.index().TileInto(r, level, k, &data);
    if (!data.empty()) {
      OverviewTile t;
      t.row = r;
      t.tile = k;
      t.offset = out.bytes.size();
      t.drawn = static_cast<uint32_t>(data.drawn.size());
      const Int128 start = TileStart(level, k);
      std::vector<StringId> names;
      for (EventId e : data.drawn) {
        if (static_cast<Int128>(ev.ts[e]) >= start) ++t.started;
        names.push_back(ev.name[e]);
      }
      for (const LodBucket& b : data.buckets) t.counted += b.count;
      // Name indexes are patched once the level's dictionary is known.
      const std::vector<uint32_t> zeros(data.drawn.size(), 0);
      out.bytes += EncodeThvpTile(run, {r, k, std::move(data)}, level, zeros);
      t.size = static_cast<uint32_t>(out.bytes.size() - t.offset);
      out.tiles.push_back(t);
      tile_names->push_back(std::move(names));
      data = LodTile();
    }
    if (k == last) break;
  }
  return out;
}

// Where the name indexes of a tile's bytes are.
char* NameColumn(char* tile_bytes, uint32_t drawn) {
  return tile_bytes + kThvpTileHeaderBytes + size_t{drawn} * 20;
}

OverviewLevel EncodeLevel(const ServeRun& run, int level) {
  OverviewLevel out;
  out.level = level;
  const int shift = level + kTileBucketsLog2;
  const int64_t first = FloorShift(run.origin_ns(), shift);
  const int64_t end = run.Absolute(run.end_rel_ns()).value_or(std::numeric_limits<int64_t>::max());
  const int64_t last = FloorShift(end > run.origin_ns() ? end - 1 : end, shift);
  const uint32_t rows = static_cast<uint32_t>(run.index().row_count());
  std::vector<RowTiles> per_row(rows);
  std::vector<std::vector<std::vector<StringId>>> names(rows);
  tbb::parallel_for(uint32_t{0}, rows, [&](uint32_t r) {
    per_row[r] = EncodeRow(run, r, level, first, last, &names[r]);
  });
  std::unordered_map<StringId, uint32_t> dictionary;
  for (uint32_t r = 0; r < rows; ++r) {
    out.row_first.push_back(static_cast<uint32_t>(out.tiles.size()));
    const uint64_t base = out.bytes.size();
    out.bytes += per_row[r].bytes;
    for (size_t k = 0; k < per_row[r].tiles.size(); ++k) {
      OverviewTile t = per_row[r].tiles[k];
      t.offset += base;
      char* column = NameColumn(out.bytes.data() + t.offset, t.drawn);
      for (StringId s : names[r][k]) {
        auto [it, added] = dictionary.try_emplace(s, static_cast<uint32_t>(out.names.size()));
        if (added) out.names.emplace_back(run.graph().strings.Get(s));
        std::memcpy(column, &it->second, 4);
        column += 4;
      }
      out.tiles.push_back(t);
    }
  }
  out.row_first.push_back(static_cast<uint32_t>(out.tiles.size()));
  return out;
}

uint64_t LevelBytes(const OverviewLevel& l) {
  uint64_t n = l.bytes.size() + l.tiles.size() * sizeof(OverviewTile);
  for (const std::string& s : l.names) n += s.size() + 4;
  return n;
}

// The highest level held: the first where the run's span is one tile.
int TopLevel(const ServeRun& run, int lowest) {
  const int64_t end = run.Absolute(run.end_rel_ns()).value_or(std::numeric_limits<int64_t>::max());
  const int64_t last = end > run.origin_ns() ? end - 1 : end;
  int level = lowest;
  while (level < kMaxLevel && FloorShift(run.origin_ns(), level + kTileBucketsLog2) !=
                                  FloorShift(last, level + kTileBucketsLog2))
    ++level;
  return level;
}

}  // namespace

const OverviewLevel* RunOverview::Level(int level) const {
  if (levels.empty() || level < levels.front().level || level > levels.back().level) return nullptr;
  return &levels[static_cast<size_t>(level - levels.front().level)];
}

std::optional<int64_t> RunOverview::Absolute(int64_t rel_ns) const {
  int64_t out;
  if (__builtin_add_overflow(origin_ns, rel_ns, &out)) return std::nullopt;
  return out;
}

uint64_t RunOverview::bytes() const {
  uint64_t n = meta_tail.size();
  for (const OverviewLevel& l : levels) n += LevelBytes(l);
  return n;
}

RunOverview BuildOverview(const ServeRun& run) {
  RunOverview out;
  out.content_key = run.content_key();
  out.events = run.graph().events.size();
  out.origin_ns = run.origin_ns();
  out.end_rel_ns = run.end_rel_ns();
  out.row_count = static_cast<uint32_t>(run.index().row_count());
  out.meta_tail = MetaJsonTail(run);
  if (out.row_count == 0) return out;
  const int whole = ViewportLevel(std::max<int64_t>(run.end_rel_ns(), 1), kOverviewWidthPx);
  const int lowest = std::max(0, whole - 1);
  uint64_t bytes = 0;
  // From the top down, so that what the budget drops is the finest.
  for (int level = TopLevel(run, lowest); level >= lowest; --level) {
    OverviewLevel l = EncodeLevel(run, level);
    bytes += LevelBytes(l);
    if (bytes > kOverviewBudgetBytes) break;
    out.levels.push_back(std::move(l));
  }
  std::reverse(out.levels.begin(), out.levels.end());
  return out;
}

std::string AssembleThvp(const OverviewLevel& l, std::span<const uint32_t> rows, int64_t first_tile,
                         int64_t last_tile) {
  // Pass 1: the tiles, the totals and the response's dictionary (order of first use).
  std::vector<const OverviewTile*> tiles;
  std::vector<uint32_t> local(l.names.size(), UINT32_MAX);
  std::vector<uint32_t> names;
  uint64_t drawn = 0, counted = 0;
  size_t bytes = kThvpHeaderBytes;
  for (uint32_t r : rows) {
    const OverviewTile* begin = l.tiles.data() + l.row_first[r];
    const OverviewTile* end = l.tiles.data() + l.row_first[r + 1];
    const OverviewTile* t = std::lower_bound(
        begin, end, first_tile, [](const OverviewTile& a, int64_t k) { return a.tile < k; });
    for (; t != end && t->tile <= last_tile; ++t) {
      tiles.push_back(t);
      drawn += t->tile == first_tile ? t->drawn : t->started;
      counted += t->counted;
      bytes += t->size;
      const char* column = NameColumn(const_cast<char*>(l.bytes.data()) + t->offset, t->drawn);
      for (uint32_t k = 0; k < t->drawn; ++k) {
        uint32_t n;
        std::memcpy(&n, column + 4 * k, 4);
        if (local[n] != UINT32_MAX) continue;
        local[n] = static_cast<uint32_t>(names.size());
        names.push_back(n);
        bytes += 4 + l.names[n].size();
      }
    }
  }
  // Pass 2: header, dictionary, tiles with their name indexes renumbered
  // (appended into reserved memory: nothing is written twice).
  std::string out;
  out.reserve(bytes);
  char header[kThvpHeaderBytes];
  WriteThvpHeader(header, l.level, static_cast<uint32_t>(tiles.size()), first_tile, last_tile,
                  drawn + counted, drawn, static_cast<uint32_t>(names.size()));
  out.append(header, kThvpHeaderBytes);
  for (uint32_t n : names) {
    const uint32_t size = static_cast<uint32_t>(l.names[n].size());
    out.append(reinterpret_cast<const char*>(&size), 4);
    out.append(l.names[n]);
  }
  for (const OverviewTile* t : tiles) {
    const size_t at = out.size();
    out.append(l.bytes, t->offset, t->size);
    char* column = NameColumn(out.data() + at, t->drawn);
    for (uint32_t k = 0; k < t->drawn; ++k) {
      uint32_t n;
      std::memcpy(&n, column + 4 * k, 4);
      std::memcpy(column + 4 * k, &local[n], 4);
    }
  }
  return out;
}

}  // namespace th::serve
