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

}  // namespace th::xspace
