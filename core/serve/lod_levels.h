// Level-of-detail arithmetic shared by the index, its queries and its tests.
//
// Contract: level L (0..kMaxLevel) has pixel buckets of 2^L ns; tile k of
// level L covers [k * kTileBuckets * 2^L, (k + 1) * kTileBuckets * 2^L) on the
// trace's ns clock. Bucket and tile numbers are floors (negative times work).
// An event of duration d has class -1 when d <= 0, else floor(log2(d)); it is
// narrow at level L when d < 2^L, i.e. class < L. Sums and ends are computed
// in 128 bits: no int64 value can overflow them.
#pragma once

#include <bit>
#include <cstdint>

namespace th::serve {

using Int128 = __int128;

inline constexpr int kTileBucketsLog2 = 8;
inline constexpr int kTileBuckets = 1 << kTileBucketsLog2;  // buckets per tile
inline constexpr int kMaxLevel = 62;

// floor(log2(dur)), -1 for zero (and for negative durations, read as zero).
inline int DurationClass(int64_t dur) {
  return dur <= 0 ? -1 : 63 - std::countl_zero(static_cast<uint64_t>(dur));
}

// floor(x / 2^shift) for any shift >= 0.
inline int64_t FloorShift(int64_t x, int shift) {
  if (shift >= 63) return x < 0 ? -1 : 0;
  return x >> shift;  // arithmetic shift: a floor in C++20
}

// 2^level as a 128-bit value (level <= 126).
inline Int128 Pow2(int level) { return static_cast<Int128>(1) << level; }

// Start of tile `tile` of `level` (may lie outside the int64 range).
inline Int128 TileStart(int level, int64_t tile) {
  return static_cast<Int128>(tile) * Pow2(level + kTileBucketsLog2);
}

// End (exclusive) of an event: ts + max(dur, 0), exact.
inline Int128 EventEnd(int64_t ts, int64_t dur) {
  return static_cast<Int128>(ts) + (dur > 0 ? dur : 0);
}

// min(x, INT64_MAX) as int64, for values >= INT64_MIN.
inline int64_t SaturateToInt64(Int128 x) {
  return x > static_cast<Int128>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(x);
}

// Whether an end stored saturated (SaturateToInt64) may be > t: INT64_MAX
// stands for any end from INT64_MAX up.
inline bool MayEndAfter(int64_t saturated_end, Int128 t) {
  return saturated_end == INT64_MAX || static_cast<Int128>(saturated_end) > t;
}

// a + b saturating at INT64_MAX (both >= 0).
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t out;
  return __builtin_add_overflow(a, b, &out) ? INT64_MAX : out;
}

}  // namespace th::serve
