// Plain in-memory form of a tensorflow.profiler.XSpace (formats.md section 1.2).
//
// Everything is kept in file order; lines with equal ids are not merged and
// map entries are kept as written (duplicates included), with an id index
// where the last entry wins, as protobuf map parsing does. Event stats live in
// one per-plane column (Plane::event_stats) that events index into.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace th::xspace {

enum class StatKind : uint8_t { kNone, kDouble, kUint64, kInt64, kStr, kBytes, kRef };

// XStat: metadata_id (key into Plane::stat_metadata) and a oneof value.
struct Stat {
  int64_t metadata_id = 0;
  StatKind kind = StatKind::kNone;
  uint64_t raw = 0;  // double bits, uint64, int64 or ref (a stat-metadata id)
  std::string str;   // str_value or bytes_value

  double double_value() const { return std::bit_cast<double>(raw); }
  uint64_t uint64_value() const { return raw; }
  int64_t int64_value() const { return static_cast<int64_t>(raw); }
  uint64_t ref_value() const { return raw; }
};

// XEventMetadata (map value) with the key it was stored under.
struct EventMetadata {
  int64_t key = 0;
  int64_t id = 0;
  std::string name;
  std::string display_name;
  std::string metadata;  // opaque payload (field 3)
  std::vector<Stat> stats;
  std::vector<int64_t> child_ids;
};

// XStatMetadata with its map key.
struct StatMetadata {
  int64_t key = 0;
  int64_t id = 0;
  std::string name;
  std::string description;
};

// XEvent. Exactly one of offset_ps / num_occurrences is meaningful: the one
// set last in the file (an event with neither reads as offset_ps == 0).
struct Event {
  int64_t metadata_id = 0;
  int64_t offset_ps = 0;
  int64_t num_occurrences = 0;
  int64_t duration_ps = 0;
  uint32_t stats_begin = 0;  // index into Plane::event_stats
  uint32_t stats_count = 0;
  bool has_num_occurrences = false;
};

struct Line {
  int64_t id = 0;
  int64_t display_id = 0;
  std::string name;
  std::string display_name;
  int64_t timestamp_ns = 0;
  int64_t duration_ps = 0;
  std::vector<Event> events;
};

struct Plane {
  int64_t id = 0;
  std::string name;
  std::vector<Line> lines;
  std::vector<EventMetadata> event_metadata;  // as written
  std::vector<StatMetadata> stat_metadata;    // as written
  std::vector<Stat> stats;                    // plane-level stats
  std::vector<Stat> event_stats;              // stats of all events, see Event::stats_begin
  std::unordered_map<int64_t, uint32_t> event_metadata_index;  // key -> index (last wins)
  std::unordered_map<int64_t, uint32_t> stat_metadata_index;   // key -> index (last wins)

  std::span<const Stat> StatsOf(const Event& e) const {
    return {event_stats.data() + e.stats_begin, e.stats_count};
  }
  const EventMetadata* FindEventMetadata(int64_t key) const {
    auto it = event_metadata_index.find(key);
    return it == event_metadata_index.end() ? nullptr : &event_metadata[it->second];
  }
  const StatMetadata* FindStatMetadata(int64_t key) const {
    auto it = stat_metadata_index.find(key);
    return it == stat_metadata_index.end() ? nullptr : &stat_metadata[it->second];
  }
  // Name of a stat (empty when the id is unknown).
  const std::string& StatName(int64_t metadata_id) const {
    static const std::string kEmpty;
    const StatMetadata* md = FindStatMetadata(metadata_id);
    return md ? md->name : kEmpty;
  }
  // String value of a str or ref stat (ref resolves to a stat-metadata name).
  const std::string& StatString(const Stat& s) const {
    static const std::string kEmpty;
    if (s.kind == StatKind::kStr) return s.str;
    if (s.kind == StatKind::kRef) return StatName(static_cast<int64_t>(s.raw));
    return kEmpty;
  }
};

struct XSpaceData {
  std::vector<Plane> planes;
  std::vector<std::string> hostnames;
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
  uint64_t unknown_fields = 0;  // fields skipped (unknown number or unexpected wire type)

  uint64_t EventsTotal() const {
    uint64_t n = 0;
    for (const Plane& p : planes)
      for (const Line& l : p.lines) n += l.events.size();
    return n;
  }
};

}  // namespace th::xspace
