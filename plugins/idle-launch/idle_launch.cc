// idle-launch: why GPU streams sit idle, and what launching costs.
//
// Phase 1 (idle breakdown, HTA's get_idle_time_breakdown): per GPU stream the
//   activities (kernels, memcpy, memset) in start order; the gap before each
//   one (start - end of the previous one) is host-wait when the activity's
//   launch call started after the previous activity ended, else kernel-wait
//   when shorter than kernel_wait_threshold_ns, else other.
// Phase 2 (long gaps): for the longest gaps, what the launching host thread
//   was doing meanwhile: the time of its innermost running event, by name.
// Phase 3 (launch): per launched activity the launch delay (launch call start
//   -> activity start) and the call's duration; kernels shorter than their
//   launch call; per stream the queue of launched, unfinished activities.
#include <tracehound/format.h>
#include <tracehound/sdk.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace {

using th::sdk::Context;
using th::sdk::Declaration;
using th::sdk::Trace;

constexpr uint32_t kNone = 0xFFFFFFFFu;
enum Category : uint32_t { kHostWait = 0, kKernelWait = 1, kOther = 2 };
const char* const kCategoryNames[] = {"host_wait", "kernel_wait", "other"};

struct Options {
  int64_t kernel_wait_threshold_ns, long_gap_ns, max_long_gaps, top_events;
  int64_t launch_delay_outlier_ns, runtime_outlier_ns, queue_limit, queue_buckets;
  double host_wait_finding_pct, min_busy_share_pct;
  bool steps_window, hta_rounding;
};

// The launch call (runtime/driver event) of each GPU activity, kNone if the
// trace holds none.
std::vector<uint32_t> LaunchOf(const Trace& t) {
  std::vector<uint32_t> launch(t.size(), kNone);
  for (uint64_t k = 0; k < t.edge_count(); ++k)
    if (t.edge_kind(k) == TH_EDGE_LAUNCH) launch[t.edge_dst(k)] = t.edge_src(k);
  return launch;
}

// Event times for the idle breakdown: ns as recorded, or HTA 0.6's rounding of
// traces with fractional-µs timestamps (µs parsed as float64; ts = ceil(ts),
// end = floor(ts + dur)), so figures can be set beside HTA's exactly.
class Clock {
 public:
  Clock(const Trace& t, bool hta_rounding) : t_(t) {
    if (!hta_rounding) return;
    for (uint64_t i = 0; i < t.size() && !round_; ++i)
      round_ = t.kind(i) != TH_EVENT_METADATA && t.ts(i) % 1000 != 0;
  }
  int64_t Start(uint64_t i) const {
    return round_ ? static_cast<int64_t>(std::ceil(Micros(t_.ts(i)))) * 1000 : t_.ts(i);
  }
  int64_t End(uint64_t i) const {
    if (!round_) return t_.end(i);
    return static_cast<int64_t>(std::floor(Micros(t_.ts(i)) + Micros(t_.dur(i)))) * 1000;
  }

 private:
  // The float64 nearest to ns / 1000 (what parsing the decimal µs gives): the
  // whole part is exact below 2^53 µs and the three decimals add one rounding.
  static double Micros(int64_t ns) {
    int64_t q = ns / 1000, r = ns % 1000;
    if (r < 0) r += 1000, --q;
    return static_cast<double>(q) + static_cast<double>(r) / 1000.0;
  }
  const Trace& t_;
  bool round_ = false;
};

struct Stream {
  uint32_t trace, track;
  int64_t rank, device, stream;
  int64_t first = 0, last = 0;  // span of the activities analysed
  int64_t activities = 0;
  int64_t kernels = 0;  // activities that are kernels (the rest: copies, memsets)
  int64_t busy = 0;     // summed duration of its activities (ns)
};

struct Gap {
  uint32_t stream;     // index into streams
  uint32_t category;   // Category
  int64_t begin, end;  // previous activity's end, this activity's start (ns)
  uint32_t next;       // the activity after the gap
  bool no_launch;      // the activity after the gap has no launch event
};

using th::sdk::Duration;
using th::sdk::Micros;

// What thread `track` of trace `t` did during [a, b): at each instant the
// innermost running event (the one started last) gets the time, summed by
// name (an event's self time inside the window, robust to slices that cross
// instead of nesting); `busy` = the time any event of the thread ran.
struct HostActivity {
  int64_t busy = 0;
  std::vector<std::pair<int64_t, std::string>> top;  // (self ns, name), largest first
};

