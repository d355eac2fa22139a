#include "tests/core/serve/lod_brute_force.h"

#include <algorithm>
#include <map>

namespace th::serve::testing {
namespace {

using Int128 = __int128;

Int128 End(int64_t ts, int64_t dur) { return Int128{ts} + (dur > 0 ? dur : 0); }
bool Narrow(int64_t dur, int level) { return Int128{dur} < (Int128{1} << level); }

}  // namespace

std::unique_ptr<EventGraph> MakeGraph(const std::vector<SyntheticEvent>& in, uint32_t tracks) {
  auto g = std::make_unique<EventGraph>();
  g->tracks.resize(tracks);
  std::vector<std::vector<EventId>> per_track(tracks);
  for (size_t i = 0; i < in.size(); ++i) {
    g->events.ts.push_back(in[i].ts);
    g->events.dur.push_back(in[i].dur);
    g->events.track.push_back(in[i].track);
    g->events.depth.push_back(in[i].depth);
    per_track[in[i].track].push_back(static_cast<EventId>(i));
  }
  g->track_offsets.push_back(0);
  for (uint32_t t = 0; t < tracks; ++t) {
    std::sort(per_track[t].begin(), per_track[t].end(), [&](EventId a, EventId b) {
      if (in[a].ts != in[b].ts) return in[a].ts < in[b].ts;
      if (in[a].dur != in[b].dur) return in[a].dur > in[b].dur;
      return a < b;
    });
    for (EventId e : per_track[t]) g->track_order.push_back(e);
    g->track_offsets.push_back(static_cast<uint32_t>(g->track_order.size()));
  }
  g->track_first_row.assign(tracks, kNoRow);
  return g;
}

std::vector<EventId> RowEvents(const EventGraph& graph, TrackId track, uint16_t depth) {
  std::vector<EventId> out;
  const auto view = graph.TrackEvents(track);
  for (uint32_t k = 0; k < view.size(); ++k)
    if (graph.events.depth[view[k]] == depth) out.push_back(view[k]);
  return out;
}

LodTile BruteForceTile(const EventColumns& ev, const std::vector<EventId>& row_events, int level,
                       int64_t tile) {
  const Int128 width = Int128{1} << level;
  const Int128 a = Int128{tile} * (width << 8), b = a + (width << 8);
  LodTile out;
  std::vector<EventId> drawn;
  std::map<int, std::pair<uint32_t, Int128>> buckets;  // bucket -> count, busy
  for (EventId e : row_events) {
    const int64_t ts = ev.ts[e], dur = ev.dur[e];
    const Int128 end = End(ts, dur);
    if (!Narrow(dur, level)) {
      if (ts < b && end > a) drawn.push_back(e);
      continue;
    }
    if (ts >= a && ts < b) ++buckets[static_cast<int>((Int128{ts} - a) / width)].first;
    if (end <= a || ts >= b || end == Int128{ts}) continue;
    // busy: the event clipped to each bucket it touches
    const int first = static_cast<int>((std::max<Int128>(ts, a) - a) / width);
    const int last = static_cast<int>((std::min<Int128>(end, b) - 1 - a) / width);
    for (int j = first; j <= last; ++j) {
      const Int128 lo = std::max<Int128>(ts, a + j * width);
      const Int128 hi = std::min<Int128>(end, a + (j + 1) * width);
      if (hi > lo) buckets[j].second += hi - lo;
    }
  }
  std::sort(drawn.begin(), drawn.end(), [&](EventId x, EventId y) {
    if (ev.ts[x] != ev.ts[y]) return ev.ts[x] < ev.ts[y];
    if (ev.dur[x] != ev.dur[y]) return ev.dur[x] > ev.dur[y];
    return x < y;
  });
  out.drawn = drawn;
  for (const auto& [j, cb] : buckets) {
    if (cb.first == 0 && cb.second == 0) continue;
    const int64_t busy = cb.second > INT64_MAX ? INT64_MAX : static_cast<int64_t>(cb.second);
    out.buckets.push_back({static_cast<uint16_t>(j), cb.first, busy});
  }
  return out;
}

uint64_t BruteForceInView(const EventColumns& ev, const std::vector<EventId>& row_events, int level,
                          Int128 t0, Int128 t1) {
  uint64_t n = 0;
  for (EventId e : row_events) {
    const int64_t ts = ev.ts[e], dur = ev.dur[e];
    const Int128 end = End(ts, dur);
    const bool overlaps = end > Int128{ts} ? (ts < t1 && end > t0) : (ts >= t0 && ts < t1);
    if (!overlaps) continue;
    if (Narrow(dur, level) && ts < t0) continue;
    ++n;
  }
  return n;
}

}  // namespace th::serve::testing
