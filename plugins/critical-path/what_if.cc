#include "what_if.h"

#include <algorithm>
#include <utility>

namespace th::critical_path {

std::array<int64_t, 6> WhatIf::PathAndLengthsWithout(const Graph& g, const GraphOrder& order,
                                                     LongestPath* path) {
  const auto& edges = g.edges();
  const size_t n = g.nodes().size();
  path->dist.assign(n, 0);
  path->pred.assign(n, kNone);
  // A node's lanes are written by its first edge in, never read before:
  // a node no edge reaches has them at 0. (No pass to zero them.)
  if (dist_.size() < n) dist_.resize(n);
  int64_t* const dist = path->dist.data();
  uint32_t* const pred = path->pred.data();
  std::array<int64_t, 6> longest{};
  for (uint32_t u : order.order()) {
    const int64_t du0 = dist[u];
    const std::array<int64_t, kLanes> du =
        pred[u] == kNone ? std::array<int64_t, kLanes>{} : dist_[u];
    longest[0] = std::max(longest[0], du0);
    for (size_t c = 0; c < kLanes; ++c) longest[c + 1] = std::max(longest[c + 1], du[c]);
    for (uint32_t k : order.out(u)) {
      const Edge& e = edges[k];
      const uint32_t v = e.dst;
      // FindLongestPath's rule: the greater distance, on a tie the first edge.
      const int64_t d = du0 + e.weight;
      const bool first = pred[v] == kNone;  // the first edge into v
      if (first || d > dist[v] || (d == dist[v] && k < pred[v])) {
        dist[v] = d;
        pred[v] = k;
      }
      std::array<int64_t, kLanes>& dv = dist_[v];
      const size_t zeroed = static_cast<size_t>(e.category);  // lane zeroed + 1
      for (size_t c = 0; c < kLanes; ++c) {
        const int64_t dc = du[c] + (c + 1 == zeroed ? 0 : e.weight);
        if (first || dc > dv[c]) dv[c] = dc;
      }
    }
  }
  TraceLongestPath(g, path);
  return longest;
}

std::vector<PathSpan> SpansOf(const Graph& g, const LongestPath& p,
                              const std::map<uint32_t, uint32_t>& transfer_slot,
                              std::vector<EventSlots>* scratch,
                              std::vector<uint32_t>* next_buffer) {
  std::vector<PathSpan> out;
  out.reserve(p.edges.size());  // at most a span per edge
  std::vector<uint32_t>& next =
      *next_buffer;  // per span: the next span of its event, kNone at the end
  next.clear();
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
    EventSlots::Ref first = (*scratch)[slot][e.attributed];
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
