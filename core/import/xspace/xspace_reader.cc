#include "core/import/xspace/xspace_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>

#include "core/import/xspace/wire_reader.h"

namespace th::xspace {
namespace {

// Recursive descent over the XSpace messages. Each Parse* returns false on the
// first error; callers prepend their path component while unwinding, so the
// path is only built on failure.
class Decoder : public MessageDecoder {
 public:
  explicit Decoder(std::string_view whole) : MessageDecoder(whole) {}

  bool ParseSpace(XSpaceData* out);

 private:
  bool ParsePlane(std::string_view msg, Plane* pl);
  bool ParseLine(std::string_view msg, Line* ln, Plane* pl);
  bool ParseEvent(std::string_view msg, Event* ev, Plane* pl);
  bool ParseStat(std::string_view msg, Stat* st);
  bool ParseEventMetadataEntry(std::string_view msg, EventMetadata* md);
  bool ParseEventMetadata(std::string_view msg, EventMetadata* md);
  bool ParseStatMetadataEntry(std::string_view msg, StatMetadata* md);
  bool ParseStatMetadata(std::string_view msg, StatMetadata* md);

  uint64_t unknown_ = 0;
};

bool Decoder::ParseSpace(XSpaceData* out) {
  WireReader r = Reader(whole_);
  WireField f;
  while (r.Next(&f)) {
    if (f.wire_type == kLengthDelimited) {
      switch (f.number) {
        case 1: {
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

bool Decoder::ParsePlane(std::string_view msg, Plane* pl) {
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
        if (!ParseLine(f.bytes, &pl->lines.back(), pl)) return Prepend("lines", i);
        continue;
      }
      case 4: {
        if (f.wire_type != kLengthDelimited) break;
        size_t i = pl->event_metadata.size();
        EventMetadata& md = pl->event_metadata.emplace_back();
        if (!ParseEventMetadataEntry(f.bytes, &md)) return Prepend("event_metadata", i);
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
        if (!ParseStat(f.bytes, &pl->stats.emplace_back())) return Prepend("stats", i);
        continue;
      }
      default:
        break;
    }
    ++unknown_;
  }
  return r.failed() ? FromReader(r) : true;
}

bool Decoder::ParseLine(std::string_view msg, Line* ln, Plane* pl) {
  WireReader r = Reader(msg);
  WireField f;
  while (r.Next(&f)) {
    if (f.wire_type == kVarint) {
      switch (f.number) {
        case 1:
          ln->id = static_cast<int64_t>(f.value);
          continue;
        case 10:
          ln->display_id = static_cast<int64_t>(f.value);
          continue;
        case 3:
          ln->timestamp_ns = static_cast<int64_t>(f.value);
          continue;
        case 9:
          ln->duration_ps = static_cast<int64_t>(f.value);
          continue;
        default:
          break;
      }
    } else if (f.wire_type == kLengthDelimited) {
      switch (f.number) {
        case 4: {
          size_t i = ln->events.size();
          ln->events.emplace_back();
          if (!ParseEvent(f.bytes, &ln->events.back(), pl)) return Prepend("events", i);
          continue;
        }
        case 2:
          if (!String(f.bytes, &ln->name)) return false;
          continue;
        case 11:
          if (!String(f.bytes, &ln->display_name)) return false;
          continue;
        default:
          break;
      }
    }
    ++unknown_;
  }
  return r.failed() ? FromReader(r) : true;
}

bool Decoder::ParseEvent(std::string_view msg, Event* ev, Plane* pl) {
  WireReader r = Reader(msg);
  WireField f;
  ev->stats_begin = static_cast<uint32_t>(pl->event_stats.size());
  while (r.Next(&f)) {
    if (f.wire_type == kVarint) {
      switch (f.number) {
        case 1:
          ev->metadata_id = static_cast<int64_t>(f.value);
          continue;
        case 2:
          ev->offset_ps = static_cast<int64_t>(f.value);
          ev->num_occurrences = 0;
          ev->has_num_occurrences = false;
          continue;
        case 5:
          ev->num_occurrences = static_cast<int64_t>(f.value);
          ev->offset_ps = 0;
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
      if (!ParseStat(f.bytes, &pl->event_stats.emplace_back())) return Prepend("stats", i);
      ++ev->stats_count;
      continue;
    }
    ++unknown_;
  }
  return r.failed() ? FromReader(r) : true;
}

bool Decoder::ParseStat(std::string_view msg, Stat* st) {
  WireReader r = Reader(msg);
  WireField f;
  while (r.Next(&f)) {
    switch (f.number) {
      case 1:
        if (f.wire_type != kVarint) break;
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
        st->kind = StatKind::kStr;
        if (!String(f.bytes, &st->str)) return false;
        continue;
      case 6:
        if (f.wire_type != kLengthDelimited) break;
        st->kind = StatKind::kBytes;
        st->str.assign(f.bytes.data(), f.bytes.size());
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
  if (st->kind != StatKind::kStr && st->kind != StatKind::kBytes) st->str.clear();
  return r.failed() ? FromReader(r) : true;
}

bool Decoder::ParseEventMetadataEntry(std::string_view msg, EventMetadata* md) {
  WireReader r = Reader(msg);
  WireField f;
  while (r.Next(&f)) {
    if (f.number == 1 && f.wire_type == kVarint) {
      md->key = static_cast<int64_t>(f.value);
    } else if (f.number == 2 && f.wire_type == kLengthDelimited) {
      int64_t key = md->key;
      *md = EventMetadata();  // a repeated value replaces the earlier one
      md->key = key;
      if (!ParseEventMetadata(f.bytes, md)) return Prepend("value");
    } else {
      ++unknown_;
    }
  }
  return r.failed() ? FromReader(r) : true;
}

bool Decoder::ParseEventMetadata(std::string_view msg, EventMetadata* md) {
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
        if (!ParseStat(f.bytes, &md->stats.emplace_back())) return Prepend("stats", i);
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

th::StatusOr<XSpaceData> ReadXSpace(std::string_view bytes, const std::string& name) {
  XSpaceData out;
  Decoder d(bytes);
  if (!d.ParseSpace(&out)) {
    return th::InvalidInput(name + ": " + d.error().what + " at byte offset " +
                            std::to_string(d.error().offset) + " (in " + d.path() + ")");
  }
  return out;
}

th::StatusOr<XSpaceData> ReadXSpaceFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return th::IoError(path + ": cannot open: " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return th::IoError(path + ": cannot stat: " + std::strerror(e));
  }
  size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return ReadXSpace(std::string_view(), path);
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
