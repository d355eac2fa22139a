// Random rows for the level-of-detail tests: times and durations drawn to hit
// negative times, instants, clusters, huge durations and the int64 extremes.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "tests/core/serve/lod_brute_force.h"

namespace th::serve::testing {

inline int64_t RandomDuration(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0: return 0;
    case 1: return static_cast<int64_t>(rng() % 4);
    case 2: return INT64_MAX - static_cast<int64_t>(rng() % 3);
    case 3: return static_cast<int64_t>(rng() >> (1 + rng() % 63));  // log-uniform-ish, huge included
    default: return static_cast<int64_t>(rng() % (int64_t{1} << (rng() % 24)));
  }
}

inline int64_t RandomStart(std::mt19937_64& rng, int64_t cluster) {
  switch (rng() % 8) {
    case 0: return INT64_MIN + static_cast<int64_t>(rng() % 1000);
    case 1: return INT64_MAX - static_cast<int64_t>(rng() % 1000);
    case 2: return static_cast<int64_t>(rng());  // anywhere
    case 3: return -static_cast<int64_t>(rng() % 100000);
    default: return cluster + static_cast<int64_t>(rng() % 200000) - 100000;
  }
}

// `n` events over `tracks` tracks and depths 0..3.
inline std::vector<SyntheticEvent> RandomEvents(std::mt19937_64& rng, size_t n, uint32_t tracks) {
  std::vector<SyntheticEvent> out;
  const int64_t cluster = static_cast<int64_t>(rng() % 2000000) - 1000000;
  for (size_t i = 0; i < n; ++i)
    out.push_back({static_cast<TrackId>(rng() % tracks), static_cast<uint16_t>(rng() % 4),
                   RandomStart(rng, cluster), RandomDuration(rng)});
  return out;
}

// A dense row like a GPU stream: back-to-back slices of 1 ns .. 64 µs with
// gaps, bursts of instants, starting at `t0`.
inline std::vector<SyntheticEvent> DenseEvents(std::mt19937_64& rng, size_t n, int64_t t0,
                                               TrackId track, uint16_t depth) {
  std::vector<SyntheticEvent> out;
  int64_t t = t0;
  for (size_t i = 0; i < n; ++i) {
    if (rng() % 50 == 0) {  // a burst of instants at one time
      for (int k = 0; k < 20; ++k) out.push_back({track, depth, t, 0});
    }
    const int64_t dur = 1 + static_cast<int64_t>(rng() % (int64_t{1} << (rng() % 17)));
    out.push_back({track, depth, t, dur});
    t += dur + static_cast<int64_t>(rng() % (rng() % 100 == 0 ? 10000000 : 2000));
  }
  return out;
}

}  // namespace th::serve::testing
