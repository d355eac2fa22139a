#include "core/report/html_timeline.h"

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tracehound/device_type.h>
#include <tracehound/sorted_runs.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <unordered_map>
#include <utility>

#include "core/graph/median.h"
#include "core/report/report_panels.h"

namespace th {

namespace {

using sdk::DeviceTypeName;

// A numeric cell of a derived table (int or double column), or `fallback`.
double NumberAt(const DerivedColumn* c, size_t row, double fallback) {
  if (!c || row >= c->size()) return fallback;
  if (auto* i = std::get_if<std::vector<int64_t>>(&c->values))
    return static_cast<double>((*i)[row]);
  if (auto* d = std::get_if<std::vector<double>>(&c->values)) return (*d)[row];
  return fallback;
}

std::string TextAt(const DerivedColumn* c, size_t row) {
  if (!c || row >= c->size()) return {};
  if (auto* s = std::get_if<TextColumn>(&c->values)) return std::string((*s)[row]);
  return {};
}

// Events drawn on a lane: slices and instants, not flows, metadata, counters
// or allocator instants (those have the memory timeline).
bool Drawn(const EventGraph& g, EventId e) {
  EventKind k = g.events.kind[e];
  if (k == EventKind::kFlow || k == EventKind::kMetadata || k == EventKind::kCounter ||
      k == EventKind::kMemory || k == EventKind::kTraceSpan)
    return false;
  return (g.events.flags[e] & kFlagEndMarker) == 0;
}

bool InWindow(const EventGraph& g, EventId e, int64_t begin, int64_t end) {
  int64_t ts = g.events.ts[e], dur = std::max<int64_t>(0, g.events.dur[e]);
  return ts < end && (ts + dur > begin || (dur == 0 && ts >= begin));
}

// A duration's class, in the order of durations: its bit length and the 8
// bits below its leading one (negative durations: class 0).
constexpr size_t kDurationClasses = 65 * 256;
size_t DurationClass(int64_t dur) {
  if (dur <= 0) return 0;
  const auto d = static_cast<uint64_t>(dur);
  const int bits = 64 - std::countl_zero(d);  // 1 .. 63
  const uint64_t below = bits > 9 ? (d >> (bits - 9)) & 0xFF : (d << (9 - bits)) & 0xFF;
  return static_cast<size_t>(bits) * 256 + static_cast<size_t>(below);
}

// Calls visit(e) for the events of track t drawn in window w, by start.
template <typename Visit>
void ForEachShown(const EventGraph& g, TrackId t, const RankWindow& w, Visit visit) {
  const EventGraph::TrackEventsView order = g.TrackEvents(t);
  for (uint32_t k = 0; k < order.size(); ++k) {
    const EventId ev = order[k];
    if (g.events.ts[ev] >= w.end_ns) break;
    if (Drawn(g, ev) && InWindow(g, ev, w.begin_ns, w.end_ns)) visit(ev);
  }
}

std::string TrackName(const EventGraph& g, const Track& t) {
  if (t.kind == TrackKind::kGpuStream) {
    std::string s = "GPU " + std::to_string(t.device) + " stream " + std::to_string(t.stream);
    return s;
  }
  // Kineto names threads "thread 1234 (python)" already.
  if (t.thread_name != kEmptyString) return std::string(g.strings.Get(t.thread_name));
  std::string s = "thread ";
  s += t.tid_str != kEmptyString ? std::string(g.strings.Get(t.tid_str)) : std::to_string(t.tid);
  return s;
}

// The trace's first and last instants (drawn events only).
std::pair<int64_t, int64_t> TraceExtent(const EventGraph& g) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (EventId e = 0; e < g.events.size(); ++e) {
    if (!Drawn(g, e) || (g.events.flags[e] & kFlagInvalidTs)) continue;
    lo = std::min(lo, g.events.ts[e]);
    hi = std::max(hi, g.events.ts[e] + std::max<int64_t>(0, g.events.dur[e]));
  }
  if (lo > hi) return {0, 0};
  return {lo, hi};
}

// Phase 1: which step (or window) each rank shows.
void ChooseWindows(const AnalysisReport& r, Swimlane* s) {
  const TraceSet& set = *r.traces;
  std::map<int64_t, size_t> trace_of_rank;
  for (size_t i = 0; i < set.traces.size(); ++i) trace_of_rank[set.traces[i]->info.rank] = i;

  if (const DerivedTable* t = TableForPanel(r.results, "steps")) {
    const DerivedColumn *rank = t->Find("rank"), *step = t->Find("step"), *ts = t->Find("ts"),
                        *dur = t->Find("dur"), *phase = t->Find("phase");
    // step -> (rank -> window)
    std::map<int64_t, std::map<int64_t, std::pair<int64_t, int64_t>>> steady, all;
    for (size_t row = 0; row < t->rows; ++row) {
      int64_t rk = static_cast<int64_t>(NumberAt(rank, row, 0));
      if (!trace_of_rank.count(rk)) continue;
      int64_t n = static_cast<int64_t>(NumberAt(step, row, -1));
      auto w = std::make_pair(static_cast<int64_t>(NumberAt(ts, row, 0)),
                              static_cast<int64_t>(NumberAt(dur, row, 0)));
      all[n].emplace(rk, w);
      if (TextAt(phase, row) == "steady") steady[n].emplace(rk, w);
    }
    auto& pool = steady.empty() ? all : steady;
    size_t most = 0;
    for (auto& [n, ranks] : pool) most = std::max(most, ranks.size());
    std::vector<std::pair<int64_t, int64_t>> medians;  // step, median dur over ranks
    for (auto& [n, ranks] : pool) {
      if (ranks.size() != most) continue;
      std::vector<int64_t> d;
      for (auto& [rk, w] : ranks) d.push_back(w.second);
      medians.emplace_back(n, Median(std::move(d), EvenMedian::kUpperMiddle));
    }
    if (!medians.empty()) {
      std::vector<int64_t> d;
      for (auto& m : medians) d.push_back(m.second);
      int64_t typical = Median(std::move(d), EvenMedian::kUpperMiddle);
      auto best = medians.front();
      for (auto& m : medians)
        if (std::llabs(m.second - typical) < std::llabs(best.second - typical)) best = m;
      s->has_step = true;
      s->step = best.first;
      s->choice = "step " + std::to_string(best.first) + ": the " +
                  std::string(steady.empty() ? "" : "steady-state ") +
                  "step whose duration (median over ranks) is closest to the median step, of " +
                  std::to_string(medians.size()) + " candidates";
      for (auto& [rk, w] : pool[best.first])
        s->windows.push_back({rk, trace_of_rank[rk], w.first, w.first + w.second, 0});
    }
  }
  if (s->windows.empty()) {
    s->choice =
        "the whole capture: the trace has no steps (add the steps plugin, or record "
        "ProfilerStep markers)";
    for (auto& [rk, i] : trace_of_rank) {
      auto [lo, hi] = TraceExtent(set.traces[i]->graph);
      if (hi > lo) s->windows.push_back({rk, i, lo, hi, 0});
    }
  }
  // Phase 2: one axis. Ranks whose windows lie far apart are on different
  // clocks: each is then aligned at its own window start.
  if (s->windows.empty()) return;
  int64_t lo = INT64_MAX, hi = INT64_MIN, longest = 0;
  for (const RankWindow& w : s->windows) {
    lo = std::min(lo, w.begin_ns);
    hi = std::max(hi, w.begin_ns);
    longest = std::max(longest, w.end_ns - w.begin_ns);
  }
  bool aligned = s->windows.size() > 1 && hi - lo > longest;
  s->alignment = s->windows.size() == 1 ? "one rank, its trace clock"
                 : aligned ? "the ranks' clocks differ by more than a step: each rank is "
                             "shown from its own step start"
                           : "each rank's trace clock, from the earliest start (clocks not "
                             "corrected; see the stragglers table for inferred offsets)";
  for (RankWindow& w : s->windows) {
    w.shift_ns = aligned ? w.begin_ns : lo;
    s->span_ns = std::max(s->span_ns, w.end_ns - w.shift_ns);
  }
}

}  // namespace

