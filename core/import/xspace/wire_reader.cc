#include "core/import/xspace/wire_reader.h"

namespace th::xspace {

bool WireReader::Fail(std::string what, const uint8_t* at) {
  failed_ = true;
  error_.what = std::move(what);
  error_.offset = OffsetOf(at);
  return false;
}

bool WireReader::FailLength(uint64_t len, uint64_t field, uint64_t tag_offset, uint64_t left,
                            const uint8_t* at) {
  return Fail("length " + std::to_string(len) + " of field " + std::to_string(field) +
                  " (tag at offset " + std::to_string(tag_offset) +
                  ") runs past the end of its enclosing message (" + std::to_string(left) +
                  " bytes left)",
              at);
}

bool WireReader::FailTruncatedFixed(int bits, uint64_t field, const uint8_t* at) {
  return Fail("truncated fixed" + std::to_string(bits) + " field " + std::to_string(field), at);
}

bool WireReader::FailWireType(int wire_type, uint64_t field, const uint8_t* at) {
  return Fail("unsupported wire type " + std::to_string(wire_type) + " (field " +
                  std::to_string(field) + ")",
              at);
}

bool WireReader::FailFieldZero(const uint8_t* at) { return Fail("invalid field number 0", at); }

bool WireReader::ReadVarintSlow(const uint8_t** p, const uint8_t* end, uint64_t* out) {
  const uint8_t* start = *p;
  const uint8_t* q = start;
  uint64_t result = 0;
  int shift = 0;
  while (true) {
    if (q >= end) return Fail("truncated varint", start);
    uint8_t b = *q++;
    if (shift == 63 && b > 1) return Fail("varint overflows 64 bits", start);
    result |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) break;
    shift += 7;
    if (shift > 63) return Fail("varint longer than 10 bytes", start);
  }
  *out = result;
  *p = q;
  return true;
}

bool ValidUtf8(std::string_view s, size_t* bad_index) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    // ASCII run, 8 bytes at a time.
    while (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      if (w & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= n) break;
    uint8_t c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint8_t lo = 0x80, hi = 0xBF;  // bounds of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;  // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      *bad_index = i;
      return false;
    }
    if (i + 1 >= n || p[i + 1] < lo || p[i + 1] > hi) {
      *bad_index = i;
      return false;
    }
    for (size_t k = 2; k < len; ++k) {
      if (i + k >= n || (p[i + k] & 0xC0) != 0x80) {
        *bad_index = i;
        return false;
      }
    }
    i += len;
  }
  return true;
}

}  // namespace th::xspace
