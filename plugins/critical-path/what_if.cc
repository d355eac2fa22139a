#include "what_if.h"

#include <algorithm>
#include <utility>

namespace th::critical_path {

std::array<int64_t, 6> WhatIf::LengthsWithout(const Graph& g, const GraphOrder& order) {
  constexpr size_t kN = 6;
  const auto& edges = g.edges();
  dist_.assign(g.nodes().size(), std::array<int64_t, kN>{});
  std::array<int64_t, kN> longest{};
  for (uint32_t u : order.order()) {
    const std::array<int64_t, kN>& du = dist_[u];
    for (size_t c = 0; c < kN; ++c) longest[c] = std::max(longest[c], du[c]);
    for (uint32_t k : order.out(u)) {
      const Edge& e = edges[k];
      std::array<int64_t, kN>& dv = dist_[e.dst];
      const auto zeroed = static_cast<size_t>(e.category);
      for (size_t c = 0; c < kN; ++c) {
        const int64_t d = du[c] + (c == zeroed && c != 0 ? 0 : e.weight);
        if (d > dv[c]) dv[c] = d;
      }
    }
  }
  return longest;
}

std::vector<PathSpan> SpansOf(const Graph& g, const LongestPath& p,
                              const std::map<uint32_t, uint32_t>& transfer_slot,
                              std::vector<std::vector<uint32_t>>* scratch) {
  std::vector<PathSpan> out;
  std::vector<uint32_t> next;  // per span: the next span of the same event, kNone at the end
  std::map<std::pair<uint32_t, Category>, uint32_t> transfers;  // spans without an event
  for (uint32_t k : p.edges) {
    const Edge& e = g.edges()[k];
    if (e.weight <= 0) continue;
    uint32_t slot = g.nodes()[e.src].rank_slot;
    if (e.type == EdgeType::kTransfer) {
      auto it = transfer_slot.find(k);
      if (it != transfer_slot.end()) slot = it->second;
    }
    const auto add = [&]() {
      out.push_back({slot, e.attributed, e.category, e.weight});
      next.push_back(kNone);
      return static_cast<uint32_t>(out.size() - 1);
    };
    if (e.attributed == kNone) {
      auto [it, added] = transfers.emplace(std::make_pair(slot, e.category), 0);
      if (added)
        it->second = add();
      else
        out[it->second].time += e.weight;
      continue;
    }
    uint32_t& first = (*scratch)[slot][e.attributed];
    if (first == kNone) {
      first = add();
      continue;
    }
    uint32_t at = first;
    while (out[at].category != e.category && next[at] != kNone) at = next[at];
    if (out[at].category == e.category)
      out[at].time += e.weight;
    else
      next[at] = add();
  }
  for (const PathSpan& s : out)
    if (s.event != kNone) (*scratch)[s.slot][s.event] = kNone;
  return out;
}

}  // namespace th::critical_path
