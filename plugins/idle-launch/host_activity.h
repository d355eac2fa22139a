// What host threads ran during time windows (the long gaps of idle-launch):
// at each instant of a window the innermost running event of the thread (the
// one started last: ts, then the longer first, then the lower row) gets the
// time, summed by name, robust to slices that cross instead of nesting.
#pragma once

#include <tracehound/sdk.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace th::idle_launch {

inline constexpr uint32_t kNoEvent = 0xFFFFFFFFu;

// Window [begin, end) on host thread `track` (a row of the trace's tracks).
struct HostWindow {
  uint32_t track;
  int64_t begin, end;
};

// The events that count for each window: the thread's events (flows,
// metadata and counters aside) that start inside the window with a duration,
// by start, after the one started last before it (latest ts, then the
// shorter, then the higher row) with its enclosing events, where they run
// past the window's begin. Two binary searches per window over the track's
// events by start (track_events), nothing per event outside the windows.
// `Events` reads columns as th::sdk::Trace does (ts, dur, kind, parent,
// track_events).
template <typename Events>
std::vector<std::vector<uint32_t>> EventsOfWindows(const Events& t,
                                                   const std::vector<HostWindow>& windows) {
  auto counts = [&](uint32_t row) {
    const uint32_t kind = t.kind(row);
    return kind != TH_EVENT_FLOW && kind != TH_EVENT_METADATA && kind != TH_EVENT_COUNTER;
  };
  std::vector<std::vector<uint32_t>> inside(windows.size());
  for (size_t w = 0; w < windows.size(); ++w) {
    const HostWindow& win = windows[w];
    const auto order = t.track_events(win.track);
    // First slot starting at or after `at`.
    auto first_from = [&](int64_t at) {
      uint32_t lo = 0, hi = order.size();
      while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (t.ts(order[mid]) < at) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      return lo;
    };
    const uint32_t from = first_from(win.begin), to = first_from(win.end);
    std::vector<uint32_t>& rows = inside[w];
    uint32_t before = from;
    while (before > 0 && !counts(order[before - 1])) --before;
    if (before > 0) {
      for (uint32_t e = order[before - 1]; e != kNoEvent; e = t.parent(e))
        if (t.ts(e) + t.dur(e) > win.begin) rows.push_back(e);
      std::reverse(rows.begin(), rows.end());  // outermost first: by start
    }
    for (uint32_t k = from; k < to; ++k) {
      const uint32_t row = order[k];
      if (t.dur(row) > 0 && counts(row)) rows.push_back(row);
    }
  }
  return inside;
}

// One event of a window: start, duration, row and name id.
struct WindowEvent {
  int64_t ts, dur;
  uint32_t row, name;
};

// Time in window [begin, end): `busy` while any event runs, and per name id
// (ascending, only names that got time) the time its events were the
// innermost running one. `events` in any order (by start costs no sort);
// each must overlap the window.
struct WindowTime {
  int64_t busy = 0;
  std::vector<std::pair<uint32_t, int64_t>> self_by_name;
};
WindowTime SweepWindow(std::vector<WindowEvent> events, int64_t begin, int64_t end);

struct HostActivity {
  int64_t busy = 0;
  std::vector<std::pair<int64_t, std::string>> top;  // (self ns, name), largest first
};

// The activity of each window (in the windows' order) with its `top_n`
// largest names; a window on a GPU stream track gets none.
std::vector<HostActivity> HostActivityDuring(const th::sdk::Trace& t,
                                             const std::vector<HostWindow>& windows, size_t top_n);

}  // namespace th::idle_launch
