// A strict protobuf wire-format decoder over a byte span.
//
// No libprotobuf: XSpace files can exceed protobuf's 2 GiB message limit, so
// the importer walks the wire format directly. Strictness follows
// ../shared/tools/oracle.py: a truncated varint or fixed field, a varint that
// overflows 64 bits, a length running past its enclosing message, field number
// 0 and wire types 3/4/6/7 are errors. Offsets are absolute (from the start of
// the whole buffer), so an error names the byte that failed.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "core/graph/utf8.h"

namespace th::xspace {

enum WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// One decoded field. `value` holds the varint or the little-endian fixed
// value; `bytes` the payload of a length-delimited field.
struct WireField {
  uint64_t number = 0;
  uint8_t wire_type = 0;
  uint64_t value = 0;
  std::string_view bytes;
  uint64_t tag_offset = 0;  // absolute offset of the tag
};

// The first decoding failure: what went wrong and the absolute byte offset.
struct WireError {
  std::string what;
  uint64_t offset = 0;
};

// Reads the fields of one message, [begin, end) of `whole`.
class WireReader {
 public:
  WireReader(std::string_view whole, std::string_view message)
      : base_(reinterpret_cast<const uint8_t*>(whole.data())),
        pos_(reinterpret_cast<const uint8_t*>(message.data())),
        end_(pos_ + message.size()) {}

  // Reads the next field into *f. Returns false at the end of the message or
  // on error; failed() tells which, error() says what.
  [[gnu::always_inline]] inline bool Next(WireField* f);

  bool failed() const { return failed_; }
  const WireError& error() const { return error_; }
  // Decodes a packed run of varints (`payload` is a field's bytes) and calls
  // fn(uint64_t) for each. Returns false on error (failed() is then set).
  template <typename Fn>
  bool ForEachPackedVarint(std::string_view payload, Fn&& fn);

  // Absolute offset just past the last field read (the next tag).
  uint64_t offset() const { return OffsetOf(pos_); }
  uint64_t OffsetOf(const void* p) const {
    return static_cast<uint64_t>(static_cast<const uint8_t*>(p) - base_);
  }

 private:
  // Decodes a varint at *p (bounded by end). Fast path inline.
  inline bool ReadVarint(const uint8_t** p, const uint8_t* end, uint64_t* out);
  bool ReadVarintSlow(const uint8_t** p, const uint8_t* end, uint64_t* out);
  // Error reporting, kept out of line so Next() stays small enough to inline.
  [[gnu::cold, gnu::noinline]] bool Fail(std::string what, const uint8_t* at);
  [[gnu::cold, gnu::noinline]] bool FailLength(uint64_t len, uint64_t field, uint64_t tag_offset,
                                               uint64_t left, const uint8_t* at);
  [[gnu::cold, gnu::noinline]] bool FailTruncatedFixed(int bits, uint64_t field, const uint8_t* at);
  [[gnu::cold, gnu::noinline]] bool FailWireType(int wire_type, uint64_t field, const uint8_t* at);
  [[gnu::cold, gnu::noinline]] bool FailFieldZero(const uint8_t* at);

  const uint8_t* base_;
  const uint8_t* pos_;
  const uint8_t* end_;
  bool failed_ = false;
  WireError error_;
};

// Validates UTF-8 like Python's strict decoder (core/graph/utf8.h).
using th::ValidUtf8;

// State shared by the message decoders built on WireReader (XSpace, HLO): the
// whole buffer, the first error, and the message path, which callers build on
// the way back up only when something failed ("planes[2].lines[0]").
class MessageDecoder {
 public:
  const WireError& error() const { return error_; }
  const std::string& path() const { return path_; }
  // Prefix the path with a field name (and an index); return false so
  // `return Prepend(...)` unwinds.
  bool Prepend(const std::string& name) {
    path_ = path_.empty() ? name : name + "." + path_;
    return false;
  }
  bool Prepend(const char* name, size_t index) {
    return Prepend(std::string(name) + "[" + std::to_string(index) + "]");
  }

