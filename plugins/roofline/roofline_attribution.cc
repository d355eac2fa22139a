#include "roofline_attribution.h"

#include <algorithm>
#include <climits>

namespace th::roofline {

OutermostMarked::OutermostMarked(std::span<const uint32_t> parent, std::vector<bool> marked)
    : parent_(parent), marked_(std::move(marked)), found_(parent.size(), kUnknown) {}

// found_[e]: the outermost marked event at or above e. Walk up to an event
// whose answer is known (or a root), then fill the path top-down.
uint32_t OutermostMarked::operator()(uint32_t event) {
  path_.clear();
  uint32_t e = event;
  uint32_t above = kNone;  // the answer for the parent of the last event on the path
  while (e != kNone && e < found_.size()) {
    if (found_[e] != kUnknown) {
      above = found_[e];
      break;
    }
    path_.push_back(e);
    e = parent_[e];
  }
  for (auto it = path_.rbegin(); it != path_.rend(); ++it) {
    if (above == kNone && marked_[*it]) above = *it;
    found_[*it] = above;
  }
  return event < found_.size() ? found_[event] : kNone;
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
