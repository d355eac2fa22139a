// Flow and launch edges of one run for the viewer's arrows: the graph's edges
// (EdgeKind::kLaunch and kFlow) whose two ends are in rows of the index,
// sorted by the source's start, and a window query that bundles them per
// pixel so that the answer stays bounded at any zoom while the counts stay
// exact (the bundles' counts add up to the edges in the window).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/serve/serve_run.h"

namespace th::serve {

// At most this many bundles per answer: past it, bundles merge 2, 4, 8, ...
// pixels until they fit.
inline constexpr size_t kMaxFlowBundles = 4096;

struct FlowEdge {
  int64_t from_ns = 0, to_ns = 0;  // starts of the source and target, relative
  EventId from = 0, to = 0;
  uint32_t from_row = 0, to_row = 0;
  EdgeKind kind = EdgeKind::kFlow;
};

class FlowIndex {
 public:
  explicit FlowIndex(const ServeRun& run);
  size_t size() const { return by_from_.size(); }
  const std::vector<FlowEdge>& edges() const { return by_from_; }  // by (from_ns, to_ns, from, to)

  // Calls visit(edge) once for every edge with an end (from_ns or to_ns) in
  // [t0, t1) (relative), in no particular order.
  template <typename Visit>
  void ForEachInWindow(int64_t t0, int64_t t1, Visit&& visit) const;

 private:
  std::vector<FlowEdge> by_from_;
  std::vector<uint32_t> by_to_;  // indices into by_from_, by to_ns
};

struct FlowBundle {
  FlowEdge first;      // the bundle's earliest edge (by from_ns, then to_ns, ids)
  uint64_t count = 0;  // edges in the bundle
};

struct FlowQuery {
  int64_t t0 = 0, t1 = 1;      // relative, t1 > t0
  int64_t width = 1;           // pixels
  std::vector<bool> row_mask;  // empty: every row; else edges with an end in a row set
};

struct FlowAnswer {
  std::vector<FlowBundle> bundles;  // by first.from_ns, first.to_ns, ids
  uint64_t total = 0;               // edges in the window (= the bundles' counts summed)
  int64_t bundle_px = 1;            // pixels per bundle cell (1, 2, 4, ...)
};

// Bundles per (kind, from_row, to_row, pixel of from, pixel of to); a pixel
// is floor((t - t0) · width / (t1 - t0)), clamped to [-1, width] for an end
// outside the window, then divided by bundle_px.
FlowAnswer QueryFlows(const FlowIndex& index, const FlowQuery& query);

std::string FlowsJson(const FlowAnswer& answer);

template <typename Visit>
void FlowIndex::ForEachInWindow(int64_t t0, int64_t t1, Visit&& visit) const {
  auto from_lo = std::lower_bound(by_from_.begin(), by_from_.end(), t0,
                                  [](const FlowEdge& e, int64_t t) { return e.from_ns < t; });
  for (auto it = from_lo; it != by_from_.end() && it->from_ns < t1; ++it) visit(*it);
  auto to_lo = std::lower_bound(by_to_.begin(), by_to_.end(), t0,
                                [&](uint32_t k, int64_t t) { return by_from_[k].to_ns < t; });
  for (auto it = to_lo; it != by_to_.end() && by_from_[*it].to_ns < t1; ++it) {
    const FlowEdge& e = by_from_[*it];
    if (e.from_ns < t0 || e.from_ns >= t1) visit(e);  // else visited above
  }
}

}  // namespace th::serve
