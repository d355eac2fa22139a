// The 7-bit groups of 8 varint bytes (read as one little-endian word,
// continuation bits ignored) gathered into 56 bits: the inner step of the
// XSpace reader's multi-byte varint decoder.
#pragma once

#include <cstdint>

#if defined(__BMI2__)
#include <immintrin.h>
#endif

namespace th::xspace {

// Three shift-and-mask steps; any 64-bit CPU.
[[gnu::always_inline]] inline uint64_t Gather7Shifts(uint64_t x) {
  x &= 0x7F7F7F7F7F7F7F7Full;
  x = ((x & 0x7F007F007F007F00ull) >> 1) | (x & 0x007F007F007F007Full);
  x = ((x & 0x3FFF00003FFF0000ull) >> 2) | (x & 0x00003FFF00003FFFull);
  return ((x & 0x0FFFFFFF00000000ull) >> 4) | (x & 0x000000000FFFFFFFull);
}

#if defined(__BMI2__)
// One PEXT.
[[gnu::always_inline]] inline uint64_t Gather7Pext(uint64_t x) {
  return _pext_u64(x, 0x7F7F7F7F7F7F7F7Full);
}

// PEXT is one fast instruction on Intel CPUs since Haswell and AMD since Zen 3,
// but microcode taking tens to hundreds of cycles on AMD Zen 1 and 2.
bool PextIsFast();
inline const bool kPextIsFast = PextIsFast();
#endif

[[gnu::always_inline]] inline uint64_t Gather7(uint64_t x) {
#if defined(__BMI2__)
  if (kPextIsFast) [[likely]]
    return Gather7Pext(x);
#endif
  return Gather7Shifts(x);
}

}  // namespace th::xspace