Swimlane BuildSwimlane(const AnalysisReport& r, const TimelineLimits& limits) {
  Swimlane s;
  if (!r.traces || r.traces->traces.empty()) {
    s.reason = "no trace";
    return s;
  }
  ChooseWindows(r, &s);
  if (s.windows.empty()) {
    s.reason = "the traces hold no timed event";
    return s;
  }
  struct Candidate {
    uint32_t lane;
    EventId event;
  };
  for (const RankWindow& w : s.windows) {
    const EventGraph& g = r.traces->traces[w.trace]->graph;
    // Host threads that launched work shown in the window.
    std::vector<bool> launcher(g.tracks.size(), false);
    for (size_t i = 0; i < g.edges.size(); ++i) {
      if (g.edges.kind[i] != EdgeKind::kLaunch) continue;
      EventId src = g.edges.src[i], dst = g.edges.dst[i];
      if (InWindow(g, dst, w.begin_ns, w.end_ns) || InWindow(g, src, w.begin_ns, w.end_ns))
        launcher[g.events.track[src]] = true;
    }
    std::vector<TrackId> host, gpu;
    TrackId busiest = kNoRow;
    int64_t busiest_n = 0;
    // Per track, its events drawn in the window (tracks side by side).
    std::vector<int64_t> count(g.tracks.size(), 0);
    tbb::parallel_for(tbb::blocked_range<TrackId>(0, static_cast<TrackId>(g.tracks.size()), 1),
                      [&](const tbb::blocked_range<TrackId>& tracks) {
                        for (TrackId t = tracks.begin(); t != tracks.end(); ++t)
                          ForEachShown(g, t, w, [&](EventId) { ++count[t]; });
                      });
    for (TrackId t = 0; t < g.tracks.size(); ++t) {
      if (count[t] == 0) continue;
      if (g.tracks[t].kind == TrackKind::kGpuStream) {
        gpu.push_back(t);
      } else if (launcher[t]) {
        host.push_back(t);
      } else if (g.tracks[t].kind == TrackKind::kCpu && count[t] > busiest_n) {
        busiest = t;
        busiest_n = count[t];
      }
    }
    if (host.empty() && busiest != kNoRow) host.push_back(busiest);
    std::sort(gpu.begin(), gpu.end(), [&](TrackId a, TrackId b) {
      return std::make_pair(g.tracks[a].device, g.tracks[a].stream) <
             std::make_pair(g.tracks[b].device, g.tracks[b].stream);
    });
    for (const auto* list : {&host, &gpu}) {
      for (TrackId t : *list) {
        SwimlaneLane lane;
        lane.rank = w.rank;
        lane.trace = w.trace;
        lane.track = t;
        lane.gpu = g.tracks[t].kind == TrackKind::kGpuStream;
        lane.device = g.tracks[t].device;
        lane.stream = g.tracks[t].stream;
        lane.name = TrackName(g, g.tracks[t]);
        lane.events = count[t];
        s.lanes.push_back(std::move(lane));
      }
    }
  }
  for (const SwimlaneLane& lane : s.lanes) s.total_events += lane.events;
  if (s.total_events == 0) {
    s.reason = "no event in the shown window";
    return s;
  }
  auto graph_of_lane = [&](size_t lane) -> const EventGraph& {
    return r.traces->traces[s.lanes[lane].trace]->graph;
  };
  auto graph_of = [&](const Candidate& c) -> const EventGraph& { return graph_of_lane(c.lane); };
  auto window_of_lane = [&](size_t lane) -> const RankWindow& {
    for (const RankWindow& w : s.windows)
      if (w.trace == s.lanes[lane].trace) return w;
    return s.windows.front();
  };
  // Calls visit(event) for a lane's events in the window, in track order.
  auto for_each_in_lane = [&](size_t lane, auto visit) {
    ForEachShown(graph_of_lane(lane), s.lanes[lane].track, window_of_lane(lane), visit);
  };
  // The events kept: all of them, or past max_swimlane_events the longest
  // (ties: the earlier, then the lower lane, then the lower event id).
  std::vector<Candidate> all;
  const bool reduced = static_cast<uint64_t>(s.total_events) > limits.max_swimlane_events;
  if (!reduced) {
    // Lane after lane, each lane filling its own slots, lanes side by side.
    std::vector<size_t> slot{0};
    for (const SwimlaneLane& lane : s.lanes)
      slot.push_back(slot.back() + static_cast<size_t>(lane.events));
    all.resize(slot.back());
    tbb::parallel_for(size_t{0}, s.lanes.size(), [&](size_t l) {
      size_t at = slot[l];
      const uint32_t index = static_cast<uint32_t>(l);
      for_each_in_lane(l, [&](EventId ev) { all[at++] = {index, ev}; });
    });
  } else {
    // Every lane's busy share per bucket, from all its top-level events.
    const int buckets = std::max(1, limits.density_buckets);
    const double width = static_cast<double>(std::max<int64_t>(1, s.span_ns)) / buckets;
    // Per lane, in one pass over its events: the busy time per bucket of its
    // top-level events, and how many events fall in each duration class
    // (DurationClass: ordered like the durations, 1/256 of an octave wide).
    std::vector<std::vector<double>> busy(s.lanes.size());
    // One histogram per worker thread (not per lane: 130 KB each), summed.
    tbb::enumerable_thread_specific<std::vector<uint64_t>> classes(
        [] { return std::vector<uint64_t>(kDurationClasses, 0); });
    tbb::parallel_for(size_t{0}, s.lanes.size(), [&](size_t lane) {
      const RankWindow& w = window_of_lane(lane);
      const EventGraph& g = graph_of_lane(lane);
      auto& b = busy[lane];
      auto& histogram = classes.local();
      for_each_in_lane(lane, [&](EventId e) {
        ++histogram[DurationClass(g.events.dur[e])];
        if (g.events.depth[e] != 0) return;
        if (b.empty()) b.assign(buckets, 0);
        double a = static_cast<double>(std::max(g.events.ts[e], w.begin_ns) - w.shift_ns);
        double z = static_cast<double>(
            std::min(g.events.ts[e] + std::max<int64_t>(0, g.events.dur[e]), w.end_ns) -
            w.shift_ns);
        for (int k = std::max(0, static_cast<int>(a / width)); k < buckets && k * width < z; ++k) {
          double lo = std::max(a, k * width), hi = std::min(z, (k + 1) * width);
          if (hi > lo) b[k] += hi - lo;
        }
      });
    });
    for (size_t l = 0; l < s.lanes.size(); ++l) {
      if (busy[l].empty()) continue;
      s.lanes[l].density.resize(buckets);
      for (int k = 0; k < buckets; ++k)
        s.lanes[l].density[k] =
            static_cast<uint8_t>(std::min(100.0, std::round(100 * busy[l][k] / width)));
    }
    // The class of the keep-th longest event: every event of a longer class
    // is kept, of its own class the longest of them, of a shorter none.
    const uint64_t keep = limits.max_swimlane_events;
    size_t boundary = kDurationClasses;
    uint64_t longer = 0;  // events in classes above the boundary
    while (boundary > 0) {
      uint64_t in_class = 0;
      for (const auto& histogram : classes) in_class += histogram[boundary - 1];
      if (longer + in_class >= keep) break;
      longer += in_class;
      --boundary;
    }
    const size_t cut = boundary - 1;
    // Gathered lane by lane (side by side): the sure ones and the boundary's.
    std::vector<std::vector<Candidate>> sure(s.lanes.size()), maybe(s.lanes.size());
    tbb::parallel_for(size_t{0}, s.lanes.size(), [&](size_t l) {
      const EventGraph& g = graph_of_lane(l);
      const uint32_t index = static_cast<uint32_t>(l);
      for_each_in_lane(l, [&](EventId e) {
        const size_t c = DurationClass(g.events.dur[e]);
        if (c > cut) sure[l].push_back({index, e});
        if (c == cut) maybe[l].push_back({index, e});
      });
    });
    std::vector<Candidate> tied;
    for (size_t l = 0; l < s.lanes.size(); ++l) {
      all.insert(all.end(), sure[l].begin(), sure[l].end());
      tied.insert(tied.end(), maybe[l].begin(), maybe[l].end());
    }
    const size_t wanted = keep - all.size();
    std::nth_element(tied.begin(), tied.begin() + static_cast<std::ptrdiff_t>(wanted), tied.end(),
                     [&](const Candidate& a, const Candidate& b) {
                       const int64_t da = graph_of(a).events.dur[a.event];
                       const int64_t db = graph_of(b).events.dur[b.event];
                       if (da != db) return da > db;
                       const int64_t ta = graph_of(a).events.ts[a.event];
                       const int64_t tb = graph_of(b).events.ts[b.event];
                       if (ta != tb) return ta < tb;
                       return std::pair(a.lane, a.event) < std::pair(b.lane, b.event);
                     });
    all.insert(all.end(), tied.begin(), tied.begin() + static_cast<std::ptrdiff_t>(wanted));
  }
  // By lane, then start; equal starts the longer first (a parent before the
  // child it starts with), then by event id: one order whatever the input's.
  std::sort(all.begin(), all.end(), [&](const Candidate& a, const Candidate& b) {
    if (a.lane != b.lane) return a.lane < b.lane;
    const EventGraph& g = graph_of(a);
    const int64_t ta = g.events.ts[a.event], tb = g.events.ts[b.event];
    if (ta != tb) return ta < tb;
    const int64_t da = g.events.dur[a.event], db = g.events.dur[b.event];
    if (da != db) return da > db;
    return a.event < b.event;
  });

  // Names, depths, and the launch of each kept GPU event.
  std::map<std::pair<size_t, StringId>, uint32_t> names;
  std::map<std::pair<size_t, EventId>, int64_t> kept;  // (trace, event) -> index
  for (size_t i = 0; i < all.size(); ++i) kept[{s.lanes[all[i].lane].trace, all[i].event}] = i;
  std::vector<std::unordered_map<EventId, EventId>> launch_of(r.traces->traces.size());
  for (const RankWindow& w : s.windows) {
    const EventGraph& g = r.traces->traces[w.trace]->graph;
    for (size_t i = 0; i < g.edges.size(); ++i)
      if (g.edges.kind[i] == EdgeKind::kLaunch && kept.count({w.trace, g.edges.dst[i]}))
        launch_of[w.trace][g.edges.dst[i]] = g.edges.src[i];
  }
  s.events.reserve(all.size());
  size_t name_bytes = 0;
  for (const Candidate& c : all) {
    const EventGraph& g = graph_of(c);
    size_t trace = s.lanes[c.lane].trace;
    const RankWindow& w = window_of_lane(c.lane);
    SwimlaneEvent e;
    e.lane = c.lane;
    e.ts = g.events.ts[c.event] - w.shift_ns;
    e.dur = std::max<int64_t>(0, g.events.dur[c.event]);
    e.depth = std::min<uint16_t>(g.events.depth[c.event], 31);
    e.kind = g.events.kind[c.event];
    auto [it, fresh] =
        names.try_emplace({trace, g.events.name[c.event]}, static_cast<uint32_t>(s.names.size()));
    if (fresh) {
      std::string_view n = g.strings.Get(g.events.name[c.event]);
      size_t keep = name_bytes > limits.name_budget_bytes ? 40 : limits.max_name_chars;
      if (n.size() > keep) {
        // Cut on a UTF-8 character boundary.
        while (keep > 0 && (static_cast<unsigned char>(n[keep]) & 0xC0) == 0x80) --keep;
        n = n.substr(0, keep);
        ++s.names_cut;
      }
      name_bytes += n.size();
      s.names.emplace_back(n);
    }
    e.name = it->second;
    auto l = launch_of[trace].find(c.event);
    if (l != launch_of[trace].end()) {
      auto k = kept.find({trace, l->second});
      if (k != kept.end()) e.launch = k->second;
    }
    s.lanes[c.lane].depth = std::max<int>(s.lanes[c.lane].depth, e.depth + 1);
    s.events.push_back(e);
  }
  s.available = true;
  return s;
}

