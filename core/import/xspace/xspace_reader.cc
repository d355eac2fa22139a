#include "core/import/xspace/xspace_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <utility>

#include "core/graph/text_escape.h"
#include "core/import/common/regular_file.h"
#include "core/import/xspace/varint_gather.h"
#include "core/import/xspace/wire_reader.h"

namespace th::xspace {
namespace {

const uint8_t* U(const char* p) { return reinterpret_cast<const uint8_t*>(p); }
std::string_view View(const uint8_t* p, const uint8_t* end) {
  return {reinterpret_cast<const char*>(p), static_cast<size_t>(end - p)};
}

// The model of a big capture is several times the file's size (48 bytes per
// event, 32 per stat), all of it fresh memory. With transparent huge pages in
// "madvise" mode (a common default) it would be faulted in 4 KiB at a time,
// which cost more than the decoding itself on a 1 GB capture; so ask for huge
// pages on the part of a freshly reserved column that is not touched yet.
void AdviseHugePages(const void* p, size_t bytes) {
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  if (bytes < 2 * kHuge) return;
  const uintptr_t b = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t e = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);
}

// Stat::metadata_id keeps 56 bits.
bool StatIdFits(uint64_t v) {
  const auto id = static_cast<int64_t>(v);
  return id >= -Stat::kMaxMetadataId - 1 && id <= Stat::kMaxMetadataId;
}

// Varint, bounded by the end of its message; nullptr when it runs past it, is
// longer than 10 bytes or overflows 64 bits (the strict decoder then reports
// it). The bytes up to `end` are read one at a time.
[[gnu::noinline]] const uint8_t* VarintBytewise(const uint8_t* p, const uint8_t* end,
                                                uint64_t* out) {
  uint64_t r = 0;
  const int n = end - p >= 10 ? 10 : static_cast<int>(end - p);
  for (int i = 0; i < n; ++i) {
    uint64_t b = p[i];
    r |= (b & 0x7Fu) << (7 * i);
    if (b < 0x80) {
      if (i == 9 && b > 1) return nullptr;
      *out = r;
      return p + i + 1;
    }
  }
  return nullptr;
}

// The same, where 8 bytes at p can be loaded (they may run past `end` but not
// past the buffer): the terminating byte is found with one mask, without a
// branch per byte.
[[gnu::always_inline]] inline const uint8_t* VarintWide(const uint8_t* p, const uint8_t* end,
                                                        uint64_t* out) {
  uint64_t x;
  std::memcpy(&x, p, 8);  // little-endian hosts only (x86-64, arm64)
  const uint64_t stops = ~x & 0x8080808080808080ull;
  if (stops == 0) [[unlikely]] {  // 9 bytes (10 or more: the bytewise decoder)
    if (end - p >= 9 && p[8] < 0x80) {
      *out = Gather7(x) | (uint64_t{p[8]} << 56);
      return p + 9;
    }
    return VarintBytewise(p, end, out);
  }
  const int last_bit = __builtin_ctzll(stops);  // top bit of the last byte
  const size_t len = static_cast<size_t>(last_bit >> 3) + 1;
  if (len > static_cast<size_t>(end - p)) [[unlikely]]
    return nullptr;
  *out = Gather7(x & ((uint64_t{2} << last_bit) - 1));  // (2 << 63) wraps to 0: all bits
  return p + len;
}

// Events and their stats are most of an XSpace's bytes. Their messages are
// decoded first by a fast path that expects the fields as the profilers write
// them (one-byte tags, in field-number order, in-bounds values); anything
// else — an unknown field, a field with another wire type, a non-minimal tag,
// a truncated value, any error — makes it give up, and the event is decoded
// again by the strict field-by-field decoder, which counts unknown fields and
// reports errors with their byte offset and path. Both give the same result on
// what the fast path accepts.
//
// Recursive descent over the XSpace messages. Each Parse* returns false on the
// first error; callers prepend their path component while unwinding, so the
// path is only built on failure.
class Decoder : public MessageDecoder {
 public:
  Decoder(std::string_view whole, bool fast, bool guess_line_ends = false)
      : MessageDecoder(whole),
        whole_end_(U(whole.data()) + whole.size()),
        fast_(fast),
        guess_line_ends_(guess_line_ends) {}

  // With a sink, planes go to it (StreamXSpaceFile) instead of out->planes.
  bool ParseSpace(XSpaceData* out, XSpaceSink* sink = nullptr);

 private:
  bool ParsePlane(std::string_view msg, Plane* pl, XSpaceSink* sink = nullptr);
  // Streaming: a line's fields but its events, then its events in batches.
  bool ParseLineHeader(std::string_view msg, Line* ln);
  bool LineField(const WireField& f, Line* ln);
  // The same from the fields before the first event and a guess of those
  // after the last (see StreamXSpaceFile); `events` is then the part between.
  // False when the line does not have that shape (the caller skims instead).
  bool GuessLineHeader(std::string_view msg, Line* ln, std::string_view* events);
  bool ParsesAsLineTrailer(const uint8_t* p, const uint8_t* end) const;
  bool StreamLineEvents(std::string_view msg, size_t index, Plane* pl, XSpaceSink* sink,
                        bool preview);
  bool ParseLine(std::string_view msg, Line* ln, Plane* pl);
  bool ParseEvent(std::string_view msg, Event* ev, Plane* pl);
  bool ParseStat(std::string_view msg, Stat* st, Plane* pl);
  bool ParseEventMetadataEntry(std::string_view msg, EventMetadata* md, Plane* pl);
  bool ParseEventMetadata(std::string_view msg, EventMetadata* md, Plane* pl);
  bool ParseStatMetadataEntry(std::string_view msg, StatMetadata* md);
  bool ParseStatMetadata(std::string_view msg, StatMetadata* md);

