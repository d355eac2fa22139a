#include "step_breakdown_phases.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace th::step_breakdown {

Category CpuCategory(std::string_view name) {
  if (name.starts_with("ProfilerStep#")) return kNoCategory;
  if (name.starts_with("nccl:") || name.starts_with("gloo:")) return kCommunication;
  if ((name.starts_with("enumerate(DataLoader)#") && name.ends_with(".__next__")) ||
      name.starts_with("enumerate(DataPipe)#"))
    return kDataLoader;
  return kCpuExec;
}

StepUnions::StepUnions(const std::vector<StepRow>& steps, std::vector<uint32_t> rows)
    : steps_(steps), rows_(std::move(rows)), unions_(rows_.size()) {
  span_begin_ = std::numeric_limits<int64_t>::max();
  span_end_ = std::numeric_limits<int64_t>::min();
  for (uint32_t r : rows_) {
    longest_ = std::max(longest_, steps[r].dur);
    span_begin_ = std::min(span_begin_, steps[r].ts);
    span_end_ = std::max(span_end_, steps[r].ts + steps[r].dur);
  }
}

void StepUnions::Add(const StepEvent& ev) {
  // Begins never decrease: a step that ends (at the latest, start + longest)
  // before this event does before every later one.
  while (first_open_ < rows_.size() && steps_[rows_[first_open_]].ts + longest_ <= ev.b)
    ++first_open_;
  for (size_t k = first_open_; k < rows_.size(); ++k) {
    const StepRow& s = steps_[rows_[k]];
    if (s.ts >= ev.e) break;
    const int64_t cb = std::max(ev.b, s.ts), ce = std::min(ev.e, s.ts + s.dur);
    if (ce <= cb) continue;
    Unions& u = unions_[k];
    if (ev.category != kNoCategory)
      for (size_t j = ev.category; j < kCategories; ++j) u.cumulative[j].Add(cb, ce);
    if (ev.gpu_row) u.gpu.Add(cb, ce);
    if (ev.compute) u.comp.Add(cb, ce);
  }
}

std::array<int64_t, kCategories> StepUnions::Cumulative(size_t k) const {
  std::array<int64_t, kCategories> c{};
  for (size_t j = 0; j < kCategories; ++j) c[j] = unions_[k].cumulative[j].total;
  return c;
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