MemoryTimeline BuildMemoryTimeline(const AnalysisReport& r, const TimelineLimits& limits) {
  MemoryTimeline out;
  if (!r.traces) return out;
  // oom-risk's verdict per (rank, device type, device).
  struct Assessed {
    int64_t capacity = -1, peak = -1;
    std::string tier;
  };
  std::map<std::tuple<int64_t, std::string, int>, Assessed> assessed;
  if (const DerivedTable* t = TableForPanel(r.results, "oom-risk")) {
    for (size_t row = 0; row < t->rows; ++row) {
      auto key = std::make_tuple(static_cast<int64_t>(NumberAt(t->Find("rank"), row, 0)),
                                 TextAt(t->Find("device_type"), row),
                                 static_cast<int>(NumberAt(t->Find("device"), row, 0)));
      assessed[key] = {static_cast<int64_t>(NumberAt(t->Find("capacity"), row, -1)),
                       static_cast<int64_t>(NumberAt(t->Find("peak_allocated"), row, -1)),
                       TextAt(t->Find("tier"), row)};
    }
  }
  for (const auto& trace : r.traces->traces) {
    const EventGraph& g = trace->graph;
    const MemoryArgsTable& m = g.memory_args;
    out.memory_events += static_cast<int64_t>(m.size());
    std::map<std::pair<int, int>, std::vector<uint32_t>> rows;  // device -> rows
    for (uint32_t i = 0; i < m.size(); ++i) rows[{m.device_type[i], m.device_id[i]}].push_back(i);
    for (auto& [dev, list] : rows) {
      ++out.devices;
      if (out.series.size() >= limits.max_memory_devices) continue;
      const auto by_ts = [&](uint32_t a, uint32_t b) {
        return g.events.ts[m.event[a]] < g.events.ts[m.event[b]];
      };
      sdk::StableSortFewRuns(list, by_ts);
      MemorySeries s;
      s.rank = trace->info.rank;
      s.device_type = dev.first;
      s.device = dev.second;
      s.device_name = DeviceTypeName(s.device_type) +
                      (s.device_type == 0 ? "" : " " + std::to_string(s.device));
      s.events = static_cast<int64_t>(list.size());
      s.cumulative = true;
      for (uint32_t i : list)
        if (m.total_allocated[i] >= 0 && m.total_allocated[i] != kNoValue) s.cumulative = false;
      auto a = assessed.find({s.rank, DeviceTypeName(s.device_type), s.device});
      if (a != assessed.end()) {
        s.capacity = a->second.capacity;
        s.peak = a->second.peak;
        s.tier = a->second.tier;
      }
      if (s.capacity < 0 && s.device_type != 0) {
        for (const DeviceInfo& d : trace->info.devices)
          if (d.id == s.device && d.total_global_mem > 0) s.capacity = d.total_global_mem;
      }
      int64_t t0 = g.events.ts[m.event[list.front()]];
      int64_t t1 = g.events.ts[m.event[list.back()]];
      s.origin_ns = t0;
      int buckets = std::max(1, limits.memory_buckets);
      double width = std::max(1.0, static_cast<double>(t1 - t0 + 1) / buckets);
      int64_t running = 0;
      int last_bucket = -1;
      for (uint32_t i : list) {
        int64_t ts = g.events.ts[m.event[i]] - t0;
        int b = std::min(buckets - 1, static_cast<int>(static_cast<double>(ts) / width));
        running += m.bytes[i] == kNoValue ? 0 : m.bytes[i];
        int64_t alloc = s.cumulative ? running : m.total_allocated[i];
        int64_t res = m.total_reserved[i] == kNoValue ? -1 : m.total_reserved[i];
        if (b != last_bucket) {
          s.t.push_back(ts);
          s.allocated.push_back(alloc);
          s.reserved.push_back(res);
          last_bucket = b;
        } else {
          s.allocated.back() = std::max(s.allocated.back(), alloc);
          s.reserved.back() = std::max(s.reserved.back(), res);
        }
      }
      out.series.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace th
