// Plain in-memory form of a tensorflow.profiler.XSpace (formats.md section 1.2).
//
// Everything is kept in file order; lines with equal ids are not merged and
// map entries are kept as written (duplicates included), with an id index
// where the last entry wins, as protobuf map parsing does. Event stats live in
// one per-plane column (Plane::event_stats) that events index into; the
// values of string stats in one per-plane store (Plane::string_values).
#pragma once

#include <bit>
#include <cstdint>
#include <deque>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace th::xspace {

enum class StatKind : uint8_t { kNone, kDouble, kUint64, kInt64, kStr, kBytes, kRef };

// The value of a str or bytes stat: a handle to a string owned by its plane
// (Plane::string_values), or the empty string. Reads like a const std::string
// (converts to const std::string& and std::string_view, compares with
// strings) and keeps Stat trivially copyable and 24 bytes, so the millions of
// event stats of a big capture cost no allocation or destructor each.
class StatStr {
 public:
  constexpr StatStr() = default;
  explicit StatStr(const std::string* s) : s_(s) {}

  const std::string& get() const { return s_ ? *s_ : Empty(); }
  operator const std::string&() const { return get(); }  // NOLINT: reads as a string
  operator std::string_view() const { return get(); }    // NOLINT
  const char* data() const { return get().data(); }
  const char* c_str() const { return get().c_str(); }
  size_t size() const { return s_ ? s_->size() : 0; }
  size_t length() const { return size(); }
  bool empty() const { return size() == 0; }
  std::string::const_iterator begin() const { return get().begin(); }
  std::string::const_iterator end() const { return get().end(); }
  char operator[](size_t i) const { return get()[i]; }
  size_t find(std::string_view s, size_t pos = 0) const { return get().find(s, pos); }
  size_t find(char c, size_t pos = 0) const { return get().find(c, pos); }
  size_t rfind(std::string_view s, size_t pos = std::string::npos) const {
    return get().rfind(s, pos);
  }
  std::string substr(size_t pos = 0, size_t n = std::string::npos) const {
    return get().substr(pos, n);
  }
  int compare(std::string_view s) const { return get().compare(s); }
  bool starts_with(std::string_view s) const { return std::string_view(get()).starts_with(s); }
  bool ends_with(std::string_view s) const { return std::string_view(get()).ends_with(s); }

  friend bool operator==(const StatStr& a, const StatStr& b) { return a.get() == b.get(); }
  friend bool operator==(const StatStr& a, std::string_view b) { return a.get() == b; }
  friend std::ostream& operator<<(std::ostream& os, const StatStr& s) { return os << s.get(); }

 private:
  static const std::string& Empty() {
    static const std::string kEmpty;
    return kEmpty;
  }
  const std::string* s_ = nullptr;
};

// XStat: metadata_id (key into Plane::stat_metadata) and a oneof value. 24
// bytes (a big capture holds tens of millions): metadata_id keeps 56 bits (the
// reader refuses ids beyond +-2^55; profilers number them from 1).
struct Stat {
  static constexpr int64_t kMaxMetadataId = (int64_t{1} << 55) - 1;

  int64_t metadata_id : 56 = 0;
  StatKind kind : 8 = StatKind::kNone;
  uint64_t raw = 0;  // double bits, uint64, int64 or ref (a stat-metadata id)
  StatStr str;       // str_value or bytes_value (empty for the other kinds)

  double double_value() const { return std::bit_cast<double>(raw); }
  uint64_t uint64_value() const { return raw; }
  int64_t int64_value() const { return static_cast<int64_t>(raw); }
  uint64_t ref_value() const { return raw; }
};
static_assert(std::is_trivially_copyable_v<Stat> && sizeof(Stat) == 24);

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

// XEvent, 32 bytes (a big capture holds tens of millions). offset_ps and
// num_occurrences are XEvent's oneof and share one slot: has_num_occurrences
// says which one the file set last; read only that one (an event with neither
// reads as offset_ps == 0). Its stats are event_stats[stats_begin,
// stats_begin + stats_count) of its plane (Plane::StatsOf).
struct Event {
  static constexpr uint64_t kMaxStats = (uint64_t{1} << 23) - 1;  // per event (reader refuses more)

  int64_t metadata_id = 0;
  union {
    int64_t offset_ps = 0;    // when !has_num_occurrences
    int64_t num_occurrences;  // when has_num_occurrences
  };
  int64_t duration_ps = 0;
  uint64_t stats_begin : 40 = 0;  // index into Plane::event_stats
  uint64_t stats_count : 23 = 0;  // <= kMaxStats
  bool has_num_occurrences : 1 = false;
};

static_assert(std::is_trivially_copyable_v<Event> && sizeof(Event) == 32);

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
  // Storage of the str/bytes stat values of this plane (StatStr points here);
  // shared, so that a copied Plane's stats stay valid.
  std::shared_ptr<std::deque<std::string>> string_values;
  std::unordered_map<int64_t, uint32_t> event_metadata_index;  // key -> index (last wins)
  std::unordered_map<int64_t, uint32_t> stat_metadata_index;   // key -> index (last wins)

  std::span<const Stat> StatsOf(const Event& e) const {
    return {event_stats.data() + e.stats_begin, static_cast<size_t>(e.stats_count)};
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
    if (s.kind == StatKind::kStr) return s.str.get();
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
