// The long-gap attribution of idle-launch (plugins/idle-launch/host_activity.h)
// on hand-built event columns, rows out of time order; every figure is worked
// out in the comments.
#include "host_activity.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace th::idle_launch {
namespace {

// Event columns as th::sdk::Trace reads them.
struct Events {
  std::vector<int64_t> ts_, dur_;
  std::vector<uint32_t> kind_, track_, parent_;
  uint64_t size() const { return ts_.size(); }
  int64_t ts(uint64_t i) const { return ts_[i]; }
  int64_t dur(uint64_t i) const { return dur_[i]; }
  uint32_t kind(uint64_t i) const { return kind_[i]; }
  uint32_t track_index(uint64_t i) const { return track_[i]; }
  uint32_t parent(uint64_t i) const { return parent_[i]; }
  // The track's events by start (ts, the longer first, the lower row), flows
  // aside as in the importer's order (which keeps counters and instants).
  std::vector<uint32_t> track_events(uint32_t track) const {
    std::vector<uint32_t> rows;
    for (uint32_t i = 0; i < size(); ++i)
      if (track_[i] == track && kind_[i] != TH_EVENT_FLOW) rows.push_back(i);
    std::stable_sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
      return ts_[a] != ts_[b] ? ts_[a] < ts_[b] : dur_[a] > dur_[b];
    });
    return rows;
  }
};

constexpr uint32_t kOp = TH_EVENT_CPU_OP;

// Track 0, rows in file order (not time order):
//   0 op [50, 60)            4 frame [0, 100)   (parent of 1 and 2)
//   1 op [10, 30) in 4       5 flow  [35, 35)   (never counts)
//   2 op [20, 25) in 1       6 op    [70, 70)   (an instant: no duration)
//   3 op [40, 45) in 4       7 op    [20, 22) on track 1
Events Thread() {
  Events e;
  e.ts_ = {50, 10, 20, 40, 0, 35, 70, 20};
  e.dur_ = {10, 20, 5, 5, 100, 0, 0, 2};
  e.kind_ = {kOp, kOp, kOp, kOp, TH_EVENT_PYTHON_FUNCTION, TH_EVENT_FLOW, kOp, kOp};
  e.track_ = {0, 0, 0, 0, 0, 0, 0, 1};
  e.parent_ = {4, 4, 1, 4, kNoEvent, kNoEvent, 4, kNoEvent};
  return e;
}

std::vector<uint32_t> Sorted(std::vector<uint32_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(EventsOfWindows, StartedInsideAndTheChainRunningAtTheBegin) {
  // [22, 55): op 0 and op 3 start inside with a duration; started last
  // before 22 is op 2 [20, 25), with its enclosing op 1 and frame 4, all
  // running at 22. [36, 38): nothing starts inside (the flow never counts);
  // started last before is op 2 again, ended, as is op 1: only frame 4 runs
  // on. [0, 15) on track 1: nothing. Overlapping windows [45, 80) and
  // [44, 51): op 0 in both, the instant op 6 in neither; started last before
  // them is op 3 [40, 45), running at 44, ended at 45.
  const Events e = Thread();
  const std::vector<HostWindow> windows{
      {0, 22, 55}, {0, 36, 38}, {1, 0, 15}, {0, 45, 80}, {0, 44, 51}};
  const std::vector<std::vector<uint32_t>> rows = EventsOfWindows(e, windows);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(Sorted(rows[0]), (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(Sorted(rows[1]), (std::vector<uint32_t>{4}));
  EXPECT_TRUE(rows[2].empty());
  EXPECT_EQ(Sorted(rows[3]), (std::vector<uint32_t>{0, 4}));
  EXPECT_EQ(Sorted(rows[4]), (std::vector<uint32_t>{0, 3, 4}));
}

TEST(SweepWindow, InnermostRunningEventGetsTheTime) {
  // Window [22, 55) over the events above, names: 1 op, 2 frame, 3 other.
  //   [22, 25) op 2 (innermost), [25, 30) op 1, [30, 40) frame 4,
  //   [40, 45) op 3, [45, 50) frame 4, [50, 55) op 0.
  // name 1 (ops 0, 1, 2, 3): 3 + 5 + 5 + 5 = 18; name 2 (frame): 15.
  std::vector<WindowEvent> events{
      {50, 10, 0, 1}, {10, 20, 1, 1}, {20, 5, 2, 1}, {40, 5, 3, 1}, {0, 100, 4, 2}};
  const WindowTime t = SweepWindow(events, 22, 55);
  EXPECT_EQ(t.busy, 33);
  EXPECT_EQ(t.self_by_name, (std::vector<std::pair<uint32_t, int64_t>>{{1, 18}, {2, 15}}));
}

TEST(SweepWindow, CrossingSlicesAndIdleTime) {
  // A [0, 30) and B [10, 50) cross; C [60, 70) after an idle stretch; window
  // [5, 65). [5, 10) A, [10, 50) B (started later: inner, though A runs on
  // until 30), [50, 60) nothing, [60, 65) C. Equal starts: the longer is
  // outer, so D [60, 62) (shorter than C) is inner for [60, 62).
  std::vector<WindowEvent> events{{60, 10, 2, 3}, {10, 40, 1, 2}, {0, 30, 0, 1}, {60, 2, 3, 4}};
  const WindowTime t = SweepWindow(events, 5, 65);
  EXPECT_EQ(t.busy, 5 + 40 + 5);
  EXPECT_EQ(t.self_by_name,
            (std::vector<std::pair<uint32_t, int64_t>>{{1, 5}, {2, 40}, {3, 3}, {4, 2}}));
}

}  // namespace
}  // namespace th::idle_launch
