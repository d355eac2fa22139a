#include "core/serve/lod_index_io.h"

#include <bit>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/serve/lod_levels.h"

namespace th::serve {

static_assert(std::endian::native == std::endian::little, "the layout is written as in memory");

namespace {

constexpr char kMagic[8] = {'T', 'H', 'L', 'O', 'D', 'I', 'D', 'X'};
constexpr uint32_t kHeaderBytes = 48;

class ByteWriter {
 public:
  template <typename T>
  void Put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  template <typename T>
  void PutArray(const std::vector<T>& v) {
    if (!v.empty()) out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

class ByteReader {
 public:
  ByteReader(std::string_view bytes, size_t offset, std::string_view source)
      : bytes_(bytes), pos_(offset), source_(source) {}

  template <typename T>
  Status Get(T* v) {
    if (bytes_.size() - pos_ < sizeof(T)) return Truncated();
    std::memcpy(v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return Ok();
  }
  template <typename T>
  Status GetArray(size_t count, std::vector<T>* v) {
    if ((bytes_.size() - pos_) / sizeof(T) < count) return Truncated();
    v->resize(count);
    if (count != 0) std::memcpy(v->data(), bytes_.data() + pos_, count * sizeof(T));
    pos_ += count * sizeof(T);
    return Ok();
  }
  Status Error(const std::string& what) const {
    return InvalidInput(std::string(source_) + ": level-of-detail index: " + what + " (byte " +
                        std::to_string(pos_) + ")");
  }
  size_t pos() const { return pos_; }

 private:
  Status Truncated() const { return Error("truncated"); }

  std::string_view bytes_;
  size_t pos_;
  std::string_view source_;
};

void WriteRow(const RowIndex& row, ByteWriter* w) {
  w->Put<uint32_t>(row.track);
  w->Put<uint16_t>(row.depth);
  w->Put<uint16_t>(static_cast<uint16_t>(row.levels.size()));
  w->Put<uint32_t>(static_cast<uint32_t>(row.size()));
  w->Put<uint32_t>(row.tree.leaves());
  w->Put<int64_t>(row.first_start);
  w->Put<int64_t>(row.reach);
  w->PutArray(row.order);
  w->PutArray(row.cls);
  w->PutArray(row.tree.max_class());
  w->PutArray(row.tree.max_end());
  w->PutArray(row.tree.block_start());
  for (const PyramidLevel& l : row.levels) {
    w->Put<uint32_t>(static_cast<uint32_t>(l.level));
    w->Put<uint32_t>(static_cast<uint32_t>(l.bucket.size()));
    w->PutArray(l.bucket);
    w->PutArray(l.count);
    w->PutArray(l.busy_ns);
  }
}

Status ReadLevels(ByteReader* r, uint16_t count, RowIndex* row) {
  if (count > kMaxLevel + 1) return r->Error("too many pyramid levels");
  for (uint16_t i = 0; i < count; ++i) {
    uint32_t level = 0, entries = 0;
    TH_RETURN_IF_ERROR(r->Get(&level));
    TH_RETURN_IF_ERROR(r->Get(&entries));
    if (level > kMaxLevel ||
        (!row->levels.empty() && static_cast<int>(level) <= row->levels.back().level))
      return r->Error("pyramid level " + std::to_string(level) + " out of order or range");
    PyramidLevel l;
    l.level = static_cast<int>(level);
    TH_RETURN_IF_ERROR(r->GetArray(entries, &l.bucket));
    TH_RETURN_IF_ERROR(r->GetArray(entries, &l.count));
    TH_RETURN_IF_ERROR(r->GetArray(entries, &l.busy_ns));
    for (uint32_t e = 1; e < entries; ++e)
      if (l.bucket[e] <= l.bucket[e - 1]) return r->Error("pyramid buckets out of order");
    row->levels.push_back(std::move(l));
  }
  return Ok();
}

// The row's events must be the graph's, in time order, with their classes:
// queries rely on it.
Status CheckRowAgainstGraph(const ByteReader& r, const EventColumns& events, const RowIndex& row) {
  const size_t n = row.order.size();
  for (size_t p = 0; p < n; ++p) {
    const EventId e = row.order[p];
    if (e >= events.size()) return r.Error("event id out of range");
    if (row.cls[p] != DurationClass(events.dur[e]))
      return r.Error("duration class of event " + std::to_string(e) + " does not match the trace");
    if (p == 0) continue;
    const EventId prev = row.order[p - 1];
    const bool ordered = events.ts[prev] != events.ts[e]     ? events.ts[prev] < events.ts[e]
                         : events.dur[prev] != events.dur[e] ? events.dur[prev] > events.dur[e]
                                                             : prev < e;
    if (!ordered) return r.Error("events out of time order");
  }
  return Ok();
}

Status ReadRow(ByteReader* r, const EventGraph& graph, RowIndex* row) {
  uint32_t track = 0, n = 0, leaves = 0;
  uint16_t depth = 0, levels = 0;
  TH_RETURN_IF_ERROR(r->Get(&track));
  TH_RETURN_IF_ERROR(r->Get(&depth));
  TH_RETURN_IF_ERROR(r->Get(&levels));
  TH_RETURN_IF_ERROR(r->Get(&n));
  TH_RETURN_IF_ERROR(r->Get(&leaves));
  TH_RETURN_IF_ERROR(r->Get(&row->first_start));
  TH_RETURN_IF_ERROR(r->Get(&row->reach));
  if (track >= graph.tracks.size())
    return r->Error("track " + std::to_string(track) + " not in the trace");
  const uint64_t blocks =
      (uint64_t{n} + BlockMaxTree::kBlockEvents - 1) / BlockMaxTree::kBlockEvents;
  if (leaves != (n == 0 ? 0 : std::bit_ceil(blocks)))
    return r->Error("tree size does not fit the row");
  row->track = track;
  row->depth = depth;
  TH_RETURN_IF_ERROR(r->GetArray(n, &row->order));
  TH_RETURN_IF_ERROR(r->GetArray(n, &row->cls));
  TH_RETURN_IF_ERROR(CheckRowAgainstGraph(*r, graph.events, *row));
  std::vector<int8_t> max_class;
  std::vector<int64_t> max_end;
  TH_RETURN_IF_ERROR(r->GetArray(2 * size_t{leaves}, &max_class));
  TH_RETURN_IF_ERROR(r->GetArray(2 * size_t{leaves}, &max_end));
  std::vector<int64_t> block_start;
  TH_RETURN_IF_ERROR(r->GetArray(blocks, &block_start));
  for (uint64_t b = 0; b < blocks; ++b)
    if (block_start[b] != graph.events.ts[row->order[b * BlockMaxTree::kBlockEvents]])
      return r->Error("block start does not match the trace");
  row->tree =
      BlockMaxTree(leaves, std::move(max_class), std::move(max_end), std::move(block_start));
  return ReadLevels(r, levels, row);
}

}  // namespace

uint64_t LodChecksum(std::string_view bytes) {
  uint64_t h = 0x243F6A8885A308D3ull ^ bytes.size();
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, bytes.data() + i, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
  }
  uint64_t tail = 0;
  if (i < bytes.size()) std::memcpy(&tail, bytes.data() + i, bytes.size() - i);
  h = (h ^ tail) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

std::string SerializeLodIndex(const LodIndex& index) {
  ByteWriter payload;
  for (uint32_t r = 0; r < index.row_count(); ++r) WriteRow(index.row_index(r), &payload);
  ByteWriter out;
  out.bytes().append(kMagic, sizeof(kMagic));
  out.Put<uint32_t>(kLodFormatVersion);
  out.Put<uint32_t>(kHeaderBytes);
  out.Put<uint64_t>(index.graph_events());
  out.Put<uint64_t>(index.row_count());
  out.Put<uint64_t>(payload.bytes().size());
  out.Put<uint64_t>(LodChecksum(payload.bytes()));
  out.bytes() += payload.bytes();
  return std::move(out.bytes());
}

StatusOr<LodIndex> DeserializeLodIndex(std::string_view bytes, const EventGraph& graph,
                                       std::string_view source) {
  ByteReader header(bytes, 0, source);
  if (bytes.size() < sizeof(kMagic) || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0)
    return header.Error("not a tracehound level-of-detail index (no THLODIDX magic)");
  ByteReader r(bytes, sizeof(kMagic), source);
  uint32_t version = 0, header_bytes = 0;
  uint64_t events = 0, rows = 0, payload = 0, checksum = 0;
  TH_RETURN_IF_ERROR(r.Get(&version));
  if (version != kLodFormatVersion)
    return r.Error("version " + std::to_string(version) + ", this build reads " +
                   std::to_string(kLodFormatVersion));
  TH_RETURN_IF_ERROR(r.Get(&header_bytes));
  TH_RETURN_IF_ERROR(r.Get(&events));
  TH_RETURN_IF_ERROR(r.Get(&rows));
  TH_RETURN_IF_ERROR(r.Get(&payload));
  TH_RETURN_IF_ERROR(r.Get(&checksum));
  if (header_bytes != kHeaderBytes)
    return r.Error("header of " + std::to_string(header_bytes) + " bytes");
  if (events != graph.events.size())
    return r.Error("built for a graph of " + std::to_string(events) + " events, this trace has " +
                   std::to_string(graph.events.size()));
  if (payload != bytes.size() - kHeaderBytes)
    return r.Error(payload > bytes.size() - kHeaderBytes ? "truncated" : "trailing bytes");
  if (LodChecksum(bytes.substr(kHeaderBytes)) != checksum)
    return r.Error("corrupt (checksum mismatch)");
  if (rows > payload / 32) return r.Error("row count does not fit the payload");
  std::vector<RowIndex> out(rows);
  uint64_t indexed = 0;
  for (RowIndex& row : out) {
    TH_RETURN_IF_ERROR(ReadRow(&r, graph, &row));
    indexed += row.size();
  }
  if (r.pos() != bytes.size()) return r.Error("trailing bytes");
  if (indexed > events) return r.Error("more indexed events than the graph has");
  return LodIndex(graph, std::move(out));
}

}  // namespace th::serve