class ThreadIndex {
 public:
  explicit ThreadIndex(const Trace& t) : t_(t) {}
  HostActivity During(uint32_t track, int64_t a, int64_t b, size_t top_n) {
    const std::vector<uint32_t>& ev = Events(track);
    HostActivity out;
    if (ev.empty() || b <= a) return out;
    auto by_ts = [&](uint32_t e, int64_t v) { return t_.ts(e) < v; };
    auto lo = std::lower_bound(ev.begin(), ev.end(), a, by_ts);
    auto hi = std::lower_bound(lo, ev.end(), b, by_ts);
    std::vector<uint32_t> overlapping;
    // Running at a: the last event started before a and the events around it.
    if (lo != ev.begin()) {
      for (uint32_t e = *(lo - 1); e != kNone; e = t_.parent(e))
        if (t_.end(e) > a) overlapping.push_back(e);
    }
    for (auto it = lo; it != hi; ++it)
      if (t_.dur(*it) > 0) overlapping.push_back(*it);
    // Sweep the window: (time, 0 = end / 1 = start, event).
    std::vector<std::tuple<int64_t, int, uint32_t>> points;
    for (uint32_t e : overlapping) {
      points.emplace_back(std::max(t_.ts(e), a), 1, e);
      points.emplace_back(std::min(t_.end(e), b), 0, e);
    }
    std::sort(points.begin(), points.end());
    auto inner = [&](uint32_t x, uint32_t y) {  // y started later (is inside x)
      if (t_.ts(x) != t_.ts(y)) return t_.ts(x) < t_.ts(y);
      if (t_.dur(x) != t_.dur(y)) return t_.dur(x) > t_.dur(y);
      return x < y;
    };
    std::set<uint32_t, decltype(inner)> running(inner);
    std::unordered_map<uint32_t, int64_t> self;
    int64_t prev = a;
    for (const auto& [time, start, e] : points) {
      if (!running.empty() && time > prev) {
        self[*running.rbegin()] += time - prev;
        out.busy += time - prev;
      }
      prev = time;
      if (start) {
        running.insert(e);
      } else {
        running.erase(e);
      }
    }
    std::map<std::string, int64_t> by_name;
    for (const auto& [e, ns] : self) by_name[std::string(t_.name(e))] += ns;
    for (const auto& [name, ns] : by_name) out.top.emplace_back(ns, name);
    std::sort(out.top.begin(), out.top.end(),
              [](const auto& x, const auto& y) { return x.first > y.first; });
    if (out.top.size() > top_n) out.top.resize(top_n);
    return out;
  }

 private:
  // The events of a host thread in time order (ts, longer first); all threads
  // are indexed in one pass over the trace on first use.
  const std::vector<uint32_t>& Events(uint32_t track) {
    if (!built_) {
      built_ = true;
      by_track_.resize(t_.track_count());
      for (uint64_t i = 0; i < t_.size(); ++i) {
        const uint32_t k = t_.kind(i);
        if (t_.track_of(i).kind != TH_TRACK_GPU_STREAM && k != TH_EVENT_FLOW &&
            k != TH_EVENT_METADATA && k != TH_EVENT_COUNTER)
          by_track_[t_.track_index(i)].push_back(static_cast<uint32_t>(i));
      }
      for (auto& ev : by_track_) {
        std::sort(ev.begin(), ev.end(), [&](uint32_t x, uint32_t y) {
          if (t_.ts(x) != t_.ts(y)) return t_.ts(x) < t_.ts(y);
          if (t_.dur(x) != t_.dur(y)) return t_.dur(x) > t_.dur(y);
          return x < y;
        });
      }
    }
    return by_track_[track];
  }
  const Trace& t_;
  bool built_ = false;
  std::vector<std::vector<uint32_t>> by_track_;
};

