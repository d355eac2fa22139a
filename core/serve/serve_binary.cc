#include "core/serve/serve_binary.h"

#include <bit>
#include <cstring>
#include <unordered_map>

namespace th::serve {
namespace {

static_assert(std::endian::native == std::endian::little, "THVP is written as the host's bytes");

class Out {
 public:
  explicit Out(size_t reserve) { bytes_.reserve(reserve); }
  template <typename T>
  void Put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    bytes_.append(b, sizeof(T));
  }
  void Raw(std::string_view s) { bytes_.append(s); }
  std::string Take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

}  // namespace

std::string EncodeThvp(const ServeRun& run, const LodViewport& v) {
  const EventColumns& ev = run.graph().events;
  const StringPool& strings = run.graph().strings;
  // The name dictionary, in order of first use.
  std::unordered_map<StringId, uint32_t> local;
  std::vector<StringId> names;
  size_t name_bytes = 0;
  for (const ViewportTile& t : v.tiles) {
    for (EventId e : t.data.drawn) {
      auto [it, added] = local.try_emplace(ev.name[e], static_cast<uint32_t>(names.size()));
      if (added) {
        names.push_back(ev.name[e]);
        name_bytes += 4 + strings.Get(ev.name[e]).size();
      }
    }
  }
  Out out(kThvpHeaderBytes + name_bytes + ViewportPayloadBytes(v));
  out.Raw("THVP");
  out.Put<uint32_t>(kThvpVersion);
  out.Put<int32_t>(v.level);
  out.Put<uint32_t>(static_cast<uint32_t>(v.tiles.size()));
  out.Put<int64_t>(v.first_tile);
  out.Put<int64_t>(v.last_tile);
  out.Put<uint64_t>(v.events_in_view);
  out.Put<uint64_t>(v.events_drawn);
  out.Put<uint32_t>(static_cast<uint32_t>(names.size()));
  out.Put<uint32_t>(0);
  for (StringId s : names) {
    out.Put<uint32_t>(static_cast<uint32_t>(strings.Get(s).size()));
    out.Raw(strings.Get(s));
  }
  for (const ViewportTile& t : v.tiles) {
    const auto& drawn = t.data.drawn;
    const auto& buckets = t.data.buckets;
    out.Put<uint32_t>(t.row);
    out.Put<uint32_t>(static_cast<uint32_t>(drawn.size()));
    out.Put<uint32_t>(static_cast<uint32_t>(buckets.size()));
    out.Put<uint32_t>(0);
    out.Put<int64_t>(t.tile);
    for (EventId e : drawn) out.Put<int64_t>(run.Relative(ev.ts[e]));
    for (EventId e : drawn) out.Put<int64_t>(ev.dur[e] > 0 ? ev.dur[e] : 0);
    for (EventId e : drawn) out.Put<uint32_t>(e);
    for (EventId e : drawn) out.Put<uint32_t>(local[ev.name[e]]);
    for (const LodBucket& b : buckets) out.Put<uint16_t>(b.bucket);
    for (const LodBucket& b : buckets) out.Put<uint32_t>(b.count);
    for (const LodBucket& b : buckets) out.Put<int64_t>(b.busy_ns);
  }
  return out.Take();
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
