#include "cross_rank.h"

#include <algorithm>
#include <climits>

namespace th::critical_path {

std::vector<Collective> ReadCollectives(const th_table* collectives, const th_table* ranks) {
  std::vector<Collective> out;
  if (!collectives || !ranks) return out;
  const th::sdk::TableView c(collectives), r(ranks);
  const auto ids = c.Ints("id");
  const auto transfer = c.Ints("transfer");
  std::map<int64_t, size_t> at;
  for (size_t i = 0; i < ids.size(); ++i) {
    at[ids[i]] = out.size();
    out.push_back({ids[i], transfer[i], {}});
  }
  const auto rid = r.Ints("id"), rank = r.Ints("rank"), ts = r.Ints("ts"), dur = r.Ints("dur");
  for (size_t i = 0; i < rid.size(); ++i) {
    auto it = at.find(rid[i]);
    if (it != at.end()) out[it->second].runs.push_back({rank[i], ts[i], dur[i]});
  }
  return out;
}

std::vector<Barrier> AddBarriers(const std::vector<Collective>& collectives,
                                 const std::vector<RankGraph>& ranks,
                                 const std::vector<const TraceIndex*>& index,
                                 const std::map<int64_t, uint32_t>& slot_of_rank, Graph* g) {
  std::vector<Barrier> out;
  std::map<uint32_t, const RankGraph*> by_slot;
  for (const RankGraph& rg : ranks) by_slot[rg.rank_slot] = &rg;
  std::vector<std::pair<const RankGraph*, uint32_t>> members;
  for (const Collective& c : collectives) {
    // (rank graph, kernel event) of each rank taking part in this window.
    members.clear();
    for (const CollectiveRun& run : c.runs) {
      auto slot = slot_of_rank.find(run.rank);
      if (slot == slot_of_rank.end()) continue;
      auto rg = by_slot.find(slot->second);
      if (rg == by_slot.end()) continue;
      const uint32_t k = index[slot->second]->ActivityAt(run.ts, run.dur);
      if (k != kNone && rg->second->SpanEdgeOf(k) != kNone) members.emplace_back(rg->second, k);
    }
    if (members.size() < 2) continue;
    Barrier b;
    b.id = c.id;
    b.transfer = c.transfer;
    b.in = g->AddNode({0, kNone, members.front().first->rank_slot, true});
    b.out = g->AddNode({0, kNone, members.front().first->rank_slot, false});
    b.transfer_edge = g->AddEdge(
        {b.in, b.out, c.transfer, EdgeType::kTransfer, Category::kCommunication, kNone, false});
    for (const auto& [rg, k] : members) {
      const uint32_t start = rg->StartOf(k), end = rg->EndOf(k);
      g->edges()[rg->SpanEdgeOf(k)].disabled = true;
      b.enter_edges.push_back(
          g->AddEdge({start, b.in, 0, EdgeType::kBarrierIn, Category::kNone, kNone, false}));
      g->AddEdge({b.out, end, 0, EdgeType::kBarrierOut, Category::kNone, kNone, false});
    }
    out.push_back(std::move(b));
  }
  return out;
}

std::map<uint32_t, int64_t> ClockOffsets(const std::vector<Collective>& collectives,
                                         const std::map<int64_t, uint32_t>& slot_of_rank) {
  std::map<uint32_t, int64_t> out;
  if (slot_of_rank.empty()) return out;
  const int64_t ref = slot_of_rank.begin()->first;
  std::map<int64_t, std::vector<int64_t>> diffs;  // rank -> end - end on ref
  for (const Collective& c : collectives) {
    const CollectiveRun* on_ref = nullptr;
    for (const CollectiveRun& run : c.runs)
      if (run.rank == ref) on_ref = &run;
    if (!on_ref) continue;
    for (const CollectiveRun& run : c.runs)
      diffs[run.rank].push_back((run.ts + run.dur) - (on_ref->ts + on_ref->dur));
  }
  for (auto& [rank, d] : diffs) {
    auto slot = slot_of_rank.find(rank);
    if (slot == slot_of_rank.end()) continue;
    std::sort(d.begin(), d.end());
    out[slot->second] = d[(d.size() - 1) / 2];
  }
  return out;
}

void AddStartEdges(const std::vector<RankGraph>& ranks, const std::map<uint32_t, int64_t>& offsets,
                   Graph* g) {
  struct First {
    uint32_t node, count;  // the rank's first node and how many it has
    int64_t at;            // corrected ts of the first node
  };
  std::vector<First> firsts;
  int64_t earliest = INT64_MAX;
  for (const RankGraph& rg : ranks) {
    auto off = offsets.find(rg.rank_slot);
    if (off == offsets.end() || rg.event_count() == 0) continue;
    const int64_t at = g->nodes()[rg.first_node].ts - off->second;
    firsts.push_back({rg.first_node, static_cast<uint32_t>(2 * rg.event_count()), at});
    earliest = std::min(earliest, at);
  }
  if (firsts.size() < 2) return;
  std::vector<uint8_t> entered(g->nodes().size(), 0);
  for (const Edge& e : g->edges())
    if (!e.disabled) entered[e.dst] = 1;
  const uint32_t start = g->AddNode({0, kNone, g->nodes()[firsts.front().node].rank_slot, true});
  for (const auto& [first, count, at] : firsts) {
    for (uint32_t n = first; n < first + count; ++n)
      if (!entered[n])
        g->AddEdge({start, n, at - earliest, EdgeType::kStart, Category::kLateStart, kNone, false});
  }
}

Gating GatingOf(const Graph& g, const LongestPath& p, const Barrier& b) {
  Gating out;
  int64_t best = -1, second = -1;
  for (uint32_t k : b.enter_edges) {
    const Edge& e = g.edges()[k];
    const int64_t d = p.dist[e.src];
    const int64_t slot = g.nodes()[e.src].rank_slot;
    if (d > best || (d == best && slot < out.slot)) {
      second = std::max(second, best);
      best = d;
      out.slot = slot;
    } else {
      second = std::max(second, d);
    }
  }
  out.lead = second < 0 ? 0 : best - second;
  return out;
}

}  // namespace th::critical_path
