// stream-budget: per rank × device × stream, where the stream's span goes:
// compute, collective, memory and idle time, which add up to the span exactly
// (overlaps on one stream are counted once, collective first, then compute,
// then memory). The parts are the host's kernel classes: COMM activities are
// collective, COMP compute, MEM memory. Per device: busy time = union of all
// its streams.
#include <tracehound/sdk.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
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

class StreamBudget final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("stream-budget", "1.0.0", th::sdk::kAnalyzer,
                       "Per rank, device and stream: compute, collective and memory time by "
                       "kernel class, and idle time, adding up to the stream's span; per device "
                       "busy time (union)")
        .Reads({"events", "tracks", "name_classes", "class_rules"})
        .Publishes(StreamBudgetTable())
        .Publishes(DeviceBusyTable());
  }

  void Run(Context& ctx) override {
    // One group per stream (rank, track) and per device (rank, device); one
    // row per GPU activity. With the unions
    //   U1 = collective, U2 = collective + compute, U3 = everything,
    // a stream's collective time is |U1|, compute |U2| - |U1|, memory
    // |U3| - |U2| and idle span - |U3|: overlaps counted once, in that order.
    struct Stream {
      int64_t rank, device, stream;
    };
    std::vector<Stream> streams;
    std::map<std::pair<int64_t, int64_t>, uint32_t> device_group;  // (rank, device) -> id
    std::vector<uint32_t> s_all, s_cc, s_c, d_all;
    std::vector<int64_t> b_all, e_all, b_cc, e_cc, b_c, e_c;
    for (const auto& trace : ctx.traces()) {
      std::map<uint32_t, uint32_t> stream_of_track;
      // Streams in (device, stream) order, so rows come out sorted.
      std::vector<uint32_t> gpu_tracks;
      for (uint32_t t = 0; t < trace.track_count(); ++t)
        if (trace.track(t).kind == TH_TRACK_GPU_STREAM) gpu_tracks.push_back(t);
      std::sort(gpu_tracks.begin(), gpu_tracks.end(), [&](uint32_t a, uint32_t b) {
        return std::tie(trace.track(a).device, trace.track(a).stream) <
               std::tie(trace.track(b).device, trace.track(b).stream);
      });
      for (uint32_t t : gpu_tracks) {
        stream_of_track[t] = static_cast<uint32_t>(streams.size());
        streams.push_back({trace.rank(), trace.track(t).device, trace.track(t).stream});
      }
      for (uint64_t i = 0; i < trace.size(); ++i) {
        if (!trace.is_gpu_activity(i)) continue;
        uint32_t s = stream_of_track.at(trace.track_index(i));
        auto [dev, fresh] = device_group.try_emplace({trace.rank(), streams[s].device},
                                                     static_cast<uint32_t>(device_group.size()));
        int64_t b = trace.ts(i), e = trace.end(i);
        s_all.push_back(s);
        d_all.push_back(dev->second);
        b_all.push_back(b);
        e_all.push_back(e);
        const KernelClass c = trace.kernel_class(i);
        if (c == KernelClass::kComm || c == KernelClass::kComp) {
          s_cc.push_back(s);
          b_cc.push_back(b);
          e_cc.push_back(e);
          if (c == KernelClass::kComm) {
            s_c.push_back(s);
            b_c.push_back(b);
            e_c.push_back(e);
          }
        }
      }
    }
    const size_t n = streams.size();
    using R = Context::Reduce;
    std::vector<int64_t> u1 = ctx.IntervalUnion(s_c, b_c, e_c, n);
    std::vector<int64_t> u2 = ctx.IntervalUnion(s_cc, b_cc, e_cc, n);
    std::vector<int64_t> u3 = ctx.IntervalUnion(s_all, b_all, e_all, n);
    std::vector<int64_t> first = ctx.ReduceByKey(s_all, b_all, R::kMin, n);
    std::vector<int64_t> last = ctx.ReduceByKey(s_all, e_all, R::kMax, n);
    std::vector<int64_t> activities = ctx.ReduceByKey(s_all, b_all, R::kCount, n);

    std::vector<int64_t> rank_col, device_col, stream_col, span, compute, collective, memory, idle;
    std::vector<double> busy_pct;
    int64_t balanced = 0;
    for (size_t s = 0; s < n; ++s) {
      int64_t sp = activities[s] ? last[s] - first[s] : 0;
      int64_t coll = u1[s], comp = u2[s] - u1[s], mem = u3[s] - u2[s], id = sp - u3[s];
      balanced += coll >= 0 && comp >= 0 && mem >= 0 && id >= 0 && coll + comp + mem + id == sp;
      rank_col.push_back(streams[s].rank);
      device_col.push_back(streams[s].device);
      stream_col.push_back(streams[s].stream);
      span.push_back(sp);
      compute.push_back(comp);
      collective.push_back(coll);
      memory.push_back(mem);
      idle.push_back(id);
      busy_pct.push_back(sp ? 100.0 * static_cast<double>(u3[s]) / static_cast<double>(sp) : 0);
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
    const size_t devices = device_group.size();
    std::vector<int64_t> d_busy = ctx.IntervalUnion(d_all, b_all, e_all, devices);
    std::vector<int64_t> d_first = ctx.ReduceByKey(d_all, b_all, R::kMin, devices);
    std::vector<int64_t> d_last = ctx.ReduceByKey(d_all, e_all, R::kMax, devices);
    std::vector<int64_t> d_rank_col, d_device_col, d_busy_col, d_span_col;
    for (const auto& [key, g] : device_group) {  // (rank, device) order
      int64_t sp = d_last[g] - d_first[g];
      d_rank_col.push_back(key.first);
      d_device_col.push_back(key.second);
      d_busy_col.push_back(d_busy[g]);
      d_span_col.push_back(sp);
      th::sdk::Scope scope;
      scope.rank = key.first;
      scope.device = key.second;
      ctx.Metric("device_busy", static_cast<double>(d_busy[g]), "ns", th::sdk::kMeasured, scope);
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
