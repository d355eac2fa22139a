#include "path_summary.h"

#include <algorithm>
#include <tuple>

namespace th::critical_path {

PathSummary Summarize(const Graph& g, const LongestPath& p,
                      const std::map<uint32_t, uint32_t>& transfer_slot, EventScratch* scratch) {
  PathSummary s;
  auto add = [&](uint32_t slot, uint32_t event, int64_t time) {
    EventSlots::Ref at = (*scratch)[slot][event];
    if (at == kNone) {
      at = static_cast<uint32_t>(s.events.size());
      s.events.push_back({slot, event, 0});
    }
    s.events[at].time += time;
  };
  const auto& nodes = g.nodes();
  std::vector<int64_t> per_slot;  // by_rank_slot, densely
  s.events.reserve(p.edges.size() + 1);
  bool one_rank = true;
  for (uint32_t k : p.edges) {
    const Edge& e = g.edges()[k];
    const Node& a = nodes[e.src];
    const Node& b = nodes[e.dst];
    s.length += e.weight;
    s.by_category[static_cast<int>(e.category)] += e.weight;
    uint32_t slot = a.rank_slot;
    if (e.type == EdgeType::kStart) slot = b.rank_slot;
    if (e.type == EdgeType::kTransfer) {
      auto it = transfer_slot.find(k);
      if (it != transfer_slot.end()) slot = it->second;
    }
    if (e.weight > 0) {
      if (slot >= per_slot.size()) per_slot.resize(slot + 1, 0);
      per_slot[slot] += e.weight;
    }
    if (a.event != kNone && b.event != kNone && a.rank_slot == b.rank_slot)
      s.waits += (b.ts - a.ts) - e.weight;
    if (a.event == kNone || b.event == kNone) one_rank = false;
    if (a.event != kNone) add(a.rank_slot, a.event, 0);
    if (e.attributed != kNone && e.weight > 0) add(a.rank_slot, e.attributed, e.weight);
    if (b.event != kNone) add(b.rank_slot, b.event, 0);
  }
  for (uint32_t slot = 0; slot < per_slot.size(); ++slot)
    if (per_slot[slot] > 0) s.by_rank_slot[slot] = per_slot[slot];
  for (const PathSummary::OnPath& o : s.events) (*scratch)[o.slot][o.event] = kNone;
  if (one_rank && !p.edges.empty())
    s.elapsed = nodes[g.edges()[p.edges.back()].dst].ts - nodes[g.edges()[p.edges.front()].src].ts;
  else
    s.elapsed = s.length + s.waits;
  return s;
}

const char* CategoryName(Category c) {
  switch (c) {
    case Category::kCompute:
      return "compute";
    case Category::kCommunication:
      return "communication";
    case Category::kLaunchOverhead:
      return "launch_overhead";
    case Category::kKernelGap:
      return "kernel_gap";
    case Category::kHost:
      return "host";
    case Category::kLateStart:
      return "late_start";
    case Category::kNone:
      break;
  }
  return "idle";
}

const char* HtaBoundName(Category c) {
  switch (c) {
    case Category::kCompute:
      return "gpu_compute_bound";
    case Category::kCommunication:
      return "gpu_communication_bound";
    case Category::kLaunchOverhead:
      return "gpu_kernel_launch_overhead";
    case Category::kKernelGap:
      return "gpu_kernel_kernel_overhead";
    case Category::kHost:
      return "cpu_bound";
    case Category::kLateStart:
    case Category::kNone:
      break;
  }
  return "";
}

}  // namespace th::critical_path
