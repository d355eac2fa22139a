// The attribution level: the change of the mean step time split over the
// step-breakdown categories, so that Δ step = Σ Δ category to the nanosecond.
//
// Per side, over the kept steps with a step_breakdown row: the mean step
// time is round(Σ dur / n) and the categories' means are their totals / n,
// floored, plus 1 ns for the categories with the largest remainders until
// they add up to the mean step time (the categories of every step add up to
// its duration, so they do exactly). Contributors are ordered by |Δ|
// descending, then category order. Header-only.
#ifndef TRACEHOUND_DIFF_DIFF_ATTRIBUTION_H_
#define TRACEHOUND_DIFF_DIFF_ATTRIBUTION_H_

#include <tracehound/diff/diff_aggregate.h>
#include <tracehound/diff/diff_profile.h>
#include <tracehound/diff/diff_types.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <utility>
#include <vector>

namespace th::diff {

// Means of one side: [0] is the step, then the categories.
inline std::vector<int64_t> CategoryMeans(const Profile& p) {
  std::vector<int64_t> total(kCategoryCount + 1, 0);
  int64_t n = 0;
  for (const ProfileStep& s : p.steps) {
    if (!s.has_categories) continue;
    ++n;
    total[0] += s.dur;
    for (size_t c = 0; c < kCategoryCount; ++c) total[c + 1] += s.categories[c];
  }
  std::vector<int64_t> mean(kCategoryCount + 1, 0);
  if (n == 0) return mean;
  mean[0] = DivRound(total[0], n);
  std::vector<std::pair<int64_t, size_t>> remainder;
  int64_t floors = 0;
  for (size_t c = 1; c <= kCategoryCount; ++c) {
    mean[c] = total[c] / n;
    floors += mean[c];
    remainder.emplace_back(total[c] % n, c);
  }
  std::stable_sort(remainder.begin(), remainder.end(),
                   [](const auto& x, const auto& y) { return x.first > y.first; });
  for (int64_t k = 0; k < mean[0] - floors && k < static_cast<int64_t>(remainder.size()); ++k)
    ++mean[remainder[static_cast<size_t>(k)].second];
  // Categories that do not add up to the steps (never with step-breakdown):
  // the step is what the categories say.
  mean[0] = std::accumulate(mean.begin() + 1, mean.end(), int64_t{0});
  return mean;
}

inline Attribution Attribute(const Profile& a, const Profile& b) {
  Attribution out;
  auto has = [](const Profile& p) {
    return std::any_of(p.steps.begin(), p.steps.end(),
                       [](const ProfileStep& s) { return s.has_categories; });
  };
  out.available = has(a) && has(b);
  if (!out.available) return out;
  const std::vector<int64_t> ma = CategoryMeans(a), mb = CategoryMeans(b);
  out.a_step_ns = ma[0];
  out.b_step_ns = mb[0];
  out.delta_ns = mb[0] - ma[0];
  for (size_t c = 0; c < kCategoryCount; ++c)
    out.contributors.push_back({kCategoryNames[c], ma[c + 1], mb[c + 1], mb[c + 1] - ma[c + 1]});
  std::stable_sort(out.contributors.begin(), out.contributors.end(),
                   [](const Contributor& x, const Contributor& y) {
                     return std::llabs(x.delta_ns) > std::llabs(y.delta_ns);
                   });
  return out;
}

}  // namespace th::diff

#endif  // TRACEHOUND_DIFF_DIFF_ATTRIBUTION_H_
