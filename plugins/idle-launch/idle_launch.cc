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
// Phases 1 and 3 take one pass over each stream's activities (sorted only
// where the file does not hold them in start order); phase 2 one pass over
// the events for all long gaps (host_activity.h).
#include <tracehound/format.h>
#include <tracehound/sdk.h>
#include <tracehound/sorted_runs.h>

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

#include "host_activity.h"

namespace {

using th::idle_launch::HostActivity;
using th::idle_launch::HostActivityDuring;
using th::idle_launch::HostWindow;
using th::sdk::StableSortRuns;

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

// One GPU stream: its activities' span and gaps (phase 1) and its launches
// (phase 3), each summed in the one pass over its activities.
struct Stream {
  uint32_t trace, track;
  int64_t rank, device, stream;
  int64_t first = 0, last = 0;  // span of the activities analysed
  int64_t activities = 0;
  int64_t kernels = 0;                    // activities that are kernels (the rest: copies, memsets)
  int64_t busy = 0;                       // summed duration of its activities (ns)
  std::array<int64_t, 3> idle{}, gaps{};  // per Category: summed length, count
  int64_t no_launch_idle = 0, no_launch_gaps = 0;
  // Over the activities with a launch event.
  int64_t launches = 0, delay_sum = 0, delay_max = 0, delay_p50 = 0, delay_p99 = 0;
  int64_t delay_outliers = 0, call_sum = 0, call_outliers = 0;
  int64_t launched_kernels = 0, shorter = 0;  // kernels; those shorter than their launch call
  int64_t queue_max = 0, queue_at_limit = 0;
  double queue_mean = 0;
};

// A gap of at least long_gap_ns: (dur desc, stream, gap in stream) orders the
// longest first, ties in the order the gaps were found.
struct LongGap {
  int64_t dur;
  uint32_t stream, gap;
  uint32_t category;  // Category
  int64_t begin;      // previous activity's end (ns)
  uint32_t next;      // the activity after the gap
  uint32_t launch;    // its launch event, kNone if none
  bool operator<(const LongGap& o) const {
    return dur != o.dur ? dur > o.dur : stream != o.stream ? stream < o.stream : gap < o.gap;
  }
};

// The `keep` first of `gaps` in LongGap order, the rest dropped.
void KeepLongest(std::vector<LongGap>& gaps, size_t keep) {
  if (gaps.size() <= keep) return;
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<ptrdiff_t>(keep), gaps.end());
  gaps.resize(keep);
}

// The queue_length series: one row per bucket.
struct QueueSeries {
  std::vector<int64_t> rank, device, stream, begin, width, max;
  std::vector<double> mean;
};

// Queue of launched, unfinished activities of one stream: +1 at each launch
// call's start, -1 at each activity's end (ends first at equal times). Sorts
// `starts` and `ends`.
void Queue(std::vector<int64_t>& starts, std::vector<int64_t>& ends, const Options& o, Stream& st,
           QueueSeries& series) {
  if (starts.empty()) return;
  StableSortRuns(starts);
  StableSortRuns(ends);
  const size_t n = starts.size();
  size_t si = 0, ei = 0;
  auto next_time = [&] {
    return ei < n && (si >= n || ends[ei] <= starts[si]) ? ends[ei] : starts[si];
  };
  const int64_t first = std::min(starts.front(), ends.front());
  const int64_t last = std::max(starts.back(), ends.back());
  const int64_t buckets = o.queue_buckets;
  const int64_t width =
      buckets > 0 ? std::max<int64_t>(1, (last - first + buckets - 1) / buckets) : 0;
  std::vector<int64_t> bmax(static_cast<size_t>(buckets), 0);
  std::vector<double> barea(static_cast<size_t>(buckets), 0);
  int64_t q = 0;
  double area = 0;
  while (si < n || ei < n) {
    const bool end = ei < n && (si >= n || ends[ei] <= starts[si]);
    const int64_t from = end ? ends[ei++] : starts[si++];
    q += end ? -1 : +1;
    st.queue_max = std::max(st.queue_max, q);
    const int64_t to = si < n || ei < n ? next_time() : from;
    if (to <= from) continue;
    area += static_cast<double>(q) * static_cast<double>(to - from);
    if (q >= o.queue_limit) st.queue_at_limit += to - from;
    for (int64_t b = (from - first) / std::max<int64_t>(width, 1);
         width > 0 && b < buckets && first + b * width < to; ++b) {
      const int64_t lo = std::max(from, first + b * width);
      const int64_t hi = std::min(to, first + (b + 1) * width);
      if (hi <= lo) continue;
      bmax[static_cast<size_t>(b)] = std::max(bmax[static_cast<size_t>(b)], q);
      barea[static_cast<size_t>(b)] += static_cast<double>(q) * static_cast<double>(hi - lo);
    }
  }
  st.queue_mean = last > first ? area / static_cast<double>(last - first) : 0.0;
  for (int64_t b = 0; width > 0 && b < buckets && first + b * width < last; ++b) {
    series.rank.push_back(st.rank);
    series.device.push_back(st.device);
    series.stream.push_back(st.stream);
    series.begin.push_back(first + b * width);
    series.width.push_back(width);
    series.max.push_back(bmax[static_cast<size_t>(b)]);
    series.mean.push_back(barea[static_cast<size_t>(b)] / static_cast<double>(width));
  }
}

