#include "core/serve/serve_gpu_counters.h"

#include <algorithm>
#include <map>
#include <optional>

namespace th::serve {

std::vector<GpuCounterData> BuildGpuCounters(const ServeRun& run) {
  const EventGraph& g = run.graph();
  struct Kernels {
    std::vector<OverlapIntegral<int64_t, Int128>::Interval> all, sm, occ_time;
    std::vector<OverlapIntegral<double, long double>::Interval> occ;
  };
  std::map<int32_t, Kernels> by_device;
  std::map<int32_t, int> sms;
  for (const DeviceInfo& d : run.trace().info.devices)
    if (d.num_sms > 0) sms[static_cast<int32_t>(d.id)] = d.num_sms;
  const GpuArgsTable& a = g.gpu_args;
  for (size_t r = 0; r < a.size(); ++r) {
    const EventId e = a.event[r];
    if (g.events.kind[e] != EventKind::kKernel || a.device[r] < 0) continue;
    const int64_t s = run.Relative(g.events.ts[e]);
    const int64_t end = run.Relative(g.events.ts[e] + std::max<int64_t>(0, g.events.dur[e]));
    Kernels& k = by_device[a.device[r]];
    k.all.push_back({s, end, 1});
    const auto it = sms.find(a.device[r]);
    if (it != sms.end()) {
      const int64_t blocks = int64_t{a.grid[0][r]} * a.grid[1][r] * a.grid[2][r];
      k.sm.push_back({s, end, std::clamp<int64_t>(blocks, 0, it->second)});
    }
    if (a.occupancy[r] >= 0) {
      k.occ.push_back({s, end, static_cast<double>(a.occupancy[r])});
      k.occ_time.push_back({s, end, 1});
    }
  }
  std::vector<GpuCounterData> out;
  for (auto& [device, k] : by_device) {
    GpuCounterData d;
    d.device = device;
    const auto it = sms.find(device);
    d.num_sms = it == sms.end() ? 0 : it->second;
    d.kernels = static_cast<int64_t>(k.all.size());
    d.with_occupancy = static_cast<int64_t>(k.occ.size());
    // The union: merged intervals.
    std::sort(k.all.begin(), k.all.end(),
              [](const auto& x, const auto& y) { return x.start < y.start; });
    std::vector<OverlapIntegral<int64_t, Int128>::Interval> merged;
    for (const auto& i : k.all) {
      if (!merged.empty() && i.start <= merged.back().end)
        merged.back().end = std::max(merged.back().end, i.end);
      else
        merged.push_back(i);
    }
    d.busy = OverlapIntegral<int64_t, Int128>(std::move(merged));
    d.sm_blocks = OverlapIntegral<int64_t, Int128>(std::move(k.sm));
    d.occupancy = OverlapIntegral<double, long double>(std::move(k.occ));
    d.occupancy_time = OverlapIntegral<int64_t, Int128>(std::move(k.occ_time));
    out.push_back(std::move(d));
  }
  return out;
}

int64_t BucketStart(int64_t t0, int64_t t1, int64_t width, int64_t b) {
  const Int128 span = static_cast<Int128>(t1) - t0;
  const Int128 num = static_cast<Int128>(b) * span;
  return static_cast<int64_t>(t0 + (num + width - 1) / width);
}

std::vector<CounterBucket> GpuCounterBuckets(const GpuCounterData& gpu, GpuCounter what, int64_t t0,
                                             int64_t t1, int64_t width) {
  std::vector<CounterBucket> out;
  int64_t a = BucketStart(t0, t1, width, 0);
  for (int64_t b = 0; b < width; ++b) {
    const int64_t e = BucketStart(t0, t1, width, b + 1);
    if (e <= a) continue;  // a bucket narrower than a nanosecond holds no time
    const long double len = static_cast<long double>(static_cast<Int128>(e) - a);
    std::optional<long double> v;
    if (what == GpuCounter::kUtilisation) {
      v = static_cast<long double>(gpu.busy.Over(a, e)) * 100 / len;
    } else if (what == GpuCounter::kSmEfficiency) {
      v = static_cast<long double>(gpu.sm_blocks.Over(a, e)) * 100 / (len * gpu.num_sms);
    } else {
      const Int128 time = gpu.occupancy_time.Over(a, e);
      if (time > 0) v = gpu.occupancy.Over(a, e) / static_cast<long double>(time);
    }
    if (v) {
      const double pct = static_cast<double>(*v);
      out.push_back({b, pct, pct, pct});
    }
    a = e;
  }
  return out;
}

}  // namespace th::serve
