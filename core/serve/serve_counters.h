// Counter lanes of one run: the series the viewer draws as step/area charts
// instead of boxes, and their per-pixel values for a window.
//
// Series (each a "counter track", numbered from 0 in this order):
// - sampled, measured: every Chrome `C` counter series (per track, event name
//   and args key) and the allocator's "[memory]" totals (Total Allocated,
//   Total Reserved, per device); values change at the events' times.
// - derived, per GPU with kernels: GPU utilisation (the busy fraction of the
//   bucket covered by the union of the GPU's kernels; measured), estimated SM
//   efficiency (Σ over kernels of min(blocks / SMs, 1) · the kernel's time in
//   the bucket, ÷ the bucket's length; inferred; needs the device's SM count)
//   and estimated achieved occupancy (the kernels' "est. achieved occupancy %"
//   weighted by their time in the bucket, over the kernels that carry it;
//   inferred). A series the trace lacks the data for is listed with
//   `unavailable` saying what is missing, and answers no buckets.
//
// Buckets are the flows' pixels: bucket b holds times t with
// floor((t - t0) · width / (t1 - t0)) = b. For a sampled series a bucket is
// sent when an event falls in it: min, max and last of those events' values,
// exactly; `before` is the last value before t0. For a derived series every
// bucket with a value is sent, min = max = last = that value.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/serve/serve_gpu_counters.h"
#include "core/serve/serve_run.h"

namespace th::serve {

struct CounterTrack {
  std::string name, unit;          // unit: "bytes", "%", "" (the trace's own)
  std::vector<std::string> group;  // sections, as meta's tracks
  bool derived = false;            // false: sampled from events
  bool inferred = false;           // the value is an estimate
  std::string unavailable;         // why there is no data ("" when there is)
  int64_t samples = 0;             // events (sampled) or kernels (derived)
};

struct CounterAnswer {
  std::optional<double> before;  // sampled: the last value before t0
  std::vector<CounterBucket> buckets;
};

class CounterIndex {
 public:
  explicit CounterIndex(const ServeRun& run);
  ~CounterIndex();
  const std::vector<CounterTrack>& tracks() const { return tracks_; }
  // `track` < tracks().size(), t1 > t0 (relative), width >= 1.
  CounterAnswer Query(size_t track, int64_t t0, int64_t t1, int64_t width) const;

  struct Sampled;

 private:
  std::vector<CounterTrack> tracks_;
  std::vector<std::unique_ptr<Sampled>> sampled_;  // per track, null when derived
  std::vector<GpuCounterData> gpus_;
  std::vector<std::pair<size_t, GpuCounter>> derived_;  // per track: (gpus_ index, which)
};

std::string CounterTracksJson(const CounterIndex& index);
std::string CounterJson(const CounterIndex& index, size_t track, const CounterAnswer& answer);

}  // namespace th::serve
