#include "cross_rank.h"

#include <algorithm>

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
  for (const Collective& c : collectives) {
    // (rank graph, kernel event) of each rank taking part in this window.
    std::vector<std::pair<const RankGraph*, uint32_t>> members;
    for (const CollectiveRun& run : c.runs) {
      auto slot = slot_of_rank.find(run.rank);
      if (slot == slot_of_rank.end()) continue;
      for (const RankGraph& rg : ranks) {
        if (rg.rank_slot != slot->second) continue;
        const uint32_t k = index[rg.rank_slot]->ActivityAt(run.ts, run.dur);
        if (k != kNone && rg.span_edge_of.count(k)) members.emplace_back(&rg, k);
      }
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
      const auto& [start, end] = rg->nodes_of.at(k);
      g->edges()[rg->span_edge_of.at(k)].disabled = true;
      b.enter_edges.push_back(
          g->AddEdge({start, b.in, 0, EdgeType::kBarrierIn, Category::kNone, kNone, false}));
      g->AddEdge({b.out, end, 0, EdgeType::kBarrierOut, Category::kNone, kNone, false});
    }
    out.push_back(std::move(b));
  }
  return out;
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
