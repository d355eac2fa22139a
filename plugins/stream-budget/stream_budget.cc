// stream-budget: per rank × device × stream, where the stream's span goes:
// compute, collective, memory and idle time, which add up to the span exactly
// (overlaps on one stream are counted once, collective first, then compute,
// then memory). The parts are the host's kernel classes: COMM activities are
// collective, COMP compute, MEM memory. Per device: busy time = union of all
// its streams.
#include <tracehound/sdk.h>
#include <tracehound/time_order.h>

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using th::sdk::Context;
using th::sdk::Declaration;

using th::sdk::KernelClass;

// The tables it publishes.
th::sdk::Schema StreamBudgetTable() {
  return th::sdk::Schema("stream_budget")
      .Int("rank")
      .Int("device")
      .Int("stream")
      .Int("span", "ns")
      .Int("compute", "ns")
      .Int("collective", "ns")
      .Int("memory", "ns")
      .Int("idle", "ns")
      .Int("activities", "count")
      .Real("busy", "%");
}
th::sdk::Schema DeviceBusyTable() {
  return th::sdk::Schema("device_busy")
      .Int("rank")
      .Int("device")
      .Int("busy", "ns")
      .Int("span", "ns");
}

constexpr uint32_t kNoStream = 0xffffffffu;

// First start, last end and count of intervals.
struct Extent {
  int64_t first = std::numeric_limits<int64_t>::max();
  int64_t last = std::numeric_limits<int64_t>::min();
  int64_t activities = 0;
  void Extend(int64_t b, int64_t e) {
    first = std::min(first, b);
    last = std::max(last, e);
    ++activities;
  }
};

// A stream's row, its trace and its unions (U1, U2, U3).
struct Stream : Extent {
  int64_t rank, device, stream;
  uint32_t trace;
  th::sdk::UnionCover collective, collective_or_compute, all;
  Stream(int64_t r, int64_t d, int64_t s, uint32_t t) : rank(r), device(d), stream(s), trace(t) {}
};

// A device's busy time, and its streams' activity lists while it is swept
// (list id: the stream's row).
struct Device : Extent {
  int64_t busy = 0;
  std::vector<th::sdk::StartList> lists;
};