  // Fast paths (see above): false = not handled here.
  bool FastEvent(const uint8_t* p, const uint8_t* end, Event* ev, size_t stats_begin, Plane* pl);
  bool FastStat(const uint8_t* p, const uint8_t* end, Stat* st, Plane* pl);
  [[gnu::always_inline]] const uint8_t* Varint(const uint8_t* p, const uint8_t* end,
                                               uint64_t* out) const {
    if (p < end && *p < 0x80) [[likely]] {
      *out = *p;
      return p + 1;
    }
    if (whole_end_ - p >= 8) [[likely]]
      return VarintWide(p, end, out);
    return VarintBytewise(p, end, out);
  }

  void Reserve(const uint8_t* line, const uint8_t* line_end, Line* ln, Plane* pl);
  void Regrow(const uint8_t* line, const uint8_t* at, const uint8_t* line_end, Line* ln, Plane* pl);
  size_t CountStats(const uint8_t* p, const uint8_t* end) const;
  static StatStr Store(Plane* pl, std::string_view s) {
    if (!pl->string_values) pl->string_values = std::make_shared<std::deque<std::string>>();
    return StatStr(&pl->string_values->emplace_back(s));
  }

  const uint8_t* whole_end_;
  const bool fast_;  // false: the strict decoder only (tests compare the two)
  const bool guess_line_ends_;
  uint64_t unknown_ = 0;
  const uint8_t* plane_end_ = nullptr;  // end of the plane being decoded
  size_t plane_event_bytes_ = 0;        // bytes of its lines decoded so far
  size_t plane_strings_ = 0;            // streaming: string values kept across batches
  std::vector<bool> guessed_;           // streaming: per line of the plane, GuessLineHeader
  // Streaming: the events of one batch (slots reused, not re-initialised).
  static constexpr size_t kBatch = 4096;
  std::unique_ptr<Event[]> batch_;
};

bool Decoder::ParseSpace(XSpaceData* out, XSpaceSink* sink) {
  WireReader r = Reader(whole_);
  WireField f;
  size_t planes = 0;
  while (r.Next(&f)) {
    if (f.wire_type == kLengthDelimited) {
      switch (f.number) {
        case 1: {
          if (sink) {
            Plane pl;
            if (!ParsePlane(f.bytes, &pl, sink)) return Prepend("planes", planes);
            ++planes;
            continue;
          }
          size_t i = out->planes.size();
          out->planes.emplace_back();
          if (!ParsePlane(f.bytes, &out->planes.back())) return Prepend("planes", i);
          continue;
        }
        case 2:
          if (!String(f.bytes, &out->errors.emplace_back())) return Prepend("XSpace.errors");
          continue;
        case 3:
          if (!String(f.bytes, &out->warnings.emplace_back())) return Prepend("XSpace.warnings");
          continue;
        case 4:
          if (!String(f.bytes, &out->hostnames.emplace_back())) return Prepend("XSpace.hostnames");
          continue;
        default:
          break;
      }
    }
    ++unknown_;
  }
  if (r.failed()) {
    FromReader(r);
    return Prepend("XSpace");
  }
  out->unknown_fields = unknown_;
  return true;
}

bool Decoder::ParsePlane(std::string_view msg, Plane* pl, XSpaceSink* sink) {
  if (msg.size() >=
      (uint64_t{1} << 41)) {  // Event::stats_begin has 40 bits; a stat takes >= 2 bytes
    error_.what = "plane of 2 TiB or more (not supported)";
    error_.offset = static_cast<uint64_t>(msg.data() - whole_.data());
    return false;
  }
  plane_end_ = U(msg.data()) + msg.size();
  plane_event_bytes_ = 0;
  // Streaming: each line's bytes (or, guessed_, only its events), decoded
  // after the plane's other fields.
  std::vector<std::string_view> line_msgs;
  guessed_.clear();
  WireReader r = Reader(msg);
  WireField f;
  while (r.Next(&f)) {
    switch (f.number) {
      case 1:
        if (f.wire_type != kVarint) break;
        pl->id = static_cast<int64_t>(f.value);
        continue;
      case 2:
        if (f.wire_type != kLengthDelimited) break;
        if (!String(f.bytes, &pl->name)) return false;
        continue;
      case 3: {
        if (f.wire_type != kLengthDelimited) break;
        size_t i = pl->lines.size();
        pl->lines.emplace_back();
        if (sink) {
          std::string_view events;
          if (guess_line_ends_ && GuessLineHeader(f.bytes, &pl->lines.back(), &events)) {
            line_msgs.push_back(events);
            guessed_.push_back(true);
            continue;
          }
          pl->lines.back() = Line();
          line_msgs.push_back(f.bytes);
          guessed_.push_back(false);
          if (!ParseLineHeader(f.bytes, &pl->lines.back())) return Prepend("lines", i);
          continue;
        }
        if (!ParseLine(f.bytes, &pl->lines.back(), pl)) return Prepend("lines", i);
        continue;
      }
      case 4: {
        if (f.wire_type != kLengthDelimited) break;
        size_t i = pl->event_metadata.size();
        EventMetadata& md = pl->event_metadata.emplace_back();
        if (!ParseEventMetadataEntry(f.bytes, &md, pl)) return Prepend("event_metadata", i);
        pl->event_metadata_index[md.key] = static_cast<uint32_t>(i);
        continue;
      }
      case 5: {
        if (f.wire_type != kLengthDelimited) break;
        size_t i = pl->stat_metadata.size();
        StatMetadata& md = pl->stat_metadata.emplace_back();
        if (!ParseStatMetadataEntry(f.bytes, &md)) return Prepend("stat_metadata", i);
        pl->stat_metadata_index[md.key] = static_cast<uint32_t>(i);
        continue;
      }
      case 6: {
        if (f.wire_type != kLengthDelimited) break;
        size_t i = pl->stats.size();
        if (!ParseStat(f.bytes, &pl->stats.emplace_back(), pl)) return Prepend("stats", i);
        continue;
      }
      default:
        break;
    }
    ++unknown_;
  }
  if (r.failed()) return FromReader(r);
  if (!sink) return true;
  plane_strings_ = pl->string_values ? pl->string_values->size() : 0;
  for (size_t i : sink->BeginPlane(*pl)) {
    if (i >= line_msgs.size()) continue;
    if (!StreamLineEvents(line_msgs[i], i, pl, sink, /*preview=*/true)) return Prepend("lines", i);
  }
  for (size_t i = 0; i < line_msgs.size(); ++i) {
    sink->BeginLine(*pl, i);
    if (!StreamLineEvents(line_msgs[i], i, pl, sink, /*preview=*/false)) return Prepend("lines", i);
  }
  sink->EndPlane(*pl);
  return true;
}

// A line's own field (not an event) into *ln; an unknown field is counted.
// False on a bad string value.
bool Decoder::LineField(const WireField& f, Line* ln) {
  if (f.wire_type == kVarint) {
    switch (f.number) {
      case 1:
        ln->id = static_cast<int64_t>(f.value);
        return true;
      case 3:
        ln->timestamp_ns = static_cast<int64_t>(f.value);
        return true;
      case 9:
        ln->duration_ps = static_cast<int64_t>(f.value);
        return true;
      case 10:
        ln->display_id = static_cast<int64_t>(f.value);
        return true;
      default:
        break;
    }
  } else if (f.wire_type == kLengthDelimited) {
    if (f.number == 2) return String(f.bytes, &ln->name);
    if (f.number == 11) return String(f.bytes, &ln->display_name);
  }
  ++unknown_;
  return true;
}

// The fields of a line but its events (skipped: StreamLineEvents decodes them).
bool Decoder::ParseLineHeader(std::string_view msg, Line* ln) {
  const uint8_t* p = U(msg.data());
  const uint8_t* const end = p + msg.size();
  while (p < end) {
    if (*p == 0x22) {  // an event: skip
      uint64_t len;
      const uint8_t* q = Varint(p + 1, end, &len);
      if (q && len <= static_cast<uint64_t>(end - q)) [[likely]] {
        p = q + len;
        continue;
      }
    }
    WireReader r = Reader(View(p, end));
    WireField f;
    if (!r.Next(&f)) return FromReader(r);  // p < end: only fails on an error
    p = U(whole_.data()) + r.offset();
    if (f.wire_type == kLengthDelimited && f.number == 4) continue;  // an event
    if (!LineField(f, ln)) return false;
  }
  return true;
}

// A line written as protobuf writes it: id, name, timestamp_ns, the events,
// then duration_ps, display_id, display_name (fields 9-11, in that order,
// each optional). The fields after the events are found by trying each
// start in the line's last bytes and taking the first from which the rest
// parses as such fields. A start inside the last event can parse so only
// when its last bytes look like a field 9-11 before the line's first one,
// which is rare; StreamLineEvents then finds that the events do not fill the
// part between exactly.
bool Decoder::GuessLineHeader(std::string_view msg, Line* ln, std::string_view* events) {
  constexpr size_t kTail = 256;  // longest run of fields after the events looked for
  const uint8_t* const begin = U(msg.data());
  const uint8_t* const end = begin + msg.size();
  const uint64_t unknown = unknown_;  // restored when the line is skimmed instead
  const uint8_t* p = begin;
  while (p < end && *p != 0x22) {  // the fields before the first event
    WireReader r = Reader(View(p, end));
    WireField f;
    if (!r.Next(&f) || f.number == 4 || !LineField(f, ln)) {
      unknown_ = unknown;
      return false;
    }
    p = U(whole_.data()) + r.offset();
  }
  const uint8_t* tail = end;
  for (const uint8_t* c = end - std::min<size_t>(kTail, static_cast<size_t>(end - p)); c < end;
       ++c) {
    if (ParsesAsLineTrailer(c, end)) {
      tail = c;
      break;
    }
  }
  if (!ParseLineHeader(View(tail, end), ln)) {
    unknown_ = unknown;
    return false;
  }
  *events = View(p, tail);
  return true;
}

bool Decoder::ParsesAsLineTrailer(const uint8_t* p, const uint8_t* end) const {
  uint64_t last = 0;  // field numbers strictly increase, as protobuf writes them
  while (p < end) {
    uint64_t v;
    const uint64_t tag = *p++;
    if (tag == 0x48 || tag == 0x50) {  // duration_ps (9), display_id (10)
      p = Varint(p, end, &v);
    } else if (tag == 0x5a) {  // display_name (11)
      p = Varint(p, end, &v);
      size_t bad;
      p = p && v <= static_cast<uint64_t>(end - p) && ValidUtf8(View(p, p + v), &bad) ? p + v
                                                                                      : nullptr;
    } else {
      return false;
    }
    if (!p || (tag >> 3) <= last) return false;
    last = tag >> 3;
  }
  return true;
}

// The events of a line to the sink, in batches decoded into the same buffers
// (the batch's events, the plane's event_stats and the string values past
// the plane's own).
bool Decoder::StreamLineEvents(std::string_view msg, size_t index, Plane* pl, XSpaceSink* sink,
                               bool preview) {
  const uint8_t* p = U(msg.data());
  const uint8_t* const end = p + msg.size();
  if (!batch_) batch_ = std::make_unique<Event[]>(kBatch);
  Event* const events = batch_.get();
  size_t n = 0;  // events in the batch
  std::vector<Stat>& stats = pl->event_stats;
  stats.clear();
  uint64_t count = 0;
  auto flush = [&] {
    if (n) {
      const std::span<const Event> batch(events, n);
      if (preview) {
        sink->Preview(*pl, index, batch);
      } else {
        sink->LineEvents(*pl, index, batch);
      }
    }
    n = 0;
    stats.clear();
    if (pl->string_values && pl->string_values->size() > plane_strings_)
      pl->string_values->resize(plane_strings_);
  };
  while (p < end) {
    if (*p == 0x22) {  // an event (field 4, length-delimited): the hot path
      uint64_t len;
      const uint8_t* q = Varint(p + 1, end, &len);
      if (q && len <= static_cast<uint64_t>(end - q)) [[likely]] {
        if (n == kBatch) flush();
        const size_t stats_begin = stats.size();
        Event& ev = events[n++];  // FastEvent sets every field when it succeeds
        if (!FastEvent(q, q + len, &ev, stats_begin, pl)) [[unlikely]] {
          stats.resize(stats_begin);
          ev = Event();
          if (!ParseEvent(View(q, q + len), &ev, pl)) return Prepend("events", count);
        }
        ++count;
        p = q + len;
        continue;
      }
    }
    WireReader r = Reader(View(p, end));
    WireField f;
    if (!r.Next(&f)) return FromReader(r);
    p = U(whole_.data()) + r.offset();
    if (f.wire_type == kLengthDelimited && f.number == 4) {  // not the one-byte tag
      if (n == kBatch) flush();
      Event& ev = events[n++];
      ev = Event();
      if (!ParseEvent(f.bytes, &ev, pl)) return Prepend("events", count);
      ++count;
    } else if (guessed_[index]) {  // a wrong guess of where the events end
      error_.what = "line field among the events (guessed end of the events was wrong)";
      error_.offset = f.tag_offset;
      return false;
    }  // the line's other fields: ParseLineHeader
  }
  flush();
  if (!preview) sink->EndLine(*pl, index, count);
  return true;
}

// Stats (field 4) of one event, as far as a skim of its fields can tell.
size_t Decoder::CountStats(const uint8_t* p, const uint8_t* end) const {
  size_t n = 0;
  while (p < end) {
    uint64_t key, v;
    const uint8_t* q = Varint(p, end, &key);
    if (!q) break;
    if ((key & 7) == kVarint) {
      q = Varint(q, end, &v);
    } else if ((key & 7) == kLengthDelimited) {
      q = Varint(q, end, &v);
      if (!q || v > static_cast<uint64_t>(end - q)) break;
      q += v;
      n += key == 0x22;
    } else {
      break;
    }
    if (!q) break;
    p = q;
  }
  return n;
}

// Growing a line's events and a plane's event stats (one vector per plane) by
// doubling on a big capture copies them and faults fresh memory in again and
// again. So before each line, reserve from a sample of its first events
// (skimmed: tags and lengths): events = line bytes / bytes per sampled event,
// and when the plane's stats may not fit, stats for the rest of the plane at
// the stats per byte seen so far. Only hints: a wrong guess costs a
// reallocation or untouched address space, never a wrong result.
void Decoder::Reserve(const uint8_t* line, const uint8_t* line_end, Line* ln, Plane* pl) {
  constexpr size_t kSample = 64;
  size_t events = 0, stats_sampled = 0, bytes_sampled = 0;
  const uint8_t* p = line;
  while (p < line_end && events < kSample) {
    uint64_t key, v;
    const uint8_t* q = Varint(p, line_end, &key);
    if (!q) break;
    if ((key & 7) == kVarint) {
      q = Varint(q, line_end, &v);
    } else if ((key & 7) == kLengthDelimited) {
      q = Varint(q, line_end, &v);
      if (!q || v > static_cast<uint64_t>(line_end - q)) break;
      if (key == 0x22) {
        ++events;
        stats_sampled += CountStats(q, q + v);
        bytes_sampled += static_cast<size_t>(q + v - p);
      }
      q += v;
    } else {
      break;
    }
    if (!q) break;
    p = q;
  }
  if (events == 0) return;
  const size_t line_bytes = static_cast<size_t>(line_end - line);
  if (p < line_end) {  // more events than sampled: estimate
    events = static_cast<size_t>(static_cast<double>(line_bytes) * static_cast<double>(events) /
                                 static_cast<double>(bytes_sampled) * 1.05) +
             16;
  }
  ln->events.reserve(events);
  AdviseHugePages(ln->events.data(), ln->events.capacity() * sizeof(Event));

  std::vector<Stat>& stats = pl->event_stats;
  const double per_byte = static_cast<double>(stats.size() + stats_sampled) /
                          static_cast<double>(plane_event_bytes_ + bytes_sampled);
  const size_t line_need =
      static_cast<size_t>(per_byte * static_cast<double>(line_bytes) * 1.05) + 8;
  if (stats.capacity() - stats.size() >= line_need) return;
  const size_t rest = static_cast<size_t>(plane_end_ - line);
  size_t want = static_cast<size_t>(per_byte * static_cast<double>(rest) * 1.05);
  want = stats.size() + std::max(std::min(want, rest / 3), line_need);
  want = std::max(want, stats.capacity() + stats.capacity() / 2);
  stats.reserve(want);
  AdviseHugePages(stats.data() + stats.size(), (stats.capacity() - stats.size()) * sizeof(Stat));
}

// When a line's events or the plane's stats fill what Reserve guessed, grow
// to what the bytes decoded so far project for the rest (instead of doubling).
void Decoder::Regrow(const uint8_t* line, const uint8_t* at, const uint8_t* line_end, Line* ln,
                     Plane* pl) {
  std::vector<Event>& events = ln->events;
  if (events.size() == events.capacity()) {
    const double per_byte =
        at > line ? static_cast<double>(events.size()) / static_cast<double>(at - line) : 0.0;
    size_t want = events.size() +
                  static_cast<size_t>(per_byte * static_cast<double>(line_end - at) * 1.05) + 16;
    want = std::max(want, events.capacity() + events.capacity() / 4);
    events.reserve(want);
    AdviseHugePages(events.data() + events.size(),
                    (events.capacity() - events.size()) * sizeof(Event));
  }
  std::vector<Stat>& stats = pl->event_stats;
  if (stats.capacity() - stats.size() < 1024) {
    const size_t seen = plane_event_bytes_ + static_cast<size_t>(at - line);
    const double per_byte =
        seen ? static_cast<double>(stats.size()) / static_cast<double>(seen) : 0.0;
    size_t want = stats.size() +
                  static_cast<size_t>(per_byte * static_cast<double>(plane_end_ - at) * 1.05) +
                  1024;
    want = std::max(want, stats.capacity() + stats.capacity() / 4);
    stats.reserve(want);
    AdviseHugePages(stats.data() + stats.size(), (stats.capacity() - stats.size()) * sizeof(Stat));
  }
}

bool Decoder::ParseLine(std::string_view msg, Line* ln, Plane* pl) {
  const uint8_t* p = U(msg.data());
  const uint8_t* const end = p + msg.size();
  const uint8_t* const line = p;
  Reserve(p, end, ln, pl);
  std::vector<Event>& events = ln->events;
  std::vector<Stat>& stats = pl->event_stats;
  while (p < end) {
    if (*p == 0x22 && fast_) {  // an event (field 4, length-delimited): the hot path
      uint64_t len;
      const uint8_t* q = Varint(p + 1, end, &len);
      if (q && len <= static_cast<uint64_t>(end - q)) [[likely]] {
        if (events.size() == events.capacity() || stats.capacity() - stats.size() < 1024)
            [[unlikely]]
          Regrow(line, p, end, ln, pl);
        const size_t i = events.size(), stats_begin = pl->event_stats.size();
        Event& ev = events.emplace_back();  // (filled in place: no copy through the stack)
        if (!FastEvent(q, q + len, &ev, stats_begin, pl)) [[unlikely]] {
          pl->event_stats.resize(stats_begin);
          ev = Event();
          if (!ParseEvent(View(q, q + len), &ev, pl)) return Prepend("events", i);
        }
        p = q + len;
        continue;
      }
    }
    WireReader r = Reader(View(p, end));
    WireField f;
    if (!r.Next(&f)) return FromReader(r);  // p < end: only fails on an error
    p = U(whole_.data()) + r.offset();
    if (f.wire_type == kLengthDelimited && f.number == 4) {  // an event, not the one-byte tag
      size_t i = events.size();
      events.emplace_back();
      if (!ParseEvent(f.bytes, &events.back(), pl)) return Prepend("events", i);
      continue;
    }
    if (!LineField(f, ln)) return false;
  }
  plane_event_bytes_ += msg.size();
  return true;
}

// XEvent in field-number order, as protobuf writes it: metadata_id (1),
// offset_ps (2), duration_ps (3), stats (4)..., num_occurrences (5); absent
// fields are skipped. Fields in another order (or repeated) are left to the
// strict decoder.
[[gnu::always_inline]] inline bool Decoder::FastEvent(const uint8_t* p, const uint8_t* end,
                                                      Event* ev, size_t stats_begin, Plane* pl) {
  uint64_t metadata_id = 0, offset_or_count = 0, duration = 0, v;
  bool aggregate = false;
  if (p < end && *p == 0x08) {
    if (!(p = Varint(p + 1, end, &metadata_id))) return false;
  }
  if (p < end && *p == 0x10) {
    if (!(p = Varint(p + 1, end, &offset_or_count))) return false;
  }
  if (p < end && *p == 0x18) {
    if (!(p = Varint(p + 1, end, &duration))) return false;
  }
  size_t stats = 0;
  std::vector<Stat>& column = pl->event_stats;
  while (p < end && *p == 0x22) {
    if (!(p = Varint(p + 1, end, &v)) || v > static_cast<uint64_t>(end - p)) return false;
    if (!FastStat(p, p + v, &column.emplace_back(), pl)) return false;
    ++stats;
    p += v;
  }
  if (p < end && *p == 0x28) {
    if (!(p = Varint(p + 1, end, &offset_or_count))) return false;
    aggregate = true;
  }
  if (p != end || stats > Event::kMaxStats) return false;
  ev->metadata_id = static_cast<int64_t>(metadata_id);
  ev->offset_ps = static_cast<int64_t>(offset_or_count);  // or num_occurrences: one slot
  ev->duration_ps = static_cast<int64_t>(duration);
  ev->stats_begin = stats_begin;
  ev->stats_count = stats;
  ev->has_num_occurrences = aggregate;
  return true;
}

// XStat: metadata_id (1) then one value; anything else goes to ParseStat.
[[gnu::always_inline]] inline bool Decoder::FastStat(const uint8_t* p, const uint8_t* end, Stat* st,
                                                     Plane* pl) {
  // Kind of a varint value by its one-byte tag: uint64 (3), int64 (4), ref (7).
  static constexpr auto kVarintKind = [] {
    std::array<StatKind, 64> k{};
    k[0x18] = StatKind::kUint64;
    k[0x20] = StatKind::kInt64;
    k[0x38] = StatKind::kRef;
    return k;
  }();
  uint64_t v;
  if (p < end && *p == 0x08) {
    if (!(p = Varint(p + 1, end, &v)) || !StatIdFits(v)) return false;
    st->metadata_id = static_cast<int64_t>(v);
  }
  if (p == end) return true;
  const uint8_t tag = *p;
  if (tag < 64 && kVarintKind[tag] != StatKind::kNone) {
    if (!(p = Varint(p + 1, end, &st->raw))) return false;
    st->kind = kVarintKind[tag];
  } else if (tag == 0x11) {  // double_value
    if (end - p < 9) return false;
    std::memcpy(&st->raw, p + 1, 8);
    st->kind = StatKind::kDouble;
    p += 9;
  } else if (tag == 0x2A || tag == 0x32) {  // str_value, bytes_value
    if (!(p = Varint(p + 1, end, &v)) || v > static_cast<uint64_t>(end - p)) return false;
    const std::string_view s = View(p, p + v);
    size_t bad;
    if (tag == 0x2A && !ValidUtf8(s, &bad)) return false;
    st->kind = tag == 0x2A ? StatKind::kStr : StatKind::kBytes;
    st->str = Store(pl, s);
    p += v;
  } else {
    return false;
  }
  return p == end;
}

bool Decoder::ParseEvent(std::string_view msg, Event* ev, Plane* pl) {
  WireReader r = Reader(msg);
  WireField f;
  ev->stats_begin = pl->event_stats.size();
  while (r.Next(&f)) {
    if (f.wire_type == kVarint) {
      switch (f.number) {
        case 1:
          ev->metadata_id = static_cast<int64_t>(f.value);
          continue;
        case 2:  // offset_ps and num_occurrences: a oneof, one slot
          ev->offset_ps = static_cast<int64_t>(f.value);
          ev->has_num_occurrences = false;
          continue;
        case 5:
          ev->num_occurrences = static_cast<int64_t>(f.value);
          ev->has_num_occurrences = true;
          continue;
        case 3:
          ev->duration_ps = static_cast<int64_t>(f.value);
          continue;
        default:
          break;
      }
    } else if (f.wire_type == kLengthDelimited && f.number == 4) {
      size_t i = ev->stats_count;
      if (i == Event::kMaxStats) {
        error_.what =
            "more than " + std::to_string(Event::kMaxStats) + " stats in one event (not supported)";
        error_.offset = f.tag_offset;
        return Prepend("stats", i);
      }
      if (!ParseStat(f.bytes, &pl->event_stats.emplace_back(), pl)) return Prepend("stats", i);
      ++ev->stats_count;
      continue;
    }
    ++unknown_;
  }
  return r.failed() ? FromReader(r) : true;
}

bool Decoder::ParseStat(std::string_view msg, Stat* st, Plane* pl) {
  WireReader r = Reader(msg);
  WireField f;
  std::string_view str;  // the last str/bytes value
  while (r.Next(&f)) {
    switch (f.number) {
      case 1:
        if (f.wire_type != kVarint) break;
        if (!StatIdFits(f.value)) {
          error_.what = "stat metadata_id " + std::to_string(static_cast<int64_t>(f.value)) +
                        " beyond +-2^55 (not supported)";
          error_.offset = f.tag_offset;
          return false;
        }
        st->metadata_id = static_cast<int64_t>(f.value);
        continue;
      case 2:
        if (f.wire_type != kFixed64) break;
        st->kind = StatKind::kDouble;
        st->raw = f.value;
        continue;
      case 3:
        if (f.wire_type != kVarint) break;
        st->kind = StatKind::kUint64;
        st->raw = f.value;
        continue;
      case 4:
        if (f.wire_type != kVarint) break;
        st->kind = StatKind::kInt64;
        st->raw = f.value;
        continue;
      case 5:
        if (f.wire_type != kLengthDelimited) break;
        if (!Utf8(f.bytes)) return false;
        st->kind = StatKind::kStr;
        str = f.bytes;
        continue;
      case 6:
        if (f.wire_type != kLengthDelimited) break;
        st->kind = StatKind::kBytes;
        str = f.bytes;
        continue;
      case 7:
        if (f.wire_type != kVarint) break;
        st->kind = StatKind::kRef;
        st->raw = f.value;
        continue;
      default:
        break;
    }
    ++unknown_;
  }
  if (r.failed()) return FromReader(r);
  st->str = st->kind == StatKind::kStr || st->kind == StatKind::kBytes ? Store(pl, str) : StatStr();
  return true;
}

bool Decoder::ParseEventMetadataEntry(std::string_view msg, EventMetadata* md, Plane* pl) {
  WireReader r = Reader(msg);
  WireField f;
  while (r.Next(&f)) {
    if (f.number == 1 && f.wire_type == kVarint) {
      md->key = static_cast<int64_t>(f.value);
    } else if (f.number == 2 && f.wire_type == kLengthDelimited) {
      int64_t key = md->key;
      *md = EventMetadata();  // a repeated value replaces the earlier one
      md->key = key;
      if (!ParseEventMetadata(f.bytes, md, pl)) return Prepend("value");
    } else {
      ++unknown_;
    }
  }
  return r.failed() ? FromReader(r) : true;
}

bool Decoder::ParseEventMetadata(std::string_view msg, EventMetadata* md, Plane* pl) {
  WireReader r = Reader(msg);
  WireField f;
  while (r.Next(&f)) {
    switch (f.number) {
      case 1:
        if (f.wire_type != kVarint) break;
        md->id = static_cast<int64_t>(f.value);
        continue;
      case 2:
        if (f.wire_type != kLengthDelimited) break;
        if (!String(f.bytes, &md->name)) return false;
        continue;
      case 4:
        if (f.wire_type != kLengthDelimited) break;
        if (!String(f.bytes, &md->display_name)) return false;
        continue;
      case 3:
        if (f.wire_type != kLengthDelimited) break;
        md->metadata.assign(f.bytes.data(), f.bytes.size());
        continue;
      case 5: {
        if (f.wire_type != kLengthDelimited) break;
        size_t i = md->stats.size();
        if (!ParseStat(f.bytes, &md->stats.emplace_back(), pl)) return Prepend("stats", i);
        continue;
      }
      case 6:
        if (f.wire_type == kVarint) {
          md->child_ids.push_back(static_cast<int64_t>(f.value));
          continue;
        }
        if (f.wire_type == kLengthDelimited) {
          if (!r.ForEachPackedVarint(
                  f.bytes, [md](uint64_t v) { md->child_ids.push_back(static_cast<int64_t>(v)); }))
            return FromReader(r);
          continue;
        }
        break;
      default:
        break;
    }
    ++unknown_;
  }
  return r.failed() ? FromReader(r) : true;
}

bool Decoder::ParseStatMetadataEntry(std::string_view msg, StatMetadata* md) {
  WireReader r = Reader(msg);
  WireField f;
  while (r.Next(&f)) {
    if (f.number == 1 && f.wire_type == kVarint) {
      md->key = static_cast<int64_t>(f.value);
    } else if (f.number == 2 && f.wire_type == kLengthDelimited) {
      int64_t key = md->key;
      *md = StatMetadata();
      md->key = key;
      if (!ParseStatMetadata(f.bytes, md)) return Prepend("value");
    } else {
      ++unknown_;
    }
  }
  return r.failed() ? FromReader(r) : true;
}

bool Decoder::ParseStatMetadata(std::string_view msg, StatMetadata* md) {
  WireReader r = Reader(msg);
  WireField f;
  while (r.Next(&f)) {
    if (f.number == 1 && f.wire_type == kVarint) {
      md->id = static_cast<int64_t>(f.value);
    } else if (f.number == 2 && f.wire_type == kLengthDelimited) {
      if (!String(f.bytes, &md->name)) return false;
    } else if (f.number == 3 && f.wire_type == kLengthDelimited) {
      if (!String(f.bytes, &md->description)) return false;
    } else {
      ++unknown_;
    }
  }
  return r.failed() ? FromReader(r) : true;
}

}  // namespace

