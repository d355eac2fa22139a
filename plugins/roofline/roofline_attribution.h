// Which op a GPU activity's time belongs to, and the busy time of a set of
// intervals. Plain inputs (column views), so each is tested on its own.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

namespace th::roofline {

inline constexpr uint32_t kNone = 0xFFFFFFFFu;

// The outermost event marked in `marked` at or above an event (itself, its
// parent, ...), kNone when none. `parent`: per event its parent, kNone for a
// root. Answers are remembered in a fixed cache of kSlots events (512 KiB,
// not 4 B per event of the trace): queries that walk nearby events in turn,
// as launch calls do, stop at the first remembered ancestor.
class OutermostMarked {
 public:
  static constexpr uint32_t kSlots = 1u << 16;
  // `marked(e)` is asked only of the events the walks pass: a predicate over
  // a few of the trace's events, not a flag for each of them.
  OutermostMarked(std::span<const uint32_t> parent, std::function<bool(uint32_t)> marked);
  OutermostMarked(std::span<const uint32_t> parent, std::vector<bool> marked)
      : OutermostMarked(parent, [m = std::move(marked)](uint32_t e) { return bool{m[e]}; }) {}
  uint32_t operator()(uint32_t event);

 private:
  struct Slot {
    uint32_t event = kNone, answer = kNone;
  };
  std::span<const uint32_t> parent_;
  std::function<bool(uint32_t)> marked_;
  std::vector<Slot> cache_;
  std::vector<uint32_t> path_;
};

// Length of the union of [begin, end) intervals (sorted in place).
int64_t UnionLength(std::vector<std::pair<int64_t, int64_t>>& intervals);

}  // namespace th::roofline
