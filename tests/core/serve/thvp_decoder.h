// Test helper: decodes the THVP bytes of a viewport or tile response
// (core/serve/serve_binary.h), checking that every length fits the bytes.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace th::serve::testing {

struct ThvpTile {
  uint32_t row = 0;
  int64_t tile = 0;
  std::vector<int64_t> start, dur;
  std::vector<uint32_t> id, name;
  std::vector<uint16_t> bucket;
  std::vector<uint32_t> count;
  std::vector<uint8_t> busy_level;
};

struct Thvp {
  uint32_t version = 0;
  int32_t level = 0;
  int64_t first_tile = 0, last_tile = 0;
  uint64_t events_in_view = 0, events_drawn = 0;
  std::vector<std::string> names;
  std::vector<ThvpTile> tiles;
};

class ThvpReader {
 public:
  explicit ThvpReader(std::string_view b) : b_(b) {}
  template <typename T>
  bool Get(T* v) {
    if (b_.size() - at_ < sizeof(T)) return false;
    std::memcpy(v, b_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  template <typename T>
  bool Column(uint32_t n, std::vector<T>* out) {
    out->resize(n);
    for (T& v : *out)
      if (!Get(&v)) return false;
    return true;
  }
  bool Text(uint32_t n, std::string* out) {
    if (b_.size() - at_ < n) return false;
    *out = std::string(b_.substr(at_, n));
    at_ += n;
    return true;
  }
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      uint8_t byte = 0;
      if (!Get(&byte)) return false;
      *v |= uint64_t{byte & 0x7fu} << shift;
      if (!(byte & 0x80)) return true;
    }
    return false;
  }
  bool done() const { return at_ == b_.size(); }
  size_t at() const { return at_; }

 private:
  std::string_view b_;
  size_t at_ = 0;
};

// The bucket section of version 3: a 256-bit map, then the counts (varints),
// then a busy level byte each; false when it does not fill exactly `bytes`.
inline bool DecodeBuckets(ThvpReader& r, uint32_t n, uint32_t bytes, ThvpTile* t) {
  if (n == 0) return bytes == 0;
  const size_t begin = r.at();
  uint8_t map[32];
  for (uint8_t& m : map)
    if (!r.Get(&m)) return false;
  for (int b = 0; b < 256; ++b)
    if (map[b >> 3] >> (b & 7) & 1) t->bucket.push_back(static_cast<uint16_t>(b));
  if (t->bucket.size() != n) return false;
  for (uint32_t k = 0; k < n; ++k) {
    uint64_t c = 0;
    if (!r.Varint(&c)) return false;
    t->count.push_back(static_cast<uint32_t>(c));
  }
  if (!r.Column(n, &t->busy_level)) return false;
  return r.at() - begin == bytes;
}

// nullopt when the bytes are not a complete THVP response.
inline std::optional<Thvp> DecodeThvp(std::string_view bytes) {
  ThvpReader r(bytes);
  Thvp v;
  std::string magic;
  uint32_t tiles = 0, names = 0, reserved = 0;
  if (!r.Text(4, &magic) || magic != "THVP" || !r.Get(&v.version) || !r.Get(&v.level) ||
      !r.Get(&tiles) || !r.Get(&v.first_tile) || !r.Get(&v.last_tile) ||
      !r.Get(&v.events_in_view) || !r.Get(&v.events_drawn) || !r.Get(&names) || !r.Get(&reserved))
    return std::nullopt;
  for (uint32_t i = 0; i < names; ++i) {
    uint32_t n = 0;
    std::string s;
    if (!r.Get(&n) || !r.Text(n, &s)) return std::nullopt;
    v.names.push_back(s);
  }
  for (uint32_t i = 0; i < tiles; ++i) {
    ThvpTile t;
    uint32_t drawn = 0, buckets = 0, bucket_bytes = 0;
    if (!r.Get(&t.row) || !r.Get(&drawn) || !r.Get(&buckets) || !r.Get(&bucket_bytes) ||
        !r.Get(&t.tile) || !r.Column(drawn, &t.start) || !r.Column(drawn, &t.dur) ||
        !r.Column(drawn, &t.id) || !r.Column(drawn, &t.name) ||
        !DecodeBuckets(r, buckets, bucket_bytes, &t))
      return std::nullopt;
    v.tiles.push_back(std::move(t));
  }
  if (!r.done()) return std::nullopt;
  return v;
}

}  // namespace th::serve::testing