namespace {

th::StatusOr<XSpaceData> Read(std::string_view bytes, const std::string& name, bool fast) {
  XSpaceData out;
  Decoder d(bytes, fast);
  if (!d.ParseSpace(&out)) {
    return th::InvalidInput(name + ": " + d.error().what + " at byte offset " +
                            std::to_string(d.error().offset) + " (in " + d.path() + ")");
  }
  return out;
}

}  // namespace

th::StatusOr<XSpaceData> ReadXSpace(std::string_view bytes, const std::string& name) {
  return Read(bytes, name, /*fast=*/true);
}

th::StatusOr<XSpaceData> ReadXSpaceStrictOnly(std::string_view bytes, const std::string& name) {
  return Read(bytes, name, /*fast=*/false);
}

void ReplayXSpace(const XSpaceData& data, XSpaceSink* sink) {
  for (const Plane& plane : data.planes) {
    for (size_t i : sink->BeginPlane(plane))
      if (i < plane.lines.size()) sink->Preview(plane, i, plane.lines[i].events);
    for (size_t i = 0; i < plane.lines.size(); ++i) {
      const std::vector<Event>& events = plane.lines[i].events;
      sink->BeginLine(plane, i);
      if (!events.empty()) sink->LineEvents(plane, i, events);
      sink->EndLine(plane, i, events.size());
    }
    sink->EndPlane(plane);
  }
}

