#include "core/graph/graph_capture.h"

#include <algorithm>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

namespace th {

namespace {

enum class Call : uint8_t { kNone, kBegin, kEnd, kInstantiate, kGraphLaunch, kLaunch };

bool Has(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

Call CallOf(std::string_view name) {
  if (Has(name, "StreamBeginCapture")) return Call::kBegin;
  if (Has(name, "StreamEndCapture")) return Call::kEnd;
  if (Has(name, "GraphInstantiate")) return Call::kInstantiate;
  if (Has(name, "GraphLaunch")) return Call::kGraphLaunch;
  if (Has(name, "LaunchKernel") || Has(name, "LaunchCooperativeKernel")) return Call::kLaunch;
  if ((Has(name, "Memcpy") || Has(name, "Memset")) && Has(name, "Async")) return Call::kLaunch;
  return Call::kNone;
}

}  // namespace

GraphCapture DetectGraphCapture(const EventGraph& g) {
  GraphCapture out;
  const EventColumns& e = g.events;
  const size_t n = e.size();
  // The calls of interest, classified once per distinct name.
  std::vector<int8_t> call_of_name(g.strings.size(), -1);
  std::vector<std::pair<EventId, Call>> calls;
  for (EventId i = 0; i < n; ++i) {
    const EventKind k = e.kind[i];
    if (k == EventKind::kKernel) ++out.kernels;
    if (!IsLaunch(k)) continue;
    const StringId name = e.name[i];
    if (name >= call_of_name.size()) continue;
    if (call_of_name[name] < 0)
      call_of_name[name] = static_cast<int8_t>(CallOf(g.strings.Get(name)));
    const auto c = static_cast<Call>(call_of_name[name]);
    if (c == Call::kNone) continue;
    calls.push_back({i, c});
    if (c == Call::kBegin || c == Call::kEnd)
      out.hip = out.hip || g.strings.Get(name).substr(0, 3) == "hip";
  }
  if (calls.empty()) return out;

  std::vector<bool> ran(n, false);  // launch calls whose GPU work is in the trace
  for (size_t k = 0; k < g.edges.size(); ++k)
    if (g.edges.kind[k] == EdgeKind::kLaunch && g.edges.src[k] < n) ran[g.edges.src[k]] = true;

  // Without begin or end calls there is no region, and the counts do not
  // depend on the order of the calls: no sort (most traces).
  const bool regions = std::any_of(calls.begin(), calls.end(), [](const auto& c) {
    return c.second == Call::kBegin || c.second == Call::kEnd;
  });
  if (!regions) {
    for (const auto& [i, c] : calls) {
      if (c == Call::kInstantiate) ++out.instantiations;
      if (c == Call::kGraphLaunch) ++out.graph_launches;
      if ((c == Call::kGraphLaunch || c == Call::kLaunch) && ran[i]) ++out.executed_launches;
    }
    return out;
  }
  // The trace's first and last instants (every event but metadata and flows):
  // where a region open at the trace's start or end is taken to begin or end.
  int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
  for (EventId i = 0; i < n; ++i) {
    if (e.kind[i] == EventKind::kMetadata || e.kind[i] == EventKind::kFlow) continue;
    first = std::min(first, e.ts[i]);
    last = std::max(last, e.ts[i] + e.dur[i]);
  }
  out.trace_start = first;
  // Per thread, in time order: regions open at a begin call, close at an end call.
  std::stable_sort(calls.begin(), calls.end(), [&](const auto& a, const auto& b) {
    if (e.track[a.first] != e.track[b.first]) return e.track[a.first] < e.track[b.first];
    return e.ts[a.first] < e.ts[b.first];
  });
  out.first_ts = std::numeric_limits<int64_t>::max();
  out.last_end = std::numeric_limits<int64_t>::min();
  auto region = [&](int64_t from, int64_t to) {
    out.first_ts = std::min(out.first_ts, from);
    out.last_end = std::max(out.last_end, to);
  };
  for (size_t a = 0; a < calls.size();) {
    const TrackId track = e.track[calls[a].first];
    size_t b = a;
    while (b < calls.size() && e.track[calls[b].first] == track) ++b;
    // An end call before any begin: the capture started before the trace.
    bool capturing = false;
    int64_t opened = 0;
    for (size_t k = a; k < b; ++k) {
      if (calls[k].second == Call::kBegin) break;
      if (calls[k].second == Call::kEnd) {
        capturing = true;
        opened = first;
        break;
      }
    }
    for (size_t k = a; k < b; ++k) {
      const EventId i = calls[k].first;
      switch (calls[k].second) {
        case Call::kBegin:
          ++out.begin_calls;
          if (!capturing) opened = e.ts[i];
          capturing = true;
          break;
        case Call::kEnd:
          ++out.end_calls;
          if (capturing) region(opened, e.ts[i] + e.dur[i]);
          capturing = false;
          break;
        case Call::kInstantiate:
          ++out.instantiations;
          break;
        case Call::kGraphLaunch:
          ++out.graph_launches;
          if (ran[i]) ++out.executed_launches;
          break;
        case Call::kLaunch:
          if (ran[i])
            ++out.executed_launches;
          else if (capturing)
            ++out.captured_launches;
          break;
        case Call::kNone:
          break;
      }
    }
    if (capturing) region(opened, last);
    a = b;
  }
  if (out.first_ts > out.last_end) out.first_ts = out.last_end = 0;
  return out;
}

}  // namespace th
