#include "cp_graph.h"

#include <cstddef>

namespace th::critical_path {

bool FindLongestPath(const Graph& g, LongestPath* out, std::string* error) {
  const auto& nodes = g.nodes();
  const auto& edges = g.edges();
  const size_t n = nodes.size();
  // Outgoing edges as CSR, in edge order.
  std::vector<uint32_t> first(n + 1, 0), in_degree(n, 0);
  for (const Edge& e : edges)
    if (!e.disabled) ++first[e.src + 1], ++in_degree[e.dst];
  for (size_t v = 0; v < n; ++v) first[v + 1] += first[v];
  std::vector<uint32_t> out_edges(first[n]);
  std::vector<uint32_t> fill(first.begin(), first.end() - 1);
  for (uint32_t k = 0; k < edges.size(); ++k)
    if (!edges[k].disabled) out_edges[fill[edges[k].src]++] = k;

  out->dist.assign(n, 0);
  out->pred.assign(n, kNone);
  std::vector<uint32_t> ready;
  for (uint32_t v = 0; v < n; ++v)
    if (in_degree[v] == 0) ready.push_back(v);
  size_t done = 0;
  while (!ready.empty()) {
    const uint32_t u = ready.back();
    ready.pop_back();
    ++done;
    for (uint32_t j = first[u]; j < first[u + 1]; ++j) {
      const Edge& e = edges[out_edges[j]];
      const int64_t d = out->dist[u] + e.weight;
      if (out->pred[e.dst] == kNone || d > out->dist[e.dst] ||
          (d == out->dist[e.dst] && out_edges[j] < out->pred[e.dst])) {
        out->dist[e.dst] = d;
        out->pred[e.dst] = out_edges[j];
      }
      if (--in_degree[e.dst] == 0) ready.push_back(e.dst);
    }
  }
  if (done != n) {
    *error = "the graph has a cycle (" + std::to_string(n - done) + " of " + std::to_string(n) +
             " nodes on or after one)";
    return false;
  }
  out->edges.clear();
  out->length = 0;
  if (n == 0) return true;
  uint32_t end = 0;
  for (uint32_t v = 1; v < n; ++v)
    if (out->dist[v] > out->dist[end]) end = v;
  out->length = out->dist[end];
  for (uint32_t v = end; out->pred[v] != kNone; v = edges[out->pred[v]].src)
    out->edges.push_back(out->pred[v]);
  std::vector<uint32_t> forward(out->edges.rbegin(), out->edges.rend());
  out->edges = std::move(forward);
  return true;
}

}  // namespace th::critical_path