class StreamBudget final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("stream-budget", "1.0.0", th::sdk::kAnalyzer,
                       "Per rank, device and stream: compute, collective and memory time by "
                       "kernel class, and idle time, adding up to the stream's span; per device "
                       "busy time (union)")
        .Reads({"events", "tracks", "name_classes", "class_rules", "gpu_args", "track_events",
                "track_order"})
        .Publishes(StreamBudgetTable())
        .Publishes(DeviceBusyTable());
  }

  void Run(Context& ctx) override {
    // One row per stream (rank, track) and per device (rank, device). With
    // the unions
    //   U1 = collective, U2 = collective + compute, U3 = everything,
    // a stream's collective time is |U1|, compute |U2| - |U1|, memory
    // |U3| - |U2| and idle span - |U3|: overlaps counted once, in that order.
    // Each device's activities are swept once by start (each stream's in
    // order, the streams merged), feeding the stream's and the device's unions.
    std::vector<Stream> streams;
    std::map<std::pair<int64_t, int64_t>, Device> devices;  // by (rank, device)
    std::vector<th::sdk::TrackRows> by_track;               // per trace: its activities
    const auto& traces = ctx.traces();
    for (uint32_t g = 0; g < traces.size(); ++g) {
      const th::sdk::Trace& trace = traces[g];
      // Streams in (device, stream) order, so rows come out sorted.
      std::vector<uint32_t> gpu_tracks;
      for (uint32_t t = 0; t < trace.track_count(); ++t)
        if (trace.track(t).kind == TH_TRACK_GPU_STREAM) gpu_tracks.push_back(t);
      std::sort(gpu_tracks.begin(), gpu_tracks.end(), [&](uint32_t a, uint32_t b) {
        return std::tie(trace.track(a).device, trace.track(a).stream) <
               std::tie(trace.track(b).device, trace.track(b).stream);
      });
      std::vector<uint32_t> stream_of(trace.track_count(), kNoStream);  // per track: its row
      for (uint32_t t : gpu_tracks) {
        stream_of[t] = static_cast<uint32_t>(streams.size());
        streams.emplace_back(trace.rank(), trace.track(t).device, trace.track(t).stream, g);
      }
      for (uint64_t r = 0; r < trace.gpu_rows(); ++r) {  // activities: on streams only
        const uint32_t i = trace.gpu_event(r);
        if (trace.is_gpu_activity(i) && stream_of[trace.track_index(i)] == kNoStream)
          throw std::out_of_range("GPU activity on track " + std::to_string(trace.track_index(i)) +
                                  ", which is no GPU stream");
      }
      // Each stream's activities by start, as the trace orders its tracks.
      const auto tracks = static_cast<uint32_t>(trace.track_count());
      by_track.push_back(th::sdk::KeepInTrackOrder(
          tracks,
          [&](uint32_t t) {
            return stream_of[t] != kNoStream ? trace.track_events(t)
                                             : th::sdk::Trace::TrackEvents{};
          },
          [&](uint32_t i) { return trace.is_gpu_activity(i); }));
      for (size_t k = 0; k < by_track[g].lists(); ++k) {
        const uint32_t t = by_track[g].track[k];
        devices[{trace.rank(), streams[stream_of[t]].device}].lists.push_back(
            {by_track[g].Of(k), stream_of[t]});
      }
    }
    for (auto& [key, device] : devices) {
      th::sdk::UnionCover busy;
      th::sdk::MergeByStart(
          device.lists, [&](uint32_t s, uint32_t i) { return traces[streams[s].trace].ts(i); },
          [&](uint32_t row, uint32_t i) {
            Stream& s = streams[row];
            const th::sdk::Trace& trace = traces[s.trace];
            const int64_t b = trace.ts(i), e = trace.end(i);
            const KernelClass c = trace.kernel_class(i);
            if (c == KernelClass::kComm) s.collective.Add(b, e);
            if (c == KernelClass::kComm || c == KernelClass::kComp)
              s.collective_or_compute.Add(b, e);
            s.all.Add(b, e);
            s.Extend(b, e);
            busy.Add(b, e);
            device.Extend(b, e);
          });
      device.busy = busy.total;
      device.lists.clear();
    }
    by_track.clear();
    const size_t n = streams.size();
    std::vector<int64_t> rank_col, device_col, stream_col, span, compute, collective, memory, idle,
        activities;
    std::vector<double> busy_pct;
    int64_t balanced = 0;
    for (size_t s = 0; s < n; ++s) {
      const Stream& st = streams[s];
      const int64_t u1 = st.collective.total, u2 = st.collective_or_compute.total,
                    u3 = st.all.total;
      int64_t sp = st.activities ? st.last - st.first : 0;
      int64_t coll = u1, comp = u2 - u1, mem = u3 - u2, id = sp - u3;
      balanced += coll >= 0 && comp >= 0 && mem >= 0 && id >= 0 && coll + comp + mem + id == sp;
      rank_col.push_back(streams[s].rank);
      device_col.push_back(streams[s].device);
      stream_col.push_back(streams[s].stream);
      span.push_back(sp);
      compute.push_back(comp);
      collective.push_back(coll);
      memory.push_back(mem);
      idle.push_back(id);
      activities.push_back(st.activities);
      busy_pct.push_back(sp ? 100.0 * static_cast<double>(u3) / static_cast<double>(sp) : 0);
    }
    ctx.Publish(th::sdk::Table("stream_budget")
                    .Int("rank", rank_col)
                    .Int("device", device_col)
                    .Int("stream", stream_col)
                    .Int("span", span, "ns")
                    .Int("compute", compute, "ns")
                    .Int("collective", collective, "ns")
                    .Int("memory", memory, "ns")
                    .Int("idle", idle, "ns")
                    .Int("activities", activities, "count")
                    .Real("busy", busy_pct, "%"));

    // Devices: busy = union over all the device's streams.
    std::vector<int64_t> d_rank_col, d_device_col, d_busy_col, d_span_col;
    for (const auto& [key, d] : devices) {  // (rank, device) order
      int64_t sp = d.last - d.first;
      d_rank_col.push_back(key.first);
      d_device_col.push_back(key.second);
      d_busy_col.push_back(d.busy);
      d_span_col.push_back(sp);
      th::sdk::Scope scope;
      scope.rank = key.first;
      scope.device = key.second;
      ctx.Metric("device_busy", static_cast<double>(d.busy), "ns", th::sdk::kMeasured, scope);
      ctx.Metric("device_span", static_cast<double>(sp), "ns", th::sdk::kMeasured, scope);
    }
    ctx.Publish(th::sdk::Table("device_busy")
                    .Int("rank", d_rank_col)
                    .Int("device", d_device_col)
                    .Int("busy", d_busy_col, "ns")
                    .Int("span", d_span_col, "ns"));

    // Reconciliation: every stream's parts must add up to its span.
    const auto total = static_cast<int64_t>(n);
    ctx.Check("stream budget adds up to the span", balanced == total,
              std::to_string(balanced) + " of " + std::to_string(total) +
                  " streams: compute + collective + memory + idle = span");
    ctx.Metric("streams", static_cast<double>(total), "count", th::sdk::kMeasured);
    ctx.Metric("streams_reconciled", static_cast<double>(balanced), "count", th::sdk::kMeasured);
    if (balanced != total) {
      ctx.Add(th::sdk::Finding(th::sdk::P2, "stream budget does not add up")
                  .What(std::to_string(total - balanced) + " of " + std::to_string(total) +
                        " streams have compute + collective + memory + idle != span")
                  .Evidence("streams_unbalanced", static_cast<double>(total - balanced), "count",
                            th::sdk::kMeasured));
    }
  }
};

}  // namespace

TH_PLUGIN(StreamBudget)