  explicit MessageDecoder(std::string_view whole) : whole_(whole) {}

  WireReader Reader(std::string_view msg) const { return WireReader(whole_, msg); }
  // Copies a string field into *out after validating UTF-8.
  bool String(std::string_view s, std::string* out) {
    if (!Utf8(s)) return false;
    out->assign(s.data(), s.size());
    return true;
  }
  // Validates a string field's UTF-8; on failure the error names its first bad byte.
  bool Utf8(std::string_view s) {
    size_t bad;
    if (ValidUtf8(s, &bad)) return true;
    error_.what = "invalid UTF-8 in string field";
    error_.offset = static_cast<uint64_t>(s.data() - whole_.data()) + bad;
    return false;
  }
  bool FromReader(const WireReader& r) {
    error_ = r.error();
    return false;
  }

 protected:
  std::string_view whole_;
  WireError error_;
  std::string path_;
};

inline bool WireReader::ReadVarint(const uint8_t** p, const uint8_t* end, uint64_t* out) {
  const uint8_t* q = *p;
  if (q < end && *q < 0x80) {
    *out = *q;
    *p = q + 1;
    return true;
  }
  if (end - q >= 10) {
    // At least 10 bytes left: no bounds checks. The 10th byte may only be 0 or 1.
    uint64_t r = q[0] & 0x7Fu;
    for (int i = 1; i < 10; ++i) {
      uint64_t b = q[i];
      r |= (b & 0x7Fu) << (7 * i);
      if (b < 0x80) {
        if (i == 9 && b > 1) break;  // overflow: let the slow path report it
        *out = r;
        *p = q + i + 1;
        return true;
      }
    }
  }
  return ReadVarintSlow(p, end, out);
}

inline bool WireReader::Next(WireField* f) {
  if (pos_ >= end_) return false;
  const uint8_t* tag_at = pos_;
  uint64_t key;
  if (!ReadVarint(&pos_, end_, &key)) return false;
  f->number = key >> 3;
  f->wire_type = static_cast<uint8_t>(key & 7);
  f->tag_offset = OffsetOf(tag_at);
  if (f->number == 0) return FailFieldZero(tag_at);
  switch (f->wire_type) {
    case kVarint:
      return ReadVarint(&pos_, end_, &f->value);
    case kLengthDelimited: {
      const uint8_t* len_at = pos_;
      uint64_t len;
      if (!ReadVarint(&pos_, end_, &len)) return false;
      uint64_t left = static_cast<uint64_t>(end_ - pos_);
      if (len > left) {
        return FailLength(len, f->number, f->tag_offset, left, len_at);
      }
      f->bytes = std::string_view(reinterpret_cast<const char*>(pos_), len);
      pos_ += len;
      return true;
    }
    case kFixed64:
      if (end_ - pos_ < 8) {
        return FailTruncatedFixed(64, f->number, tag_at);
      }
      std::memcpy(&f->value, pos_, 8);  // little-endian hosts only (x86-64, arm64)
      pos_ += 8;
      return true;
    case kFixed32: {
      if (end_ - pos_ < 4) {
        return FailTruncatedFixed(32, f->number, tag_at);
      }
      uint32_t v;
      std::memcpy(&v, pos_, 4);
      f->value = v;
      pos_ += 4;
      return true;
    }
    default:
      return FailWireType(f->wire_type, f->number, tag_at);
  }
}

template <typename Fn>
bool WireReader::ForEachPackedVarint(std::string_view payload, Fn&& fn) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(payload.data());
  const uint8_t* end = p + payload.size();
  while (p < end) {
    uint64_t v;
    if (!ReadVarint(&p, end, &v)) return false;
    fn(v);
  }
  return true;
}

}  // namespace th::xspace