// The tables it publishes.
th::sdk::Schema LongGapsTable() {
  return th::sdk::Schema("long_gaps")
      .Int("rank")
      .Int("device")
      .Int("stream")
      .Int("begin", "ns")
      .Int("dur", "ns")
      .Text("category")
      .Text("next_activity")
      .Int("thread")
      .Int("thread_busy", "ns")
      .Text("top_event")
      .Int("top_event_self", "ns")
      .Text("thread_top_events");
}
th::sdk::Schema IdleBreakdownTable() {
  return th::sdk::Schema("idle_breakdown")
      .Int("rank")
      .Int("device")
      .Int("stream")
      .Int("activities", "count")
      .Int("span", "ns")
      .Int("idle", "ns")
      .Real("idle_share_of_span", "%")
      .Int("host_wait", "ns")
      .Int("kernel_wait", "ns")
      .Int("other", "ns")
      .Real("host_wait_pct", "%")
      .Real("kernel_wait_pct", "%")
      .Real("other_pct", "%")
      .Int("host_wait_gaps", "count")
      .Int("kernel_wait_gaps", "count")
      .Int("other_gaps", "count")
      .Int("no_launch_gaps", "count")
      .Int("no_launch_idle", "ns");
}
th::sdk::Schema LaunchStatsTable() {
  return th::sdk::Schema("launch_stats")
      .Int("rank")
      .Int("device")
      .Int("stream")
      .Int("launches", "count")
      .Int("launch_delay_total", "ns")
      .Real("launch_delay_mean", "ns")
      .Int("launch_delay_p50", "ns")
      .Int("launch_delay_p99", "ns")
      .Int("launch_delay_max", "ns")
      .Int("launch_delay_outliers", "count")
      .Int("launch_call_time", "ns")
      .Int("launch_call_outliers", "count")
      .Int("kernels", "count")
      .Int("kernels_shorter_than_launch", "count")
      .Int("queue_max", "count")
      .Real("queue_mean", "count")
      .Int("time_at_queue_limit", "ns");
}
th::sdk::Schema LaunchBoundKernelsTable() {
  return th::sdk::Schema("launch_bound_kernels")
      .Text("name")
      .Int("count", "count")
      .Int("kernel_time", "ns")
      .Int("launch_call_time", "ns");
}
th::sdk::Schema QueueLengthTable() {
  return th::sdk::Schema("queue_length")
      .Int("rank")
      .Int("device")
      .Int("stream")
      .Int("begin", "ns")
      .Int("width", "ns")
      .Int("max", "count")
      .Real("mean", "count");
}

