// stream-budget: per rank × device × stream, where the stream's span goes:
// compute, collective, memcpy/memset and idle time, which add up to the span
// exactly (overlaps on one stream are counted once, collective first, then
// compute, then memory). Per device: busy time = union of all its streams.
#include <tracehound/sdk.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace {

using th::sdk::Context;
using th::sdk::Declaration;

enum Category { kCollective = 0, kCompute = 1, kMemory = 2, kCategories = 3 };

bool IsCollective(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return lower.find("nccl") != std::string::npos || lower.find("rccl") != std::string::npos;
}

struct Interval {
  int64_t begin, end;
  Category category;
};

struct Budget {
  int64_t span = 0, busy = 0, idle = 0;
  int64_t by_category[kCategories] = {0, 0, 0};
  int64_t first = 0, last = 0;
  int64_t activities = 0;
};

// Sweeps boundaries; each elementary segment goes to the highest-priority
// category covering it (collective > compute > memory).
Budget Sweep(std::vector<Interval>& items) {
  Budget b;
  if (items.empty()) return b;
  std::vector<std::tuple<int64_t, int, Category>> edges;  // time, +1/-1, category
  edges.reserve(items.size() * 2);
  b.first = items.front().begin;
  b.last = items.front().end;
  for (const Interval& iv : items) {
    b.first = std::min(b.first, iv.begin);
    b.last = std::max(b.last, iv.end);
    if (iv.end <= iv.begin) continue;
    edges.emplace_back(iv.begin, +1, iv.category);
    edges.emplace_back(iv.end, -1, iv.category);
  }
  std::sort(edges.begin(), edges.end());
  int open[kCategories] = {0, 0, 0};
  int64_t prev = b.first;
  for (const auto& [t, delta, cat] : edges) {
    if (t > prev) {
      for (int c = 0; c < kCategories; ++c) {
        if (open[c] > 0) {
          b.by_category[c] += t - prev;
          b.busy += t - prev;
          break;
        }
      }
    }
    open[cat] += delta;
    prev = t;
  }
  b.span = b.last - b.first;
  b.idle = b.span - b.busy;
  b.activities = static_cast<int64_t>(items.size());
  return b;
}

class StreamBudget final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("stream-budget", "1.0.0", th::sdk::kAnalyzer,
                       "Per rank, device and stream: compute, collective, memcpy/memset and idle "
                       "time, adding up to the stream's span; per device busy time (union)")
        .Reads({"events"})
        .Publishes({"stream_budget", "device_busy"});
  }

  void Run(Context& ctx) override {
    std::vector<int64_t> rank_col, device_col, stream_col, span, compute, collective, memory, idle,
        activities;
    std::vector<double> busy_pct;
    std::vector<int64_t> d_rank, d_device, d_busy, d_span;
    int64_t streams = 0, balanced = 0;
    for (const auto& trace : ctx.traces()) {
      // Activities per track, and per device (device of the track).
      std::map<uint32_t, std::vector<Interval>> by_track;
      for (uint64_t i = 0; i < trace.size(); ++i) {
        if (!trace.is_gpu_activity(i)) continue;
        uint32_t kind = trace.kind(i);
        Category c = kind != TH_EVENT_KERNEL       ? kMemory
                     : IsCollective(trace.name(i)) ? kCollective
                                                   : kCompute;
        by_track[trace.track_index(i)].push_back({trace.ts(i), trace.end(i), c});
      }
      // Streams in (device, stream) order.
      std::vector<uint32_t> order;
      for (const auto& [track, items] : by_track) order.push_back(track);
      std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        const th_track& x = trace.track(a);
        const th_track& y = trace.track(b);
        return std::tie(x.device, x.stream) < std::tie(y.device, y.stream);
      });
      std::map<int64_t, std::vector<Interval>> by_device;
      for (uint32_t track : order) {
        std::vector<Interval>& items = by_track[track];
        const th_track& t = trace.track(track);
        auto& dev = by_device[t.device];
        dev.insert(dev.end(), items.begin(), items.end());
        Budget b = Sweep(items);
        ++streams;
        balanced += b.by_category[kCompute] + b.by_category[kCollective] + b.by_category[kMemory] +
                        b.idle ==
                    b.span;
        rank_col.push_back(trace.rank());
        device_col.push_back(t.device);
        stream_col.push_back(t.stream);
        span.push_back(b.span);
        compute.push_back(b.by_category[kCompute]);
        collective.push_back(b.by_category[kCollective]);
        memory.push_back(b.by_category[kMemory]);
        idle.push_back(b.idle);
        activities.push_back(b.activities);
        busy_pct.push_back(
            b.span ? 100.0 * static_cast<double>(b.busy) / static_cast<double>(b.span) : 0);
      }
      for (auto& [device, items] : by_device) {
        Budget b = Sweep(items);
        d_rank.push_back(trace.rank());
        d_device.push_back(device);
        d_busy.push_back(b.busy);
        d_span.push_back(b.span);
        th::sdk::Scope scope;
        scope.rank = trace.rank();
        scope.device = device;
        ctx.Metric("device_busy", static_cast<double>(b.busy), "ns", th::sdk::kMeasured, scope);
        ctx.Metric("device_span", static_cast<double>(b.span), "ns", th::sdk::kMeasured, scope);
      }
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
    ctx.Publish(th::sdk::Table("device_busy")
                    .Int("rank", d_rank)
                    .Int("device", d_device)
                    .Int("busy", d_busy, "ns")
                    .Int("span", d_span, "ns"));
    // Reconciliation: every stream's parts must add up to its span.
    ctx.Check("stream budget adds up to the span", balanced == streams,
              std::to_string(balanced) + " of " + std::to_string(streams) +
                  " streams: compute + collective + memory + idle = span");
    ctx.Metric("streams", static_cast<double>(streams), "count", th::sdk::kMeasured);
    ctx.Metric("streams_reconciled", static_cast<double>(balanced), "count", th::sdk::kMeasured);
    if (balanced != streams) {
      ctx.Add(th::sdk::Finding(th::sdk::P2, "stream budget does not add up")
                  .What(std::to_string(streams - balanced) + " of " + std::to_string(streams) +
                        " streams have compute + collective + memory + idle != span")
                  .Evidence("streams_unbalanced", static_cast<double>(streams - balanced), "count",
                            th::sdk::kMeasured));
    }
  }
};

}  // namespace

TH_PLUGIN(StreamBudget)
