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

// The events that count for each window, rows in no particular order: the
// thread's events (flows, metadata and counters aside) that start inside the
// window with a duration, and the one started last before it (latest ts, then
// the shorter, then the higher row) with its enclosing events, where they run
// past the window's begin. One pass over the events for all windows: an event
// costs a lookup of its track and a binary search over that track's windows.
// `Events` reads columns as th::sdk::Trace does (size, ts, dur, kind,
// track_index, parent).
template <typename Events>
std::vector<std::vector<uint32_t>> EventsOfWindows(const Events& t, size_t track_count,
                                                   const std::vector<HostWindow>& windows) {
  // Windows grouped by track, each group by begin; `reach` = the latest end of
  // the group's windows up to each one (where a backward walk may stop).
  std::vector<uint32_t> order(windows.size());
  for (uint32_t w = 0; w < order.size(); ++w) order[w] = w;
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    const HostWindow &a = windows[x], &b = windows[y];
    return a.track != b.track ? a.track < b.track : a.begin != b.begin ? a.begin < b.begin : x < y;
  });
  std::vector<uint32_t> group_begin(track_count + 1, 0);
  for (const HostWindow& w : windows) ++group_begin[w.track + 1];
  for (size_t k = 0; k < track_count; ++k) group_begin[k + 1] += group_begin[k];
  std::vector<int64_t> begin(order.size()), reach(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    begin[k] = windows[order[k]].begin;
    const bool first = k == 0 || windows[order[k - 1]].track != windows[order[k]].track;
    reach[k] = first ? windows[order[k]].end : std::max(reach[k - 1], windows[order[k]].end);
  }

  // The event started last before window order[k] is the latest in that order
  // among those recorded at k or before in its group (they start before its
  // begin): kept per first window each event precedes, then carried forward.
  auto later = [&](uint32_t x, uint32_t y) {  // x started after y (y may be none)
    if (y == kNoEvent) return true;
    if (t.ts(x) != t.ts(y)) return t.ts(x) > t.ts(y);
    if (t.dur(x) != t.dur(y)) return t.dur(x) < t.dur(y);
    return x > y;
  };
  std::vector<uint32_t> last_before(order.size(), kNoEvent);
  std::vector<std::vector<uint32_t>> inside(windows.size());
  for (uint64_t i = 0; i < t.size(); ++i) {
    const uint32_t track = t.track_index(i);
    if (track >= track_count || group_begin[track] == group_begin[track + 1]) continue;
    const uint32_t kind = t.kind(i);
    if (kind == TH_EVENT_FLOW || kind == TH_EVENT_METADATA || kind == TH_EVENT_COUNTER) continue;
    const int64_t ts = t.ts(i);
    if (ts >= reach[group_begin[track + 1] - 1]) continue;  // after all of the track's windows
    const auto lo = begin.begin() + group_begin[track], hi = begin.begin() + group_begin[track + 1];
    const auto after = ts < *lo ? lo : std::upper_bound(lo, hi, ts);  // first beginning after ts
    const auto row = static_cast<uint32_t>(i);
    if (after != hi) {
      uint32_t& best = last_before[static_cast<size_t>(after - begin.begin())];
      if (later(row, best)) best = row;
    }
    if (t.dur(i) <= 0) continue;
    for (auto k = static_cast<size_t>(after - begin.begin()); k-- > group_begin[track];) {
      if (reach[k] <= ts) break;
      if (windows[order[k]].end > ts) inside[order[k]].push_back(row);
    }
  }
  for (size_t k = 0; k < order.size(); ++k) {
    const bool first = k == 0 || windows[order[k - 1]].track != windows[order[k]].track;
    if (!first && last_before[k - 1] != kNoEvent && later(last_before[k - 1], last_before[k]))
      last_before[k] = last_before[k - 1];
    const HostWindow& w = windows[order[k]];
    for (uint32_t e = last_before[k]; e != kNoEvent; e = t.parent(e))
      if (t.ts(e) + t.dur(e) > w.begin) inside[order[k]].push_back(e);
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
// innermost running one. `events` in any order; each must overlap the window.
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
