#include "what_if.h"

#include <algorithm>

namespace th::critical_path {

WhatIf::WhatIf(const Graph& g) : g_(g) {
  const auto& edges = g.edges();
  const size_t n = g.nodes().size();
  first_.assign(n + 1, 0);
  std::vector<uint32_t> in_degree(n, 0);
  for (const Edge& e : edges)
    if (!e.disabled) ++first_[e.src + 1], ++in_degree[e.dst];
  for (size_t v = 0; v < n; ++v) first_[v + 1] += first_[v];
  out_.resize(first_[n]);
  std::vector<uint32_t> fill(first_.begin(), first_.end() - 1);
  for (uint32_t k = 0; k < edges.size(); ++k)
    if (!edges[k].disabled) out_[fill[edges[k].src]++] = k;
  std::vector<uint32_t> ready;
  for (uint32_t v = 0; v < n; ++v)
    if (in_degree[v] == 0) ready.push_back(v);
  order_.reserve(n);
  while (!ready.empty()) {
    const uint32_t u = ready.back();
    ready.pop_back();
    order_.push_back(u);
    for (uint32_t j = first_[u]; j < first_[u + 1]; ++j)
      if (--in_degree[edges[out_[j]].dst] == 0) ready.push_back(edges[out_[j]].dst);
  }
}

std::array<int64_t, 6> WhatIf::LengthsWithout() const {
  constexpr size_t kN = 6;
  const auto& edges = g_.edges();
  std::vector<std::array<int64_t, kN>> dist(g_.nodes().size(), std::array<int64_t, kN>{});
  std::array<int64_t, kN> longest{};
  for (uint32_t u : order_) {
    const std::array<int64_t, kN>& du = dist[u];
    for (size_t c = 0; c < kN; ++c) longest[c] = std::max(longest[c], du[c]);
    for (uint32_t j = first_[u]; j < first_[u + 1]; ++j) {
      const Edge& e = edges[out_[j]];
      std::array<int64_t, kN>& dv = dist[e.dst];
      const auto zeroed = static_cast<size_t>(e.category);
      for (size_t c = 0; c < kN; ++c) {
        const int64_t d = du[c] + (c == zeroed && c != 0 ? 0 : e.weight);
        if (d > dv[c]) dv[c] = d;
      }
    }
  }
  return longest;
}

PathSpans SpansOf(const Graph& g, const LongestPath& p,
                  const std::map<uint32_t, uint32_t>& transfer_slot) {
  PathSpans out;
  for (uint32_t k : p.edges) {
    const Edge& e = g.edges()[k];
    if (e.weight <= 0) continue;
    uint32_t slot = g.nodes()[e.src].rank_slot;
    if (e.type == EdgeType::kTransfer) {
      auto it = transfer_slot.find(k);
      if (it != transfer_slot.end()) slot = it->second;
    }
    out[{slot, e.attributed, e.category}] += e.weight;
  }
  return out;
}

}  // namespace th::critical_path
