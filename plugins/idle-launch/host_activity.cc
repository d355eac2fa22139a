#include "host_activity.h"

#include <tracehound/sorted_runs.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace th::idle_launch {

WindowTime SweepWindow(std::vector<WindowEvent> events, int64_t begin, int64_t end) {
  WindowTime out;
  if (events.empty() || end <= begin) return out;
  // Start order is the inner order (ts, the longer first, the lower row): an
  // event started later is inside the ones running, so the running events
  // form a stack in that order; ended ones leave it once they reach its top.
  sdk::StableSortRuns(events, [](const WindowEvent& x, const WindowEvent& y) {
    if (x.ts != y.ts) return x.ts < y.ts;
    if (x.dur != y.dur) return x.dur > y.dur;
    return x.row < y.row;
  });
  // One pass by start: before each start (and at the window's end) the time
  // since the previous instant goes to the running top until it ends; an
  // ended event leaves once it is the top.
  const size_t n = events.size();
  std::vector<int64_t> self(n, 0);
  std::vector<uint32_t> running;
  int64_t prev = begin;
  auto end_of = [&](uint32_t k) { return std::min(events[k].ts + events[k].dur, end); };
  auto advance = [&](int64_t to) {
    while (!running.empty() && prev < to) {
      const uint32_t top = running.back();
      const int64_t top_end = end_of(top);
      if (top_end > prev) {
        const int64_t until = std::min(top_end, to);
        self[top] += until - prev;
        out.busy += until - prev;
        prev = until;
      }
      if (top_end <= prev) running.pop_back();
    }
    prev = std::max(prev, to);
  };
  for (size_t k = 0; k < n; ++k) {
    advance(std::max(events[k].ts, begin));
    running.push_back(static_cast<uint32_t>(k));
  }
  advance(end);
  std::unordered_map<uint32_t, int64_t> by_name;  // per distinct name
  for (size_t k = 0; k < n; ++k)
    if (self[k] > 0) by_name[events[k].name] += self[k];
  out.self_by_name.assign(by_name.begin(), by_name.end());
  std::sort(out.self_by_name.begin(), out.self_by_name.end());
  return out;
}

std::vector<HostActivity> HostActivityDuring(const th::sdk::Trace& t,
                                             const std::vector<HostWindow>& windows, size_t top_n) {
  std::vector<HostActivity> out(windows.size());
  std::vector<HostWindow> host;
  std::vector<size_t> slot;  // windows row of each host window
  for (size_t w = 0; w < windows.size(); ++w) {
    if (t.track(windows[w].track).kind == TH_TRACK_GPU_STREAM) continue;
    if (windows[w].end <= windows[w].begin) continue;
    host.push_back(windows[w]);
    slot.push_back(w);
  }
  std::vector<std::vector<uint32_t>> rows = EventsOfWindows(t, host);
  for (size_t k = 0; k < host.size(); ++k) {
    std::vector<WindowEvent> events;
    events.reserve(rows[k].size());
    for (uint32_t r : rows[k]) events.push_back({t.ts(r), t.dur(r), r, t.name_id(r)});
    std::vector<uint32_t>().swap(rows[k]);
    const WindowTime time = SweepWindow(std::move(events), host[k].begin, host[k].end);
    HostActivity& a = out[slot[k]];
    a.busy = time.busy;
    std::map<std::string, int64_t> by_name;
    for (const auto& [name, ns] : time.self_by_name) by_name[std::string(t.String(name))] += ns;
    for (const auto& [name, ns] : by_name) a.top.emplace_back(ns, name);
    std::sort(a.top.begin(), a.top.end(),
              [](const auto& x, const auto& y) { return x.first > y.first; });
    if (a.top.size() > top_n) a.top.resize(top_n);
  }
  return out;
}

}  // namespace th::idle_launch
