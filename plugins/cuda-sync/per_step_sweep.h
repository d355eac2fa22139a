// PerStepSweep: the blocked time and blocking calls of each host step of one
// rank, without visiting every step for every call.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace th::cuda_sync {

// A step of one rank on the host: the `steps` plugin's window (ProfilerStep#N,
// or a step it inferred where the trace has none).
struct StepWindow {
  int64_t number, ts, dur;
};

// Blocked time and calls per step of one rank; `steps` sorted by start (they
// may overlap or nest): a call adds its overlap with each step, and counts in
// each step its start lies in. A call visits only the steps from the first whose end,
// or an earlier step's, passes the call's start, to the last that starts
// before the call ends.
class PerStepSweep {
 public:
  explicit PerStepSweep(const std::vector<StepWindow>& steps)
      : blocked_(steps.size(), 0), calls_(steps.size(), 0) {
    int64_t reach = INT64_MIN;
    for (const StepWindow& s : steps) {
      windows_.emplace_back(s.ts, s.ts + s.dur);
      starts_.push_back(s.ts);
      reach = std::max(reach, s.ts + s.dur);
      reach_.push_back(reach);
    }
  }

  // A blocking call on the host, [ts, end).
  void Add(int64_t ts, int64_t end) {
    const size_t lo = std::upper_bound(reach_.begin(), reach_.end(), ts) - reach_.begin();
    const size_t hi =
        std::lower_bound(starts_.begin(), starts_.end(), std::max(end, ts + 1)) - starts_.begin();
    for (size_t s = lo; s < hi; ++s) {
      const int64_t o = std::min(end, windows_[s].second) - std::max(ts, windows_[s].first);
      blocked_[s] += std::max<int64_t>(o, 0);
      calls_[s] += ts >= windows_[s].first && ts < windows_[s].second;
    }
  }

  const std::vector<std::pair<int64_t, int64_t>>& windows() const { return windows_; }
  const std::vector<int64_t>& blocked() const { return blocked_; }
  const std::vector<int64_t>& calls() const { return calls_; }

 private:
  std::vector<std::pair<int64_t, int64_t>> windows_;
  std::vector<int64_t> starts_, reach_;  // reach: the latest end of this step and those before
  std::vector<int64_t> blocked_, calls_;
};

}  // namespace th::cuda_sync
