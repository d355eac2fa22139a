#include "core/diff/diff_attribution.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "core/diff/diff_aggregate.h"

namespace th::diff {

std::vector<int64_t> CategoryMeans(const Profile& p) {
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

Attribution Attribute(const Profile& a, const Profile& b) {
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

std::vector<std::string> ParityWarnings(const SideSummary& a, const SideSummary& b) {
  std::vector<std::string> w;
  if (a.device != b.device)
    w.push_back("device differs: A " + (a.device.empty() ? "unknown" : a.device) + ", B " +
                (b.device.empty() ? "unknown" : b.device));
  if (a.world_size != b.world_size)
    w.push_back("world size differs: A " + std::to_string(a.world_size) + ", B " +
                std::to_string(b.world_size) + " (0 = unknown)");
  if (a.ranks != b.ranks)
    w.push_back("ranks differ: A " + std::to_string(a.ranks) + ", B " + std::to_string(b.ranks));
  if (a.step_source != b.step_source)
    w.push_back("steps come from different sources: A " + a.step_source + ", B " + b.step_source);
  for (const SideSummary* s : {&a, &b})
    if (s->steps < 2)
      w.push_back("side " + s->label + " has " + std::to_string(s->steps) +
                  " kept step(s): rows present on both sides are unknown, not unchanged");
  return w;
}

SideSummary Summarise(const DiffSide& side, const Profile& p) {
  SideSummary s;
  s.label = side.label;
  s.inputs = side.inputs;
  s.ranks = static_cast<int64_t>(side.traces->traces.size());
  s.steps = static_cast<int64_t>(p.steps.size());
  s.warmup_left_out = p.warmup_left_out;
  s.step_source = p.step_source;
  if (p.inferred) s.kind = "inferred";
  for (const auto& t : side.traces->traces) {
    if (s.device.empty() && !t->info.devices.empty()) s.device = t->info.devices.front().name;
    if (s.world_size == 0 && t->info.distributed && t->info.distributed->world_size)
      s.world_size = *t->info.distributed->world_size;
  }
  return s;
}

}  // namespace th::diff
