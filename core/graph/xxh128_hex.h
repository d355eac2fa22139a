// An XXH3-128 hash (libxxhash) as 32 lowercase hex digits, in the canonical
// (big-endian) byte order: the form content keys are stored and compared in.
#pragma once

#include <xxhash.h>

#include <string>

namespace th {

inline std::string Xxh128Hex(XXH128_hash_t h) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, h);
  static const char kDigits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[2 * i] = kDigits[c.digest[i] >> 4];
    out[2 * i + 1] = kDigits[c.digest[i] & 15];
  }
  return out;
}

}  // namespace th