namespace {

// A 0-byte file decodes as an empty XSpace message; as a capture it is a
// failed or truncated write, not a trace with nothing in it.
th::Status EmptyCapture(const std::string& path) {
  return th::Unsupported(th::PrintableBytes(path) +
                         ": empty file (0 bytes), not an XSpace capture");
}

// The file mapped read-only.
class MappedFile {
 public:
  th::Status Open(const std::string& path) {
    auto file = th::OpenRegularFile(path);
    if (!file.ok()) return file.status();
    int fd = file->fd;
    size_ = static_cast<size_t>(file->size);
    if (size_ == 0) {
      ::close(fd);
      return EmptyCapture(path);
    }
    void* map = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    ::close(fd);
    if (map == MAP_FAILED) {
      size_ = 0;
      return th::IoError(path + ": cannot map: " + std::strerror(e));
    }
    map_ = map;
    ::madvise(map, size_, MADV_SEQUENTIAL);
    return th::Ok();
  }
  ~MappedFile() {
    if (map_) ::munmap(map_, size_);
  }
  std::string_view bytes() const { return {static_cast<const char*>(map_), map_ ? size_ : 0}; }

 private:
  void* map_ = nullptr;
  size_t size_ = 0;
};

}  // namespace

th::Status StreamXSpace(std::string_view bytes, const std::string& name, XSpaceSink* sink,
                        bool guess_line_ends, bool* guess_failed) {
  if (bytes.empty()) return EmptyCapture(name);
  XSpaceData rest;  // the capture's own fields (hostnames, errors, ...)
  Decoder d(bytes, /*fast=*/true, guess_line_ends);
  if (d.ParseSpace(&rest, sink)) return th::Ok();
  if (guess_line_ends) {  // a wrong guess, or bad input: the caller decodes again
    if (guess_failed) *guess_failed = true;
    return th::Internal(name + ": decoding with guessed line ends failed: " + d.error().what);
  }
  // The whole-model decoder names the error (offset and path) as ReadXSpaceFile does.
  auto whole = ReadXSpace(bytes, name);
  if (!whole.ok()) return whole.status();
  return th::Internal(name + ": streaming decoder failed: " + d.error().what + " at byte offset " +
                      std::to_string(d.error().offset));
}

th::Status StreamXSpaceFile(const std::string& path, XSpaceSink* sink, bool guess_line_ends,
                            bool* guess_failed) {
  MappedFile file;
  TH_RETURN_IF_ERROR(file.Open(path));
  return StreamXSpace(file.bytes(), path, sink, guess_line_ends, guess_failed);
}

th::StatusOr<XSpaceData> ReadXSpaceFile(const std::string& path) {
  auto file = th::OpenRegularFile(path);
  if (!file.ok()) return file.status();
  int fd = file->fd;
  size_t size = static_cast<size_t>(file->size);
  if (size == 0) {
    ::close(fd);
    return EmptyCapture(path);
  }
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  int e = errno;
  ::close(fd);
  if (map == MAP_FAILED) return th::IoError(path + ": cannot map: " + std::strerror(e));
  ::madvise(map, size, MADV_SEQUENTIAL);
  auto result = ReadXSpace(std::string_view(static_cast<const char*>(map), size), path);
  ::munmap(map, size);
  return result;
}

}  // namespace th::xspace
