#include "core/serve/serve_binary.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <unordered_map>

namespace th::serve {
namespace {

static_assert(std::endian::native == std::endian::little, "THVP is written as the host's bytes");

// Writes into a buffer sized in advance (no growth, no per-value append).
class Out {
 public:
  explicit Out(size_t bytes) : bytes_(bytes, '\0'), at_(bytes_.data()) {}
  template <typename T>
  void Put(T v) {
    std::memcpy(at_, &v, sizeof(T));
    at_ += sizeof(T);
  }
  void Raw(std::string_view s) {
    std::memcpy(at_, s.data(), s.size());
    at_ += s.size();
  }
  char* Skip(size_t n) {
    char* at = at_;
    at_ += n;
    return at;
  }
  std::string Take() {
    bytes_.resize(static_cast<size_t>(at_ - bytes_.data()));
    return std::move(bytes_);
  }

 private:
  std::string bytes_;
  char* at_;
};

// The bucket section (version 2): a 256-bit map of the non-empty buckets
// (bit b of byte b / 8), then their counts, then their busy times, each an
// unsigned LEB128 varint. A busy time b of a bucket of w = 2^L ns is written
// as (w - b) << 1 | 1 when 0 <= w - b < b (a busy bucket: a short number),
// else as b << 1. Empty when the tile has no bucket.
constexpr size_t kBucketMapBytes = kTileBuckets / 8;

uint64_t BusyCode(int64_t busy, int level) {
  const uint64_t b = static_cast<uint64_t>(std::max<int64_t>(busy, 0));
  const uint64_t w = uint64_t{1} << level;
  return b <= w && w - b < b ? (w - b) << 1 | 1 : b << 1;
}

size_t VarintBytes(uint64_t v) { return (static_cast<size_t>(std::bit_width(v | 1)) + 6) / 7; }

size_t BucketBytes(const std::vector<LodBucket>& buckets, int level) {
  if (buckets.empty()) return 0;
  size_t n = kBucketMapBytes;
  for (const LodBucket& b : buckets)
    n += VarintBytes(b.count) + VarintBytes(BusyCode(b.busy_ns, level));
  return n;
}

char* PutVarint(char* at, uint64_t v) {
  while (v >= 0x80) {
    *at++ = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  *at++ = static_cast<char>(v);
  return at;
}

char* PutBuckets(char* at, const std::vector<LodBucket>& buckets, int level) {
  if (buckets.empty()) return at;
  unsigned char map[kBucketMapBytes] = {};
  for (const LodBucket& b : buckets)
    map[b.bucket >> 3] |= static_cast<unsigned char>(1u << (b.bucket & 7));
  std::memcpy(at, map, kBucketMapBytes);
  at += kBucketMapBytes;
  for (const LodBucket& b : buckets) at = PutVarint(at, b.count);
  for (const LodBucket& b : buckets) at = PutVarint(at, BusyCode(b.busy_ns, level));
  return at;
}

size_t OneTileBytes(const ViewportTile& t, int level) {
  return kThvpTileHeaderBytes + t.data.drawn.size() * 24 + BucketBytes(t.data.buckets, level);
}

// Bytes of the tiles' part of the response.
size_t TileBytes(const LodViewport& v) {
  size_t n = 0;
  for (const ViewportTile& t : v.tiles) n += OneTileBytes(t, v.level);
  return n;
}

// Writes one tile's part (its header and columns; names_of[k] is the name
// index of its k-th drawn event) at `at`, OneTileBytes(t, level) bytes.
// Through a local cursor, which the compiler keeps in a register.
void PutTile(char* at, const ServeRun& run, const ViewportTile& t, int level,
             const uint32_t* names_of) {
  auto put = [&at](auto v) {
    std::memcpy(at, &v, sizeof v);
    at += sizeof v;
  };
  const EventColumns& ev = run.graph().events;
  const auto& drawn = t.data.drawn;
  const auto& buckets = t.data.buckets;
  put(t.row);
  put(static_cast<uint32_t>(drawn.size()));
  put(static_cast<uint32_t>(buckets.size()));
  put(static_cast<uint32_t>(BucketBytes(buckets, level)));
  put(t.tile);
  for (EventId e : drawn) put(run.Relative(ev.ts[e]));
  for (EventId e : drawn) put(ev.dur[e] > 0 ? ev.dur[e] : int64_t{0});
  for (EventId e : drawn) put(static_cast<uint32_t>(e));
  for (size_t k = 0; k < drawn.size(); ++k) put(names_of[k]);
  PutBuckets(at, buckets, level);
}

}  // namespace

std::string EncodeThvp(const ServeRun& run, const LodViewport& v) {
  const EventColumns& ev = run.graph().events;
  const StringPool& strings = run.graph().strings;
  // The name dictionary, in order of first use.
  std::unordered_map<StringId, uint32_t> local;
  std::vector<uint32_t> name_index;  // per drawn event, in response order
  std::vector<StringId> names;
  size_t name_bytes = 0;
  for (const ViewportTile& t : v.tiles) {
    for (EventId e : t.data.drawn) {
      auto [it, added] = local.try_emplace(ev.name[e], static_cast<uint32_t>(names.size()));
      name_index.push_back(it->second);
      if (added) {
        names.push_back(ev.name[e]);
        name_bytes += 4 + strings.Get(ev.name[e]).size();
      }
    }
  }
  Out out(kThvpHeaderBytes + name_bytes + TileBytes(v));
  WriteThvpHeader(out.Skip(kThvpHeaderBytes), v.level, static_cast<uint32_t>(v.tiles.size()),
                  v.first_tile, v.last_tile, v.events_in_view, v.events_drawn,
                  static_cast<uint32_t>(names.size()));
  for (StringId s : names) {
    out.Put<uint32_t>(static_cast<uint32_t>(strings.Get(s).size()));
    out.Raw(strings.Get(s));
  }
  const uint32_t* names_of = name_index.data();
  for (const ViewportTile& t : v.tiles) {
    PutTile(out.Skip(OneTileBytes(t, v.level)), run, t, v.level, names_of);
    names_of += t.data.drawn.size();
  }
  return out.Take();
}

std::string EncodeThvpTile(const ServeRun& run, const ViewportTile& t, int level,
                           std::span<const uint32_t> name_index) {
  std::string out(OneTileBytes(t, level), '\0');
  PutTile(out.data(), run, t, level, name_index.data());
  return out;
}

void WriteThvpHeader(char* at, int level, uint32_t tile_count, int64_t first_tile,
                     int64_t last_tile, uint64_t events_in_view, uint64_t events_drawn,
                     uint32_t name_count) {
  auto put = [&at](auto v) {
    std::memcpy(at, &v, sizeof v);
    at += sizeof v;
  };
  std::memcpy(at, "THVP", 4);
  at += 4;
  put(kThvpVersion);
  put(static_cast<int32_t>(level));
  put(tile_count);
  put(first_tile);
  put(last_tile);
  put(events_in_view);
  put(events_drawn);
  put(name_count);
  put(uint32_t{0});
}

LodViewport TileViewport(uint32_t row, int level, int64_t tile, LodTile data) {
  LodViewport v;
  v.level = level;
  v.first_tile = v.last_tile = tile;
  v.events_drawn = data.drawn.size();
  v.events_in_view = v.events_drawn;
  for (const LodBucket& b : data.buckets) v.events_in_view += b.count;
  if (!data.empty()) v.tiles.push_back({row, tile, std::move(data)});
  return v;
}

}  // namespace th::serve
