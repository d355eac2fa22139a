#include "core/serve/serve_overview_io.h"

#include <xxhash.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/serve/lod_levels.h"
#include "core/serve/serve_binary.h"
#include "core/serve/serve_index_cache.h"

namespace th::serve {
namespace {

static_assert(std::endian::native == std::endian::little, "written as the host's bytes");

constexpr char kMagic[8] = {'T', 'H', 'O', 'V', 'E', 'R', 'V', 'W'};
constexpr size_t kHeaderBytes = 32;

class Writer {
 public:
  template <typename T>
  void Put(T v) {
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void String(std::string_view s) {
    Put<uint64_t>(s.size());
    out_.append(s);
  }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

// Reads values in order; once a read runs past the end, ok() is false.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <typename T>
  T Get() {
    T v{};
    if (!ok_ || in_.size() - at_ < sizeof v) {
      ok_ = false;
      return v;
    }
    std::memcpy(&v, in_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::string String() {
    const uint64_t n = Get<uint64_t>();
    if (!ok_ || in_.size() - at_ < n) {
      ok_ = false;
      return {};
    }
    std::string s(in_.substr(at_, n));
    at_ += n;
    return s;
  }
  bool ok() const { return ok_; }
  bool done() const { return ok_ && at_ == in_.size(); }

 private:
  std::string_view in_;
  size_t at_ = 0;
  bool ok_ = true;
};

void PutLevel(Writer& w, const OverviewLevel& l) {
  w.Put<int32_t>(l.level);
  w.Put<uint64_t>(l.names.size());
  for (const std::string& s : l.names) w.String(s);
  w.Put<uint64_t>(l.tiles.size());
  for (const OverviewTile& t : l.tiles) {
    w.Put(t.row);
    w.Put(t.tile);
    w.Put(t.offset);
    w.Put(t.size);
    w.Put(t.drawn);
    w.Put(t.started);
    w.Put(t.counted);
  }
  w.String(l.bytes);
}

template <typename T>
T At(const std::string& bytes, uint64_t offset) {
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}

// Whether tile t agrees with its bytes: its place, lengths and name indexes.
bool TileFits(const OverviewLevel& l, const OverviewTile& t) {
  if (t.offset > l.bytes.size() || l.bytes.size() - t.offset < t.size ||
      t.size < kThvpTileHeaderBytes)
    return false;
  if (At<uint32_t>(l.bytes, t.offset) != t.row || At<uint32_t>(l.bytes, t.offset + 4) != t.drawn ||
      At<int64_t>(l.bytes, t.offset + 16) != t.tile || t.started > t.drawn)
    return false;
  const uint64_t buckets = At<uint32_t>(l.bytes, t.offset + 8);
  const uint64_t bucket_bytes = At<uint32_t>(l.bytes, t.offset + 12);
  if ((buckets == 0) != (bucket_bytes == 0) || (buckets > 0 && bucket_bytes < 32 + 2 * buckets))
    return false;
  if (t.size != kThvpTileHeaderBytes + uint64_t{t.drawn} * 24 + bucket_bytes) return false;
  const uint64_t names = t.offset + kThvpTileHeaderBytes + uint64_t{t.drawn} * 20;
  for (uint32_t k = 0; k < t.drawn; ++k)
    if (At<uint32_t>(l.bytes, names + 4 * k) >= l.names.size()) return false;
  return true;
}

// Reads one level; false when it does not hold together.
bool GetLevel(Reader& r, uint32_t row_count, OverviewLevel* l) {
  l->level = r.Get<int32_t>();
  const uint64_t names = r.Get<uint64_t>();
  for (uint64_t k = 0; r.ok() && k < names; ++k) l->names.push_back(r.String());
  const uint64_t tiles = r.Get<uint64_t>();
  for (uint64_t k = 0; r.ok() && k < tiles; ++k) {
    OverviewTile t;
    t.row = r.Get<uint32_t>();
    t.tile = r.Get<int64_t>();
    t.offset = r.Get<uint64_t>();
    t.size = r.Get<uint32_t>();
    t.drawn = r.Get<uint32_t>();
    t.started = r.Get<uint32_t>();
    t.counted = r.Get<uint64_t>();
    l->tiles.push_back(t);
  }
  l->bytes = r.String();
  if (!r.ok() || l->level < 0 || l->level > kMaxLevel) return false;
  l->row_first.assign(row_count + 1, 0);
  for (size_t k = 0; k < l->tiles.size(); ++k) {
    const OverviewTile& t = l->tiles[k];
    if (t.row >= row_count || !TileFits(*l, t)) return false;
    if (k > 0 && (t.row < l->tiles[k - 1].row ||
                  (t.row == l->tiles[k - 1].row && t.tile <= l->tiles[k - 1].tile)))
      return false;
    ++l->row_first[t.row + 1];
  }
  for (uint32_t r2 = 0; r2 < row_count; ++r2) l->row_first[r2 + 1] += l->row_first[r2];
  return true;
}

}  // namespace

std::string SerializeOverview(const RunOverview& o) {
  Writer w;
  w.String(o.content_key);
  w.Put<uint64_t>(o.events);
  w.Put<int64_t>(o.origin_ns);
  w.Put<int64_t>(o.end_rel_ns);
  w.Put<uint32_t>(o.row_count);
  w.String(o.meta_tail);
  w.Put<uint64_t>(o.levels.size());
  for (const OverviewLevel& l : o.levels) PutLevel(w, l);
  const std::string& payload = w.bytes();
  Writer out;
  out.bytes().append(kMagic, sizeof kMagic);
  out.Put<uint32_t>(kOverviewFormatVersion);
  out.Put<uint32_t>(0);
  out.Put<uint64_t>(payload.size());
  out.Put<uint64_t>(XXH3_64bits(payload.data(), payload.size()));
  out.bytes() += payload;
  return std::move(out.bytes());
}

StatusOr<RunOverview> DeserializeOverview(std::string_view bytes, const std::string& path) {
  auto bad = [&](const std::string& why) {
    return InvalidInput(path + ": not a usable cached overview: " + why);
  };
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return bad("no THOVERVW header");
  Reader header(bytes.substr(sizeof kMagic, kHeaderBytes - sizeof kMagic));
  const uint32_t version = header.Get<uint32_t>();
  header.Get<uint32_t>();
  const uint64_t size = header.Get<uint64_t>();
  const uint64_t checksum = header.Get<uint64_t>();
  if (version != kOverviewFormatVersion)
    return bad("format version " + std::to_string(version) + ", expected " +
               std::to_string(kOverviewFormatVersion));
  const std::string_view payload = bytes.substr(kHeaderBytes);
  if (payload.size() != size) return bad("truncated or trailing bytes");
  if (XXH3_64bits(payload.data(), payload.size()) != checksum) return bad("checksum mismatch");
  Reader r(payload);
  RunOverview o;
  o.content_key = r.String();
  o.events = r.Get<uint64_t>();
  o.origin_ns = r.Get<int64_t>();
  o.end_rel_ns = r.Get<int64_t>();
  o.row_count = r.Get<uint32_t>();
  o.meta_tail = r.String();
  const uint64_t levels = r.Get<uint64_t>();
  for (uint64_t k = 0; r.ok() && k < levels; ++k) {
    OverviewLevel l;
    if (!GetLevel(r, o.row_count, &l)) return bad("level " + std::to_string(k) + " is damaged");
    if (!o.levels.empty() && l.level != o.levels.back().level + 1)
      return bad("levels not consecutive");
    o.levels.push_back(std::move(l));
  }
  if (!r.done()) return bad("damaged payload");
  return o;
}

std::string OverviewCachePath(const std::string& dir, const std::string& fast_key) {
  return dir + "/overview-" + fast_key + ".v" + std::to_string(kOverviewFormatVersion) + ".thov";
}

StatusOr<RunOverview> ReadCachedOverview(const std::string& dir, const std::string& fast_key) {
  const std::string path = OverviewCachePath(dir, fast_key);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory) return NotFound(path + ": no cached overview");
    return IoError(path + ": cannot open: " + ec.message());
  }
  std::ifstream in(path, std::ios::binary);
  std::string bytes(size, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (!in) return IoError(path + ": cannot read");
  return DeserializeOverview(bytes, path);
}

Status WriteCachedOverview(const std::string& dir, const std::string& fast_key,
                           const RunOverview& overview) {
  return WriteFileAtomically(dir, OverviewCachePath(dir, fast_key), SerializeOverview(overview));
}

}  // namespace th::serve
