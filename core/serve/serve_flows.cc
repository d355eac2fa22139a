#include "core/serve/serve_flows.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "core/report/json_writer.h"
#include "core/serve/lod_levels.h"

namespace th::serve {
namespace {

auto Order(const FlowEdge& e) { return std::tuple(e.from_ns, e.to_ns, e.from, e.to); }

// floor((t - t0) · width / (t1 - t0)), clamped to [-1, width]; in int64
// when span · width fits (the usual case), else in 128 bits.
struct PixelScale {
  const FlowQuery& q;
  Int128 span = static_cast<Int128>(q.t1) - q.t0;
  bool fits64 = span * q.width <= std::numeric_limits<int64_t>::max();
  int64_t operator()(int64_t t) const {
    if (t < q.t0) return -1;
    if (t >= q.t1) return q.width;
    if (fits64) return (t - q.t0) * q.width / static_cast<int64_t>(span);
    return static_cast<int64_t>((static_cast<Int128>(t) - q.t0) * q.width / span);
  }
};

struct CellKey {
  uint64_t rows;  // from_row << 32 | to_row
  int64_t from_px, to_px;
  EdgeKind kind;
  bool operator==(const CellKey&) const = default;
};

struct CellHash {
  size_t operator()(const CellKey& k) const {
    uint64_t h = k.rows * 0x9e3779b97f4a7c15ull;
    h ^= static_cast<uint64_t>(k.from_px) * 0xc2b2ae3d27d4eb4full + (h >> 29);
    h ^= static_cast<uint64_t>(k.to_px) * 0x165667b19e3779f9ull + (h >> 31);
    return h ^ static_cast<uint64_t>(k.kind);
  }
};

using Cells = std::unordered_map<CellKey, FlowBundle, CellHash>;

// Pixel of an end at the bundle size: -1 and width stay apart from the window's pixels.
int64_t Cell(int64_t px, int64_t bundle_px) { return px < 0 ? -1 : px / bundle_px; }

struct Placed {
  const FlowEdge* edge;
  int64_t from_px, to_px;
};

void Add(Cells* cells, const Placed& p, int64_t bundle_px) {
  const FlowEdge& e = *p.edge;
  const CellKey key{static_cast<uint64_t>(e.from_row) << 32 | e.to_row, Cell(p.from_px, bundle_px),
                    Cell(p.to_px, bundle_px), e.kind};
  auto [it, added] = cells->try_emplace(key, FlowBundle{e, 0});
  if (!added && Order(e) < Order(it->second.first)) it->second.first = e;
  ++it->second.count;
}

// The cells at twice the bundle size: pairs of pixels merged, counts summed,
// the earliest edge kept.
Cells Coarser(Cells cells) {
  auto half = [](int64_t cell) { return cell < 0 ? cell : cell / 2; };
  Cells out;
  for (auto& [key, bundle] : cells) {
    CellKey k = key;
    k.from_px = half(k.from_px);
    k.to_px = half(k.to_px);
    auto [it, added] = out.try_emplace(k, bundle);
    if (added) continue;
    it->second.count += bundle.count;
    if (Order(bundle.first) < Order(it->second.first)) it->second.first = bundle.first;
  }
  return out;
}

}  // namespace

FlowIndex::FlowIndex(const ServeRun& run) {
  const EventGraph& g = run.graph();
  const EventColumns& ev = g.events;
  for (size_t k = 0; k < g.edges.size(); ++k) {
    const EventId from = g.edges.src[k], to = g.edges.dst[k];
    if (from >= ev.size() || to >= ev.size()) continue;
    const auto from_row = run.RowOf(ev.track[from], ev.depth[from]);
    const auto to_row = run.RowOf(ev.track[to], ev.depth[to]);
    if (!from_row || !to_row) continue;
    by_from_.push_back({run.Relative(ev.ts[from]), run.Relative(ev.ts[to]), from, to, *from_row,
                        *to_row, g.edges.kind[k]});
  }
  std::sort(by_from_.begin(), by_from_.end(),
            [](const FlowEdge& a, const FlowEdge& b) { return Order(a) < Order(b); });
  by_to_.resize(by_from_.size());
  for (uint32_t k = 0; k < by_to_.size(); ++k) by_to_[k] = k;
  std::stable_sort(by_to_.begin(), by_to_.end(),
                   [&](uint32_t a, uint32_t b) { return by_from_[a].to_ns < by_from_[b].to_ns; });
}

FlowAnswer QueryFlows(const FlowIndex& index, const FlowQuery& q) {
  // One pass, each edge hashed once: when the cells pass the bound, they
  // merge in pairs of pixels (floor(floor(px / b) / 2) = floor(px / 2b)).
  FlowAnswer answer;
  const auto& mask = q.row_mask;
  const PixelScale pixel{q};
  Cells cells;
  int64_t bundle_px = 1;
  index.ForEachInWindow(q.t0, q.t1, [&](const FlowEdge& e) {
    if (!mask.empty() && !mask[e.from_row] && !mask[e.to_row]) return;
    ++answer.total;
    Add(&cells, {&e, pixel(e.from_ns), pixel(e.to_ns)}, bundle_px);
    while (cells.size() > kMaxFlowBundles && bundle_px <= q.width) {
      bundle_px *= 2;
      cells = Coarser(std::move(cells));
    }
  });
  answer.bundle_px = bundle_px;
  answer.bundles.reserve(cells.size());
  for (auto& [key, bundle] : cells) answer.bundles.push_back(bundle);
  std::sort(
      answer.bundles.begin(), answer.bundles.end(),
      [](const FlowBundle& a, const FlowBundle& b) { return Order(a.first) < Order(b.first); });
  return answer;
}

std::string FlowsJson(const FlowAnswer& answer) {
  std::ostringstream out;
  {
    JsonWriter w(out, JsonStyle::kCompact);
    w.BeginObject().Key("flows").BeginArray();
    for (const FlowBundle& b : answer.bundles) {
      const FlowEdge& e = b.first;
      w.BeginObject().Field("from_id", int64_t{e.from}).Field("to_id", int64_t{e.to});
      w.Field("from_row", int64_t{e.from_row}).Field("to_row", int64_t{e.to_row});
      w.Field("from_ns", e.from_ns).Field("to_ns", e.to_ns);
      w.Field("count", static_cast<int64_t>(b.count));
      w.Field("kind", e.kind == EdgeKind::kLaunch ? "launch" : "flow").EndObject();
    }
    w.EndArray().Field("total", static_cast<int64_t>(answer.total));
    w.Field("bundle_px", answer.bundle_px).EndObject();
  }
  return out.str();
}

}  // namespace th::serve
