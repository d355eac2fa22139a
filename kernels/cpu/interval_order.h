// The order in which the CPU engine sweeps intervals: by group, then begin,
// ties in input order (a stable sort by (group, begin)).
#pragma once

#include <tracehound/kernels/primitives.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace th::kernels {

struct IntervalOrder {
  // Input indices in (group, begin) order; empty when the input is in that
  // order already (then nothing is copied).
  std::vector<uint32_t> order;
  // Start of each non-empty group's stretch of the order, then the size.
  std::vector<size_t> runs;
  uint32_t at(size_t k) const { return order.empty() ? static_cast<uint32_t>(k) : order[k]; }
};

// Linear when the groups are dense (a stable counting partition by group)
// and each group's begins are sorted or a few sorted runs (merged); a group
// of many runs is sorted apart, other groups untouched.
IntervalOrder OrderIntervals(const IntervalColumns& iv);

}  // namespace th::kernels