class IdleLaunch final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("idle-launch", "1.0.0", th::sdk::kAnalyzer,
                       "Per GPU stream: idle time split into host-wait / kernel-wait / other "
                       "(HTA's idle breakdown), what the launching thread did in long gaps, "
                       "launch delays, kernels shorter than their launch, queue length")
        .Reads({"events", "tracks", "edges", "graph_capture"})
        .Publishes(IdleBreakdownTable())
        .Publishes(LongGapsTable())
        .Publishes(LaunchStatsTable())
        .Publishes(LaunchBoundKernelsTable())
        .Publishes(QueueLengthTable())
        .Option("kernel_wait_threshold_ns", int64_t{30000},
                "a gap not caused by the host and shorter than this is kernel-wait (HTA's "
                "consecutive_kernel_delay, 30, which HTA compares with µs)")
        .Min(0)
        .Option("window", "trace",
                "trace: every activity; steps: HTA's window, activities launched before the "
                "last ProfilerStep starts (the whole trace with fewer than two steps)",
                {"trace", "steps"})
        .Option("hta_rounding", false,
                "idle breakdown on HTA 0.6's whole-µs rounding of fractional-µs traces "
                "(to set figures beside HTA's); off: exact ns")
        .Option("long_gap_ns", int64_t{100000},
                "gaps at least this long are attributed to what the launching thread did")
        .Min(1)
        .Option("max_long_gaps", int64_t{20}, "the longest gaps listed in long_gaps")
        .Min(0)
        .Option("top_events", int64_t{3}, "host events listed per long gap")
        .Min(1)
        .Option("launch_delay_outlier_ns", int64_t{100000},
                "launch delays above this are counted as outliers (HTA launch_delay_cutoff)")
        .Min(0)
        .Option("runtime_outlier_ns", int64_t{50000},
                "launch calls longer than this are counted as outliers (HTA runtime_cutoff)")
        .Min(0)
        .Option("queue_limit", int64_t{1024},
                "queue length at which the host blocks on launch (CUDA: 1024)")
        .Min(1)
        .Option("queue_buckets", int64_t{100},
                "time buckets per stream in queue_length (0: no series)")
        .Range(0, 100000)
        .Option("host_wait_finding_pct", 10.0,
                "report a stream whose host-wait idle is at least this % of its span")
        .Range(0, 100)
        .Option("min_busy_share_pct", 10.0,
                "judge a stream without kernels (a copy stream: idle by design) only when "
                "it holds at least this % of its device's busy time")
        .Range(0, 100);
  }

  void Run(Context& ctx) override {
    Options o;
    o.kernel_wait_threshold_ns = ctx.GetInt("kernel_wait_threshold_ns");
    o.steps_window = ctx.GetString("window") == "steps";
    o.hta_rounding = ctx.GetBool("hta_rounding");
    o.long_gap_ns = ctx.GetInt("long_gap_ns");
    o.max_long_gaps = ctx.GetInt("max_long_gaps");
    o.top_events = ctx.GetInt("top_events");
    o.launch_delay_outlier_ns = ctx.GetInt("launch_delay_outlier_ns");
    o.runtime_outlier_ns = ctx.GetInt("runtime_outlier_ns");
    o.queue_limit = ctx.GetInt("queue_limit");
    o.queue_buckets = ctx.GetInt("queue_buckets");
    o.host_wait_finding_pct = ctx.GetDouble("host_wait_finding_pct");
    o.min_busy_share_pct = ctx.GetDouble("min_busy_share_pct");

    const auto& traces = ctx.traces();
    std::vector<Stream> streams;
    std::vector<Gap> gaps;
    // Launched activities (phase 3): stream, the activity, its launch.
    struct Launched {
      uint32_t stream, event, launch;
    };
    std::vector<Launched> launched;
    std::vector<std::vector<uint32_t>> launch_of(traces.size());

    // Phase 1: activities per stream in start order, gaps classified.
    for (uint32_t ti = 0; ti < traces.size(); ++ti) {
      const Trace& t = traces[ti];
      if (t.capture().dominates) {
        ctx.Skip(t,
                 "the trace records CUDA/HIP graph capture: most launched kernels never ran "
                 "in it, so its streams' idle time and launch delays describe start-up");
        continue;
      }
      launch_of[ti] = LaunchOf(t);
      const std::vector<uint32_t>& launch = launch_of[ti];
      Clock clock(t, o.hta_rounding);
      // HTA's window: with two or more distinct ProfilerStep#N names, only
      // activities whose launch started before the last ProfilerStep#N event
      // started (any such event: HTA counts GPU-side step annotations and the
      // legacy steps of category "Operator", a cpu_op, too).
      int64_t cutoff = INT64_MAX;
      if (o.steps_window) {
        std::set<std::string_view> names;
        int64_t last_step = INT64_MIN;
        for (uint64_t i = 0; i < t.size(); ++i) {
          const uint32_t k = t.kind(i);
          if (k != TH_EVENT_USER_ANNOTATION && k != TH_EVENT_GPU_USER_ANNOTATION &&
              k != TH_EVENT_CPU_OP)
            continue;
          std::string_view name = t.name(i);
          if (name.substr(0, 13) != "ProfilerStep#") continue;
          names.insert(name);
          last_step = std::max(last_step, clock.Start(i));
        }
        if (names.size() >= 2) cutoff = last_step;
      }

      std::map<uint32_t, std::vector<uint32_t>> by_track;
      for (uint64_t i = 0; i < t.size(); ++i) {
        if (!t.is_gpu_activity(i)) continue;
        if (t.track_of(i).kind != TH_TRACK_GPU_STREAM) continue;
        if (cutoff != INT64_MAX && (launch[i] == kNone || clock.Start(launch[i]) >= cutoff))
          continue;
        by_track[t.track_index(i)].push_back(static_cast<uint32_t>(i));
      }
      std::vector<std::pair<uint32_t, std::vector<uint32_t>>> tracks(by_track.begin(),
                                                                     by_track.end());
      std::sort(tracks.begin(), tracks.end(), [&](const auto& x, const auto& y) {
        const th_track& a = t.track(x.first);
        const th_track& b = t.track(y.first);
        return std::tie(a.device, a.stream, x.first) < std::tie(b.device, b.stream, y.first);
      });
      for (auto& [track, acts] : tracks) {
        // Start order; ties in file order (HTA sorts by ts alone).
        std::stable_sort(acts.begin(), acts.end(),
                         [&](uint32_t x, uint32_t y) { return clock.Start(x) < clock.Start(y); });
        const auto s = static_cast<uint32_t>(streams.size());
        Stream st{ti, track, t.rank(), t.track(track).device, t.track(track).stream};
        st.first = clock.Start(acts.front());
        st.last = clock.End(acts.front());
        st.activities = static_cast<int64_t>(acts.size());
        for (size_t k = 0; k < acts.size(); ++k) {
          const uint32_t e = acts[k];
          st.last = std::max(st.last, clock.End(e));
          st.busy += clock.End(e) - clock.Start(e);
          st.kernels += t.kind(e) == TH_EVENT_KERNEL;
          if (launch[e] != kNone) launched.push_back({s, e, launch[e]});
          if (k == 0) continue;
          const int64_t prev_end = clock.End(acts[k - 1]), start = clock.Start(e);
          Gap g{s, kOther, prev_end, start, e, launch[e] == kNone};
          if (launch[e] != kNone && clock.Start(launch[e]) > prev_end) {
            g.category = kHostWait;
          } else if (start - prev_end < o.kernel_wait_threshold_ns) {
            g.category = kKernelWait;
          }
          gaps.push_back(g);
        }
        streams.push_back(st);
      }
    }
    PublishIdle(ctx, o, streams, gaps);

    // Phase 2: the longest gaps and what the launching thread did meanwhile.
    std::vector<uint32_t> long_gaps;
    for (uint32_t g = 0; g < gaps.size(); ++g)
      if (gaps[g].end - gaps[g].begin >= o.long_gap_ns) long_gaps.push_back(g);
    std::sort(long_gaps.begin(), long_gaps.end(), [&](uint32_t x, uint32_t y) {
      int64_t dx = gaps[x].end - gaps[x].begin, dy = gaps[y].end - gaps[y].begin;
      return dx != dy ? dx > dy : x < y;
    });
    if (long_gaps.size() > static_cast<size_t>(o.max_long_gaps))
      long_gaps.resize(static_cast<size_t>(o.max_long_gaps));
    {
      std::vector<int64_t> rank, device, stream, begin, dur, thread, busy;
      std::vector<std::string> category, next, top, top_event;
      std::vector<int64_t> top_self;
      std::vector<ThreadIndex> index;
      for (const Trace& t : traces) index.emplace_back(t);
      for (uint32_t g : long_gaps) {
        const Gap& gap = gaps[g];
        const Stream& st = streams[gap.stream];
        const Trace& t = traces[st.trace];
        rank.push_back(st.rank);
        device.push_back(st.device);
        stream.push_back(st.stream);
        begin.push_back(gap.begin);
        dur.push_back(gap.end - gap.begin);
        category.push_back(kCategoryNames[gap.category]);
        next.push_back(std::string(t.name(gap.next)));
        const uint32_t l = launch_of[st.trace][gap.next];
        HostActivity host;
        if (l != kNone) {
          host = index[st.trace].During(t.track_index(l), gap.begin, gap.end,
                                        static_cast<size_t>(o.top_events));
          thread.push_back(t.track_of(l).tid);
        } else {
          thread.push_back(-1);
        }
        busy.push_back(l != kNone ? host.busy : -1);
        std::string list;
        for (const auto& [ns, name] : host.top)
          list += (list.empty() ? "" : "; ") + name + " (" + Micros(ns) + ")";
        top.push_back(l != kNone ? list : "launch not in the trace");
        top_event.push_back(host.top.empty() ? "" : host.top.front().second);
        top_self.push_back(host.top.empty() ? 0 : host.top.front().first);
      }
      ctx.Publish(th::sdk::Table("long_gaps")
                      .Int("rank", rank)
                      .Int("device", device)
                      .Int("stream", stream)
                      .Int("begin", begin, "ns")
                      .Int("dur", dur, "ns")
                      .Text("category", category)
                      .Text("next_activity", next)
                      .Int("thread", thread)
                      .Int("thread_busy", busy, "ns")
                      .Text("top_event", top_event)
                      .Int("top_event_self", top_self, "ns")
                      .Text("thread_top_events", top));
    }

    PublishLaunch(ctx, o, traces, streams, launched.size(), [&](auto&& visit) {
      for (const Launched& l : launched) visit(l.stream, l.event, l.launch);
    });
  }

 private:
  static void PublishIdle(Context& ctx, const Options& o, const std::vector<Stream>& streams,
                          const std::vector<Gap>& gaps) {
    const size_t n = streams.size();
    // Sums per (stream, category) and per stream for gaps before activities
    // without a launch event, on the host's reduce-by-key.
    std::vector<uint32_t> key, no_launch_key;
    std::vector<int64_t> len, no_launch_len;
    for (const Gap& g : gaps) {
      key.push_back(g.stream * 3 + g.category);
      len.push_back(g.end - g.begin);
      if (g.no_launch) {
        no_launch_key.push_back(g.stream);
        no_launch_len.push_back(g.end - g.begin);
      }
    }
    using R = Context::Reduce;
    std::vector<int64_t> sum = ctx.ReduceByKey(key, len, R::kSum, 3 * n);
    std::vector<int64_t> count = ctx.ReduceByKey(key, len, R::kCount, 3 * n);
    std::vector<int64_t> nl_sum = ctx.ReduceByKey(no_launch_key, no_launch_len, R::kSum, n);
    std::vector<int64_t> nl_count = ctx.ReduceByKey(no_launch_key, no_launch_len, R::kCount, n);

    std::vector<int64_t> rank, device, stream, span, activities, idle, nl, nlc;
    std::vector<int64_t> part[3], gaps_of[3];
    std::vector<double> pct[3], span_pct;
    // A stream is judged by what it carries: kernels (compute), or a real
    // share of its device's busy time. A copy-only stream idles by design.
    // Messages name the device when its rank has more than one.
    std::map<std::pair<int64_t, int64_t>, int64_t> device_busy;
    std::map<int64_t, std::set<int64_t>> devices_of_rank;
    for (const Stream& st : streams) {
      device_busy[{st.rank, st.device}] += st.busy;
      devices_of_rank[st.rank].insert(st.device);
    }
    for (size_t s = 0; s < n; ++s) {
      const Stream& st = streams[s];
      int64_t total = sum[3 * s] + sum[3 * s + 1] + sum[3 * s + 2];
      rank.push_back(st.rank);
      device.push_back(st.device);
      stream.push_back(st.stream);
      span.push_back(st.last - st.first);
      activities.push_back(st.activities);
      idle.push_back(total);
      span_pct.push_back(st.last > st.first ? 100.0 * static_cast<double>(total) /
                                                  static_cast<double>(st.last - st.first)
                                            : 0.0);
      for (int c = 0; c < 3; ++c) {
        part[c].push_back(sum[3 * s + c]);
        gaps_of[c].push_back(count[3 * s + c]);
        pct[c].push_back(
            total ? 100.0 * static_cast<double>(sum[3 * s + c]) / static_cast<double>(total) : 0.0);
      }
      nl.push_back(nl_sum[s]);
      nlc.push_back(nl_count[s]);
      th::sdk::Scope scope;
      scope.rank = st.rank;
      scope.device = st.device;
      scope.stream = st.stream;
      for (int c = 0; c < 3; ++c)
        ctx.Metric(std::string("idle_") + kCategoryNames[c], static_cast<double>(sum[3 * s + c]),
                   "ns", th::sdk::kMeasured, scope);
      const double host_span_pct = st.last > st.first ? 100.0 * static_cast<double>(sum[3 * s]) /
                                                            static_cast<double>(st.last - st.first)
                                                      : 0.0;
      const int64_t on_device = device_busy[{st.rank, st.device}];
      const bool judged =
          st.kernels > 0 ||
          (on_device > 0 && 100.0 * static_cast<double>(st.busy) / static_cast<double>(on_device) >=
                                o.min_busy_share_pct);
      if (judged && sum[3 * s] > 0 && host_span_pct >= o.host_wait_finding_pct) {
        std::string where = "rank " + std::to_string(st.rank);
        if (devices_of_rank[st.rank].size() > 1) where += " device " + std::to_string(st.device);
        where += " stream " + std::to_string(st.stream);
        char what[320];
        std::snprintf(what, sizeof what,
                      "%s idles %.1f%% of its span (%s) waiting for the host "
                      "to launch work: %.1f%% of its idle time is host-wait",
                      where.c_str(), host_span_pct, Duration(st.last - st.first).c_str(),
                      pct[0].back());
        ctx.Add(
            th::sdk::Finding(th::sdk::P2, "GPU stream waits on the host (launch-bound)")
                .What(what)
                .In(scope)
                .Evidence("host_wait", static_cast<double>(sum[3 * s]), "ns", th::sdk::kMeasured)
                .Evidence("span", static_cast<double>(st.last - st.first), "ns", th::sdk::kMeasured)
                .Evidence("host_wait_share_of_span", host_span_pct, "%", th::sdk::kMeasured)
                .Suggest("see long_gaps for what the launching thread did; batch small ops, "
                         "use CUDA graphs or torch.compile, or move CPU work off the "
                         "launching thread"));
      }
    }
    ctx.Publish(th::sdk::Table("idle_breakdown")
                    .Int("rank", rank)
                    .Int("device", device)
                    .Int("stream", stream)
                    .Int("activities", activities, "count")
                    .Int("span", span, "ns")
                    .Int("idle", idle, "ns")
                    .Real("idle_share_of_span", span_pct, "%")
                    .Int("host_wait", part[0], "ns")
                    .Int("kernel_wait", part[1], "ns")
                    .Int("other", part[2], "ns")
                    .Real("host_wait_pct", pct[0], "%")
                    .Real("kernel_wait_pct", pct[1], "%")
                    .Real("other_pct", pct[2], "%")
                    .Int("host_wait_gaps", gaps_of[0], "count")
                    .Int("kernel_wait_gaps", gaps_of[1], "count")
                    .Int("other_gaps", gaps_of[2], "count")
                    .Int("no_launch_gaps", nlc, "count")
                    .Int("no_launch_idle", nl, "ns"));
  }

  template <typename ForEach>
  static void PublishLaunch(Context& ctx, const Options& o, const std::vector<Trace>& traces,
                            const std::vector<Stream>& streams, size_t count, ForEach&& for_each) {
    const size_t n = streams.size();
    std::vector<uint32_t> key;
    std::vector<int64_t> delay, call;
    key.reserve(count);
    delay.reserve(count);
    call.reserve(count);
    // Kernels shorter than their launch call, by kernel name (over all ranks).
    std::map<std::string, std::array<int64_t, 3>> bound;  // name -> count, kernel ns, call ns
    std::vector<std::vector<std::pair<int64_t, int>>> queue(n);  // (time, +1/-1)
    std::vector<int64_t> delay_outliers(n, 0), call_outliers(n, 0), shorter(n, 0), kernels(n, 0);
    for_each([&](uint32_t s, uint32_t e, uint32_t l) {
      const Trace& t = traces[streams[s].trace];
      key.push_back(s);
      delay.push_back(t.ts(e) - t.ts(l));
      call.push_back(t.dur(l));
      delay_outliers[s] += t.ts(e) - t.ts(l) > o.launch_delay_outlier_ns;
      call_outliers[s] += t.dur(l) > o.runtime_outlier_ns;
      if (t.kind(e) == TH_EVENT_KERNEL) {
        ++kernels[s];
        if (t.dur(e) < t.dur(l)) {
          ++shorter[s];
          auto& b = bound[std::string(t.name(e))];
          b[0] += 1;
          b[1] += t.dur(e);
          b[2] += t.dur(l);
        }
      }
      queue[s].push_back({t.ts(l), +1});
      queue[s].push_back({t.end(e), -1});
    });
    using R = Context::Reduce;
    std::vector<int64_t> launches = ctx.ReduceByKey(key, delay, R::kCount, n);
    std::vector<int64_t> delay_sum = ctx.ReduceByKey(key, delay, R::kSum, n);
    std::vector<int64_t> delay_max = ctx.ReduceByKey(key, delay, R::kMax, n);
    std::vector<int64_t> call_sum = ctx.ReduceByKey(key, call, R::kSum, n);
    // Launch-delay percentiles: rows grouped by stream (stable sort by key).
    std::vector<int64_t> sort_keys(key.begin(), key.end());
    std::vector<uint32_t> rows(key.size());
    for (uint32_t i = 0; i < rows.size(); ++i) rows[i] = i;
    ctx.SortByKey(sort_keys, rows);
    std::vector<int64_t> grouped(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) grouped[i] = delay[rows[i]];
    std::vector<uint64_t> offsets(n + 1, 0);
    for (size_t s = 0; s < n; ++s) offsets[s + 1] = offsets[s] + static_cast<uint64_t>(launches[s]);
    std::vector<int64_t> pct = ctx.SegmentedPercentiles(grouped, offsets, {50, 99});

    // Queue of launched, unfinished activities per stream: +1 at the launch
    // call's start, -1 at the activity's end (ends first at equal times).
    std::vector<int64_t> q_max(n, 0), q_at_limit(n, 0);
    std::vector<double> q_mean(n, 0);
    std::vector<int64_t> b_rank, b_device, b_stream, b_begin, b_width, b_max;
    std::vector<double> b_mean;
    for (size_t s = 0; s < n; ++s) {
      auto& ev = queue[s];
      if (ev.empty()) continue;
      std::sort(ev.begin(), ev.end());
      const int64_t first = ev.front().first, last = ev.back().first;
      const int64_t buckets = o.queue_buckets;
      const int64_t width =
          buckets > 0 ? std::max<int64_t>(1, (last - first + buckets - 1) / buckets) : 0;
      std::vector<int64_t> bmax(static_cast<size_t>(buckets), 0);
      std::vector<double> barea(static_cast<size_t>(buckets), 0);
      int64_t q = 0;
      double area = 0;
      for (size_t k = 0; k < ev.size(); ++k) {
        q += ev[k].second;
        q_max[s] = std::max(q_max[s], q);
        const int64_t from = ev[k].first;
        const int64_t to = k + 1 < ev.size() ? ev[k + 1].first : from;
        if (to <= from) continue;
        area += static_cast<double>(q) * static_cast<double>(to - from);
        if (q >= o.queue_limit) q_at_limit[s] += to - from;
        for (int64_t b = (from - first) / std::max<int64_t>(width, 1);
             width > 0 && b < buckets && first + b * width < to; ++b) {
          const int64_t lo = std::max(from, first + b * width);
          const int64_t hi = std::min(to, first + (b + 1) * width);
          if (hi <= lo) continue;
          bmax[static_cast<size_t>(b)] = std::max(bmax[static_cast<size_t>(b)], q);
          barea[static_cast<size_t>(b)] += static_cast<double>(q) * static_cast<double>(hi - lo);
        }
      }
      q_mean[s] = last > first ? area / static_cast<double>(last - first) : 0.0;
      for (int64_t b = 0; width > 0 && b < buckets && first + b * width < last; ++b) {
        b_rank.push_back(streams[s].rank);
        b_device.push_back(streams[s].device);
        b_stream.push_back(streams[s].stream);
        b_begin.push_back(first + b * width);
        b_width.push_back(width);
        b_max.push_back(bmax[static_cast<size_t>(b)]);
        b_mean.push_back(barea[static_cast<size_t>(b)] / static_cast<double>(width));
      }
    }

    std::vector<int64_t> rank, device, stream, p50, p99, mx, dsum, csum, nl, no, ro, sh, kc;
    std::vector<double> mean;
    std::map<int64_t, std::array<int64_t, 3>> per_rank;  // delay, call time, shorter
    for (size_t s = 0; s < n; ++s) {
      rank.push_back(streams[s].rank);
      device.push_back(streams[s].device);
      stream.push_back(streams[s].stream);
      nl.push_back(launches[s]);
      dsum.push_back(delay_sum[s]);
      mean.push_back(
          launches[s] ? static_cast<double>(delay_sum[s]) / static_cast<double>(launches[s]) : 0.0);
      p50.push_back(launches[s] ? pct[2 * s] : 0);
      p99.push_back(launches[s] ? pct[2 * s + 1] : 0);
      mx.push_back(launches[s] ? delay_max[s] : 0);
      csum.push_back(call_sum[s]);
      no.push_back(delay_outliers[s]);
      ro.push_back(call_outliers[s]);
      kc.push_back(kernels[s]);
      sh.push_back(shorter[s]);
      auto& r = per_rank[streams[s].rank];
      r[0] += delay_sum[s];
      r[1] += call_sum[s];
      r[2] += shorter[s];
      if (q_at_limit[s] > 0) {
        th::sdk::Scope scope;
        scope.rank = streams[s].rank;
        scope.device = streams[s].device;
        scope.stream = streams[s].stream;
        ctx.Add(
            th::sdk::Finding(th::sdk::P2, "launch queue full")
                .What("rank " + std::to_string(streams[s].rank) + " stream " +
                      std::to_string(streams[s].stream) + " holds " +
                      std::to_string(o.queue_limit) +
                      " or more launched, unfinished "
                      "activities for " +
                      Duration(q_at_limit[s]) +
                      ": the launching thread blocks until the GPU catches up")
                .In(scope)
                .Evidence("time_at_queue_limit", static_cast<double>(q_at_limit[s]), "ns",
                          th::sdk::kMeasured)
                .Evidence("max_queue", static_cast<double>(q_max[s]), "count", th::sdk::kMeasured));
      }
    }
    for (const auto& [r, v] : per_rank) {
      th::sdk::Scope scope;
      scope.rank = r;
      ctx.Metric("launch_delay_total", static_cast<double>(v[0]), "ns", th::sdk::kMeasured, scope);
      ctx.Metric("launch_call_time", static_cast<double>(v[1]), "ns", th::sdk::kMeasured, scope);
      ctx.Metric("kernels_shorter_than_launch", static_cast<double>(v[2]), "count",
                 th::sdk::kMeasured, scope);
    }
    ctx.Publish(th::sdk::Table("launch_stats")
                    .Int("rank", rank)
                    .Int("device", device)
                    .Int("stream", stream)
                    .Int("launches", nl, "count")
                    .Int("launch_delay_total", dsum, "ns")
                    .Real("launch_delay_mean", mean, "ns")
                    .Int("launch_delay_p50", p50, "ns")
                    .Int("launch_delay_p99", p99, "ns")
                    .Int("launch_delay_max", mx, "ns")
                    .Int("launch_delay_outliers", no, "count")
                    .Int("launch_call_time", csum, "ns")
                    .Int("launch_call_outliers", ro, "count")
                    .Int("kernels", kc, "count")
                    .Int("kernels_shorter_than_launch", sh, "count")
                    .Int("queue_max", q_max, "count")
                    .Real("queue_mean", q_mean, "count")
                    .Int("time_at_queue_limit", q_at_limit, "ns"));

    std::vector<std::pair<std::string, std::array<int64_t, 3>>> rows_bound(bound.begin(),
                                                                           bound.end());
    std::sort(rows_bound.begin(), rows_bound.end(), [](const auto& x, const auto& y) {
      return x.second[2] != y.second[2] ? x.second[2] > y.second[2] : x.first < y.first;
    });
    std::vector<std::string> names;
    std::vector<int64_t> bc, bk, bl;
    for (const auto& [name, v] : rows_bound) {
      names.push_back(name);
      bc.push_back(v[0]);
      bk.push_back(v[1]);
      bl.push_back(v[2]);
    }
    ctx.Publish(th::sdk::Table("launch_bound_kernels")
                    .Text("name", names)
                    .Int("count", bc, "count")
                    .Int("kernel_time", bk, "ns")
                    .Int("launch_call_time", bl, "ns"));
    ctx.Publish(th::sdk::Table("queue_length")
                    .Int("rank", b_rank)
                    .Int("device", b_device)
                    .Int("stream", b_stream)
                    .Int("begin", b_begin, "ns")
                    .Int("width", b_width, "ns")
                    .Int("max", b_max, "count")
                    .Real("mean", b_mean, "count"));
  }
};

}  // namespace

TH_PLUGIN(IdleLaunch)
