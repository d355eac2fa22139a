#include "core/diff/diff_attribution.h"

namespace th::diff {

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
