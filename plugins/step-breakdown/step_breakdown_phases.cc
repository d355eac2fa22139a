#include "step_breakdown_phases.h"

#include <algorithm>
#include <limits>

namespace th::step_breakdown {

Category CpuCategory(std::string_view name) {
  if (name.starts_with("ProfilerStep#")) return kNoCategory;
  if (name.starts_with("nccl:") || name.starts_with("gloo:")) return kCommunication;
  if ((name.starts_with("enumerate(DataLoader)#") && name.ends_with(".__next__")) ||
      name.starts_with("enumerate(DataPipe)#"))
    return kDataLoader;
  return kCpuExec;
}

void Intervals::Add(uint32_t g, int64_t b, int64_t e) {
  group.push_back(g);
  begin.push_back(b);
  end.push_back(e);
}

void Intervals::Append(const Intervals& o) {
  group.insert(group.end(), o.group.begin(), o.group.end());
  begin.insert(begin.end(), o.begin.begin(), o.begin.end());
  end.insert(end.end(), o.end.begin(), o.end.end());
}

void ClipToSteps(const std::vector<StepRow>& steps, const std::vector<uint32_t>& rows,
                 const std::vector<StepEvent>& events, StepClips& clips) {
  std::vector<int64_t> starts;
  int64_t longest = 0;
  for (uint32_t r : rows) {
    starts.push_back(steps[r].ts);
    longest = std::max(longest, steps[r].dur);
  }
  for (const StepEvent& ev : events) {
    // Steps overlapping [b, e): walk back from the last one starting before e.
    auto it = std::lower_bound(starts.begin(), starts.end(), ev.e);
    for (auto k = static_cast<size_t>(it - starts.begin()); k-- > 0;) {
      const StepRow& s = steps[rows[k]];
      if (s.ts + longest <= ev.b) break;
      const int64_t cb = std::max(ev.b, s.ts), ce = std::min(ev.e, s.ts + s.dur);
      if (ce <= cb) continue;
      if (ev.category != kNoCategory) clips.bucket[ev.category].Add(rows[k], cb, ce);
      if (ev.gpu_row) clips.gpu.Add(rows[k], cb, ce);
      if (ev.compute) clips.comp.Add(rows[k], cb, ce);
    }
  }
}

std::array<int64_t, kParts> SplitStep(int64_t dur,
                                      const std::array<int64_t, kCategories>& cumulative,
                                      int64_t busy, int64_t computing) {
  std::array<int64_t, kParts> v{};
  int64_t prev = 0;
  for (size_t j = 0; j < kCategories; ++j) {
    v[j] = cumulative[j] - prev;
    prev = cumulative[j];
  }
  v[kCategories] = dur - prev;
  v[kCategories + 1] = dur - busy;        // idle
  v[kCategories + 2] = computing;         // compute
  v[kCategories + 3] = busy - computing;  // non-compute
  return v;
}

bool AddsUp(const std::array<int64_t, kParts>& parts, int64_t dur) {
  int64_t sum = 0;
  bool nonnegative = true;
  for (size_t j = 0; j <= kCategories; ++j) {
    sum += parts[j];
    nonnegative = nonnegative && parts[j] >= 0;
  }
  return nonnegative && sum == dur;
}

PartSummary SummarizePart(const std::vector<int64_t>& ns, const std::vector<double>* pct,
                          const std::vector<size_t>& idx) {
  int64_t sum = 0, lo = std::numeric_limits<int64_t>::max(), hi = 0;
  double psum = 0, plo = 1e300, phi = -1e300;
  for (size_t k : idx) {
    sum += ns[k];
    lo = std::min(lo, ns[k]);
    hi = std::max(hi, ns[k]);
    double p = pct ? (*pct)[k] : 100.0;
    psum += p;
    plo = std::min(plo, p);
    phi = std::max(phi, p);
  }
  const auto cnt = static_cast<int64_t>(idx.size());
  return {cnt, sum / cnt, lo, hi, psum / static_cast<double>(cnt), plo, phi};
}

std::array<int64_t, 7> KernelTypeRegions(int64_t a, int64_t b, int64_t c, int64_t ab, int64_t ac,
                                         int64_t bc, int64_t abc) {
  std::array<int64_t, 7> r = {abc - bc,          abc - ac,          abc - ab, ac + bc - c - abc,
                              ab + bc - b - abc, ab + ac - a - abc, 0};
  int64_t others = 0;
  for (size_t k = 0; k < 6; ++k) others += r[k];
  r[6] = abc - others;
  return r;
}

}  // namespace th::step_breakdown
