#include "roofline_attribution.h"

#include <algorithm>
#include <climits>

namespace th::roofline {

OutermostMarked::OutermostMarked(std::span<const uint32_t> parent,
                                 std::function<bool(uint32_t)> marked)
    : parent_(parent), marked_(std::move(marked)), cache_(kSlots) {}

// Walk up to an event whose answer is remembered (or past a root), then
// fill the path top-down, remembering each answer in its event's slot.
uint32_t OutermostMarked::operator()(uint32_t event) {
  path_.clear();
  uint32_t e = event;
  uint32_t above = kNone;  // the answer for the parent of the last event on the path
  while (e != kNone && e < parent_.size()) {
    const Slot& slot = cache_[e & (kSlots - 1)];
    if (slot.event == e) {
      above = slot.answer;
      break;
    }
    path_.push_back(e);
    e = parent_[e];
  }
  for (auto it = path_.rbegin(); it != path_.rend(); ++it) {
    if (above == kNone && marked_(*it)) above = *it;
    cache_[*it & (kSlots - 1)] = {*it, above};
  }
  return above;
}

int64_t UnionLength(std::vector<std::pair<int64_t, int64_t>>& intervals) {
  std::sort(intervals.begin(), intervals.end());
  int64_t total = 0, covered = INT64_MIN;
  for (const auto& [b, e] : intervals) {
    if (e <= b) continue;
    const int64_t from = std::max(b, covered);
    if (e > from) total += e - from;
    covered = std::max(covered, e);
  }
  return total;
}

}  // namespace th::roofline
