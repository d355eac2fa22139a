#include "cp_graph.h"

#include <algorithm>
#include <cstddef>

namespace th::critical_path {

bool GraphOrder::Compute(const Graph& g) {
  const auto& edges = g.edges();
  const size_t n = g.nodes().size();
  first_.assign(n + 1, 0);
  back_.clear();
  for (const Edge& e : edges) {
    if (e.disabled) continue;
    ++first_[e.src + 1];
    if (e.src >= e.dst) back_.emplace_back(e.dst, e.src);
  }
  for (size_t v = 0; v < n; ++v) first_[v + 1] += first_[v];
  out_.resize(first_[n]);
  fill_.assign(first_.begin(), first_.end() - 1);
  for (uint32_t k = 0; k < edges.size(); ++k)
    if (!edges[k].disabled) out_[fill_[edges[k].src]++] = k;
  // The nodes' own order, but for the ranges the edges to a lower (or the
  // same) node span, merged where they overlap: each ordered by Kahn's among
  // its own nodes. Edges into a range come from lower nodes, edges out of it
  // go to higher ones, and a cycle lies within one range.
  order_.resize(n);
  for (uint32_t v = 0; v < n; ++v) order_[v] = v;
  reordered_ = 0;
  std::sort(back_.begin(), back_.end());
  for (size_t i = 0; i < back_.size();) {
    const uint32_t begin = back_[i].first;
    uint32_t last = back_[i].second;
    for (++i; i < back_.size() && back_[i].first <= last; ++i)
      last = std::max(last, back_[i].second);
    reordered_ += last + 1 - begin;
    if (!OrderRange(g, begin, last + 1)) return Kahn(g);  // Kahn's says which nodes are left
  }
  return true;
}

bool GraphOrder::OrderRange(const Graph& g, uint32_t begin, uint32_t end) {
  const auto& edges = g.edges();
  in_degree_.assign(end - begin, 0);
  for (uint32_t v = begin; v < end; ++v)
    for (uint32_t k : out(v))
      if (edges[k].dst >= begin && edges[k].dst < end) ++in_degree_[edges[k].dst - begin];
  uint32_t at = begin;
  for (uint32_t v = begin; v < end; ++v)
    if (in_degree_[v - begin] == 0) order_[at++] = v;
  for (uint32_t i = begin; i < at; ++i)
    for (uint32_t k : out(order_[i])) {
      const uint32_t w = edges[k].dst;
      if (w >= begin && w < end && --in_degree_[w - begin] == 0) order_[at++] = w;
    }
  return at == end;
}

bool GraphOrder::Kahn(const Graph& g) {
  const auto& edges = g.edges();
  const size_t n = g.nodes().size();
  in_degree_.assign(n, 0);
  for (const Edge& e : edges)
    if (!e.disabled) ++in_degree_[e.dst];
  order_.clear();
  for (uint32_t v = 0; v < n; ++v)
    if (in_degree_[v] == 0) order_.push_back(v);
  for (size_t i = 0; i < order_.size(); ++i)
    for (uint32_t k : out(order_[i]))
      if (--in_degree_[edges[k].dst] == 0) order_.push_back(edges[k].dst);
  return order_.size() == n;
}

bool FindLongestPath(const Graph& g, LongestPath* out, std::string* error) {
  GraphOrder order;
  const bool acyclic = order.Compute(g);
  return FindLongestPath(g, order, acyclic, out, error);
}

bool FindLongestPath(const Graph& g, const GraphOrder& order, bool acyclic, LongestPath* out,
                     std::string* error) {
  const auto& edges = g.edges();
  const size_t n = g.nodes().size();
  if (!acyclic) {
    *error = "the graph has a cycle (" + std::to_string(n - order.order().size()) + " of " +
             std::to_string(n) + " nodes on or after one)";
    return false;
  }
  out->dist.assign(n, 0);
  out->pred.assign(n, kNone);
  for (uint32_t u : order.order()) {
    for (uint32_t k : order.out(u)) {
      const Edge& e = edges[k];
      const int64_t d = out->dist[u] + e.weight;
      if (out->pred[e.dst] == kNone || d > out->dist[e.dst] ||
          (d == out->dist[e.dst] && k < out->pred[e.dst])) {
        out->dist[e.dst] = d;
        out->pred[e.dst] = k;
      }
    }
  }
  TraceLongestPath(g, out);
  return true;
}

void TraceLongestPath(const Graph& g, LongestPath* out) {
  const auto& edges = g.edges();
  const size_t n = out->dist.size();
  out->edges.clear();
  out->length = 0;
  if (n == 0) return;
  uint32_t end = 0;
  for (uint32_t v = 1; v < n; ++v)
    if (out->dist[v] > out->dist[end]) end = v;
  out->length = out->dist[end];
  for (uint32_t v = end; out->pred[v] != kNone; v = edges[out->pred[v]].src)
    out->edges.push_back(out->pred[v]);
  std::reverse(out->edges.begin(), out->edges.end());
}

}  // namespace th::critical_path
