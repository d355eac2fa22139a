// The three counters the PyTorch profiler plugin derives per GPU from its
// kernels, per pixel bucket of a window (serve_counters.h says what each
// means): utilisation from the union of the kernels, estimated SM efficiency
// from min(blocks, SMs) / SMs, estimated achieved occupancy from the kernels'
// "est. achieved occupancy %". Integrals over a bucket come from prefix sums
// (OverlapIntegral): exact in integers for the first two.
#pragma once

#include <cstdint>
#include <vector>

#include "core/serve/lod_levels.h"
#include "core/serve/overlap_integral.h"
#include "core/serve/serve_run.h"

namespace th::serve {

enum class GpuCounter : uint8_t { kUtilisation, kSmEfficiency, kOccupancy };

struct CounterBucket {
  int64_t px = 0;
  double min = 0, max = 0, last = 0;
};

struct GpuCounterData {
  int32_t device = -1;
  int num_sms = 0;                                  // 0: the trace gives no SM count for the device
  int64_t kernels = 0;                              // kernels on the device
  int64_t with_occupancy = 0;                       // of those, carrying an estimated occupancy
  OverlapIntegral<int64_t, Int128> busy;            // merged kernel intervals, weight 1
  OverlapIntegral<int64_t, Int128> sm_blocks;       // weight min(blocks, SMs)
  OverlapIntegral<double, long double> occupancy;   // weight the occupancy %
  OverlapIntegral<int64_t, Int128> occupancy_time;  // weight 1, kernels with an occupancy
};

// One entry per device with kernels, by device; times relative to the run.
std::vector<GpuCounterData> BuildGpuCounters(const ServeRun& run);

// The smallest t with floor((t - t0) · width / (t1 - t0)) >= b.
int64_t BucketStart(int64_t t0, int64_t t1, int64_t width, int64_t b);

// Buckets 0..width-1 of [t0, t1) that have a value (utilisation and SM
// efficiency as %, occupancy as %; occupancy only where such kernels ran).
std::vector<CounterBucket> GpuCounterBuckets(const GpuCounterData& gpu, GpuCounter what, int64_t t0,
                                             int64_t t1, int64_t width);

}  // namespace th::serve
