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

// The bucket section (version 3): a 256-bit map of the non-empty buckets
// (bit b of byte b / 8), then their counts as unsigned LEB128 varints, then
// one busy level byte each (ThvpBusyLevel). Empty when the tile has no bucket.
constexpr size_t kBucketMapBytes = kTileBuckets / 8;

size_t VarintBytes(uint64_t v) { return (static_cast<size_t>(std::bit_width(v | 1)) + 6) / 7; }

size_t BucketBytes(const std::vector<LodBucket>& buckets) {
  if (buckets.empty()) return 0;
  size_t n = kBucketMapBytes;
  for (const LodBucket& b : buckets) n += VarintBytes(b.count) + 1;
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
  for (const LodBucket& b : buckets) *at++ = static_cast<char>(ThvpBusyLevel(b.busy_ns, level));
  return at;
}

size_t OneTileBytes(const ViewportTile& t) {
  return kThvpTileHeaderBytes + t.data.drawn.size() * 24 + BucketBytes(t.data.buckets);
}

// Bytes of the tiles' part of the response.
size_t TileBytes(const LodViewport& v) {
  size_t n = 0;
  for (const ViewportTile& t : v.tiles) n += OneTileBytes(t);
  return n;
}

// Writes one tile's part (its header and columns; names_of[k] is the name
// index of its k-th drawn event) at `at`, OneTileBytes(t) bytes.
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
  put(static_cast<uint32_t>(BucketBytes(buckets)));
  put(t.tile);
  for (EventId e : drawn) put(run.Relative(ev.ts[e]));
  for (EventId e : drawn) put(ev.dur[e] > 0 ? ev.dur[e] : int64_t{0});
  for (EventId e : drawn) put(static_cast<uint32_t>(e));
  for (size_t k = 0; k < drawn.size(); ++k) put(names_of[k]);
  PutBuckets(at, buckets, level);
}

}  // namespace

uint8_t ThvpBusyLevel(int64_t busy_ns, int level) {
  if (busy_ns <= 0) return 0;
  const uint64_t w = uint64_t{1} << level;
  const auto b = static_cast<uint64_t>(busy_ns);
  if (b >= w) return kThvpBusyFull;
  // 1 + floor(254 * b / w) without overflow: w is a power of two.
  return static_cast<uint8_t>(
      1 + static_cast<uint64_t>((static_cast<unsigned __int128>(b) * 254) >> level));
}

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
    PutTile(out.Skip(OneTileBytes(t)), run, t, v.level, names_of);
    names_of += t.data.drawn.size();
  }
  return out.Take();
}

std::string EncodeThvpTile(const ServeRun& run, const ViewportTile& t, int level,
                           std::span<const uint32_t> name_index) {
  std::string out(OneTileBytes(t), '\0');
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