// `acts` (rows in file order) in start order, ties in file order (HTA sorts
// by ts alone); left as they are when the file holds them in that order.
void InStartOrder(const Clock& clock, std::vector<uint32_t>& acts) {
  bool sorted = true;
  for (size_t k = 1; k < acts.size() && sorted; ++k)
    sorted = clock.Start(acts[k - 1]) <= clock.Start(acts[k]);
  if (sorted) return;
  std::vector<std::pair<int64_t, uint32_t>> keyed(acts.size());
  for (size_t k = 0; k < acts.size(); ++k) keyed[k] = {clock.Start(acts[k]), acts[k]};
  StableSortRuns(keyed);
  for (size_t k = 0; k < acts.size(); ++k) acts[k] = keyed[k].second;
}

using th::sdk::Duration;
using th::sdk::Micros;

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
        .Reads({"events", "tracks", "graph_capture", "event_launches", "gpu_activity",
                "track_events", "track_order"})
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
    std::vector<LongGap> long_gaps;
    const auto max_long_gaps = static_cast<size_t>(o.max_long_gaps);
    // Kernels shorter than their launch call, by kernel name (over all ranks):
    // count, kernel ns, call ns.
    std::map<std::string, std::array<int64_t, 3>> bound;
    QueueSeries series;

    // Phases 1 and 3: per stream, its activities in start order in one pass:
    // gaps classified, launches measured, the launch queue swept.
    for (uint32_t ti = 0; ti < traces.size(); ++ti) {
      const Trace& t = traces[ti];
      if (t.capture().dominates) {
        ctx.Skip(t,
                 "the trace records CUDA/HIP graph capture: most launched kernels never ran "
                 "in it, so its streams' idle time and launch delays describe start-up");
        continue;
      }
      const Clock clock(t, o.hta_rounding);
      const int64_t cutoff = o.steps_window ? StepsCutoff(t, clock) : INT64_MAX;

      std::vector<uint8_t> is_stream(t.track_count());
      for (uint32_t k = 0; k < is_stream.size(); ++k)
        is_stream[k] = t.track(k).kind == TH_TRACK_GPU_STREAM;
      std::vector<std::vector<uint32_t>> by_track(t.track_count());
      for (uint32_t k = 0; k < by_track.size(); ++k)  // a bound: pages faulted only as written
        if (is_stream[k]) by_track[k].reserve(t.track_events(k).size());
      uint64_t launch_cursor = 0;
      for (const uint32_t i : t.gpu_activity()) {  // the GPU events only, by row
        if (!is_stream[t.track_index(i)]) continue;
        if (cutoff != INT64_MAX) {
          const uint32_t l = t.launch_of(i, launch_cursor);
          if (l == kNone || clock.Start(l) >= cutoff) continue;
        }
        by_track[t.track_index(i)].push_back(i);
      }
      std::vector<uint32_t> tracks;
      for (uint32_t k = 0; k < by_track.size(); ++k)
        if (!by_track[k].empty()) tracks.push_back(k);
      std::sort(tracks.begin(), tracks.end(), [&](uint32_t x, uint32_t y) {
        const th_track& a = t.track(x);
        const th_track& b = t.track(y);
        return std::tie(a.device, a.stream, x) < std::tie(b.device, b.stream, y);
      });
      std::unordered_map<uint32_t, std::array<int64_t, 3>> bound_by_name;  // name id ->
      std::vector<int64_t> delays, queue_starts, queue_ends;
      for (uint32_t track : tracks) {
        std::vector<uint32_t> acts = std::move(by_track[track]);
        InStartOrder(clock, acts);
        const auto s = static_cast<uint32_t>(streams.size());
        Stream st{ti, track, t.rank(), t.track(track).device, t.track(track).stream};
        st.first = clock.Start(acts.front());
        st.last = clock.End(acts.front());
        st.activities = static_cast<int64_t>(acts.size());
        st.delay_max = INT64_MIN;
        delays.clear();
        queue_starts.clear();
        queue_ends.clear();
        int64_t prev_end = 0;
        uint64_t cursor = 0;  // a stream's activities mostly come by row: the walk is forward
        for (size_t k = 0; k < acts.size(); ++k) {
          const uint32_t e = acts[k], l = t.launch_of(e, cursor);
          const int64_t start = clock.Start(e), end = clock.End(e);
          st.last = std::max(st.last, end);
          st.busy += end - start;
          st.kernels += t.kind(e) == TH_EVENT_KERNEL;
          if (l != kNone) {
            const int64_t delay = t.ts(e) - t.ts(l);
            ++st.launches;
            delays.push_back(delay);
            st.delay_sum += delay;
            st.delay_max = std::max(st.delay_max, delay);
            st.delay_outliers += delay > o.launch_delay_outlier_ns;
            st.call_sum += t.dur(l);
            st.call_outliers += t.dur(l) > o.runtime_outlier_ns;
            if (t.kind(e) == TH_EVENT_KERNEL) {
              ++st.launched_kernels;
              if (t.dur(e) < t.dur(l)) {
                ++st.shorter;
                auto& b = bound_by_name[t.name_id(e)];
                b[0] += 1;
                b[1] += t.dur(e);
                b[2] += t.dur(l);
              }
            }
            queue_starts.push_back(t.ts(l));
            queue_ends.push_back(t.end(e));
          }
          if (k > 0) {
            uint32_t category = kOther;
            if (l != kNone && clock.Start(l) > prev_end) {
              category = kHostWait;
            } else if (start - prev_end < o.kernel_wait_threshold_ns) {
              category = kKernelWait;
            }
            const int64_t len = start - prev_end;
            st.idle[category] += len;
            ++st.gaps[category];
            if (l == kNone) {
              st.no_launch_idle += len;
              ++st.no_launch_gaps;
            }
            if (len >= o.long_gap_ns && max_long_gaps > 0) {
              long_gaps.push_back({len, s, static_cast<uint32_t>(k - 1), category, prev_end, e, l});
              if (long_gaps.size() >= 2 * max_long_gaps + 1024)
                KeepLongest(long_gaps, max_long_gaps);
            }
          }
          prev_end = end;
        }
        std::vector<uint32_t>().swap(acts);
        if (st.launches > 0) {
          // Nearest-rank percentiles of the launch delays, on the host's primitive.
          const std::vector<int64_t> pct =
              ctx.SegmentedPercentiles(delays, {0, delays.size()}, {50, 99});
          st.delay_p50 = pct[0];
          st.delay_p99 = pct[1];
        }
        Queue(queue_starts, queue_ends, o, st, series);
        streams.push_back(st);
      }
      for (const auto& [name, v] : bound_by_name) {
        auto& b = bound[std::string(t.String(name))];
        for (int c = 0; c < 3; ++c) b[c] += v[c];
      }
    }
    PublishIdle(ctx, o, streams);

    // Phase 2: the longest gaps and what the launching thread did meanwhile.
    KeepLongest(long_gaps, max_long_gaps);
    std::sort(long_gaps.begin(), long_gaps.end());
    std::vector<HostActivity> host(long_gaps.size());
    for (uint32_t ti = 0; ti < traces.size(); ++ti) {
      std::vector<HostWindow> windows;
      std::vector<size_t> slot;
      for (size_t g = 0; g < long_gaps.size(); ++g) {
        const LongGap& gap = long_gaps[g];
        if (streams[gap.stream].trace != ti || gap.launch == kNone) continue;
        windows.push_back({traces[ti].track_index(gap.launch), gap.begin, gap.begin + gap.dur});
        slot.push_back(g);
      }
      if (windows.empty()) continue;
      std::vector<HostActivity> found =
          HostActivityDuring(traces[ti], windows, static_cast<size_t>(o.top_events));
      for (size_t k = 0; k < slot.size(); ++k) host[slot[k]] = std::move(found[k]);
    }
    PublishLongGaps(ctx, traces, streams, long_gaps, host);
    PublishLaunch(ctx, o, streams, bound, series);
  }

 private:
  // HTA's window: with two or more distinct ProfilerStep#N names, only
  // activities whose launch started before the last ProfilerStep#N event
  // started (any such event: HTA counts GPU-side step annotations and the
  // legacy steps of category "Operator", a cpu_op, too); INT64_MAX otherwise.
  static int64_t StepsCutoff(const Trace& t, const Clock& clock) {
    std::set<std::string_view> names;
    std::vector<uint8_t> is_step;  // per name id: 0 not looked at, 1 no, 2 yes
    int64_t last_step = INT64_MIN;
    for (uint64_t i = 0; i < t.size(); ++i) {
      const uint32_t k = t.kind(i);
      if (k != TH_EVENT_USER_ANNOTATION && k != TH_EVENT_GPU_USER_ANNOTATION &&
          k != TH_EVENT_CPU_OP)
        continue;
      const uint32_t id = t.name_id(i);
      if (id >= is_step.size()) is_step.resize(id + 1, 0);
      if (is_step[id] == 0) {
        const std::string_view name = t.String(id);
        is_step[id] = name.substr(0, 13) == "ProfilerStep#" ? 2 : 1;
        if (is_step[id] == 2) names.insert(name);
      }
      if (is_step[id] == 2) last_step = std::max(last_step, clock.Start(i));
    }
    return names.size() >= 2 ? last_step : INT64_MAX;
  }

  static void PublishLongGaps(Context& ctx, const std::vector<Trace>& traces,
                              const std::vector<Stream>& streams,
                              const std::vector<LongGap>& long_gaps,
                              const std::vector<HostActivity>& host_activity) {
    std::vector<int64_t> rank, device, stream, begin, dur, thread, busy;
    std::vector<std::string> category, next, top, top_event;
    std::vector<int64_t> top_self;
    for (size_t g = 0; g < long_gaps.size(); ++g) {
      const LongGap& gap = long_gaps[g];
      const Stream& st = streams[gap.stream];
      const Trace& t = traces[st.trace];
      const HostActivity& host = host_activity[g];
      const uint32_t l = gap.launch;
      rank.push_back(st.rank);
      device.push_back(st.device);
      stream.push_back(st.stream);
      begin.push_back(gap.begin);
      dur.push_back(gap.dur);
      category.push_back(kCategoryNames[gap.category]);
      next.push_back(std::string(t.name(gap.next)));
      thread.push_back(l != kNone ? t.track_of(l).tid : -1);
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

  static void PublishIdle(Context& ctx, const Options& o, const std::vector<Stream>& streams) {
    const size_t n = streams.size();
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
      const int64_t total = st.idle[0] + st.idle[1] + st.idle[2];
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
        part[c].push_back(st.idle[c]);
        gaps_of[c].push_back(st.gaps[c]);
        pct[c].push_back(
            total ? 100.0 * static_cast<double>(st.idle[c]) / static_cast<double>(total) : 0.0);
      }
      nl.push_back(st.no_launch_idle);
      nlc.push_back(st.no_launch_gaps);
      th::sdk::Scope scope;
      scope.rank = st.rank;
      scope.device = st.device;
      scope.stream = st.stream;
      for (int c = 0; c < 3; ++c)
        ctx.Metric(std::string("idle_") + kCategoryNames[c], static_cast<double>(st.idle[c]), "ns",
                   th::sdk::kMeasured, scope);
      const double host_span_pct = st.last > st.first ? 100.0 * static_cast<double>(st.idle[0]) /
                                                            static_cast<double>(st.last - st.first)
                                                      : 0.0;
      const int64_t on_device = device_busy[{st.rank, st.device}];
      const bool judged =
          st.kernels > 0 ||
          (on_device > 0 && 100.0 * static_cast<double>(st.busy) / static_cast<double>(on_device) >=
                                o.min_busy_share_pct);
      if (judged && st.idle[0] > 0 && host_span_pct >= o.host_wait_finding_pct) {
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
                .Evidence("host_wait", static_cast<double>(st.idle[0]), "ns", th::sdk::kMeasured)
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

  static void PublishLaunch(Context& ctx, const Options& o, const std::vector<Stream>& streams,
                            const std::map<std::string, std::array<int64_t, 3>>& bound,
                            const QueueSeries& series) {
    const size_t n = streams.size();
    std::vector<int64_t> rank, device, stream, p50, p99, mx, dsum, csum, nl, no, ro, sh, kc;
    std::vector<double> mean;
    std::vector<int64_t> qmax, qlimit;
    std::vector<double> qmean;
    std::map<int64_t, std::array<int64_t, 3>> per_rank;  // delay, call time, shorter
    for (size_t s = 0; s < n; ++s) {
      const Stream& st = streams[s];
      rank.push_back(streams[s].rank);
      device.push_back(streams[s].device);
      stream.push_back(streams[s].stream);
      nl.push_back(st.launches);
      dsum.push_back(st.delay_sum);
      mean.push_back(
          st.launches ? static_cast<double>(st.delay_sum) / static_cast<double>(st.launches) : 0.0);
      p50.push_back(st.delay_p50);
      p99.push_back(st.delay_p99);
      mx.push_back(st.launches ? st.delay_max : 0);
      csum.push_back(st.call_sum);
      no.push_back(st.delay_outliers);
      ro.push_back(st.call_outliers);
      kc.push_back(st.launched_kernels);
      sh.push_back(st.shorter);
      auto& r = per_rank[streams[s].rank];
      r[0] += st.delay_sum;
      r[1] += st.call_sum;
      r[2] += st.shorter;
      qmax.push_back(st.queue_max);
      qmean.push_back(st.queue_mean);
      qlimit.push_back(st.queue_at_limit);
      if (st.queue_at_limit > 0) {
        th::sdk::Scope scope;
        scope.rank = streams[s].rank;
        scope.device = streams[s].device;
        scope.stream = streams[s].stream;
        ctx.Add(th::sdk::Finding(th::sdk::P2, "launch queue full")
                    .What("rank " + std::to_string(streams[s].rank) + " stream " +
                          std::to_string(streams[s].stream) + " holds " +
                          std::to_string(o.queue_limit) +
                          " or more launched, unfinished "
                          "activities for " +
                          Duration(st.queue_at_limit) +
                          ": the launching thread blocks until the GPU catches up")
                    .In(scope)
                    .Evidence("time_at_queue_limit", static_cast<double>(st.queue_at_limit), "ns",
                              th::sdk::kMeasured)
                    .Evidence("max_queue", static_cast<double>(st.queue_max), "count",
                              th::sdk::kMeasured));
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
                    .Int("queue_max", qmax, "count")
                    .Real("queue_mean", qmean, "count")
                    .Int("time_at_queue_limit", qlimit, "ns"));

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
                    .Int("rank", series.rank)
                    .Int("device", series.device)
                    .Int("stream", series.stream)
                    .Int("begin", series.begin, "ns")
                    .Int("width", series.width, "ns")
                    .Int("max", series.max, "count")
                    .Real("mean", series.mean, "count"));
  }
};

}  // namespace

TH_PLUGIN(IdleLaunch)
