#include "rank_path.h"

#include <map>

namespace th::critical_path {

void PrepareScratch(const std::vector<th::sdk::Trace>& traces, Workspace* ws) {
  if (ws->scratch.size() == traces.size()) return;
  ws->scratch.clear();
  for (const auto& t : traces) ws->scratch.emplace_back(t.size());
}

void RankPath(const std::vector<th::sdk::Trace>& traces, const TraceIndex& ix, uint32_t slot,
              const Window& w, bool infer_sync, bool what_if, Workspace* ws, WindowPath* out) {
  PrepareScratch(traces, ws);
  ws->graph.Clear();
  RankGraph rg = BuildRankGraph(traces[slot], ix, w, slot, infer_sync, &ws->scratch[slot],
                                &ws->graph, &ws->build);
  rg.Release();
  out->sync_edges = rg.sync_edges;
  out->inferred_sync_edges = rg.inferred_sync_edges;
  ws->build.Recycle(std::move(rg));
  out->spans.clear();
  const bool acyclic = ws->order.Compute(ws->graph);
  out->error.clear();
  if (what_if && acyclic) {
    out->without = ws->what_if.PathAndLengthsWithout(ws->graph, ws->order, &ws->path);
    out->ok = true;
  } else {
    out->ok = FindLongestPath(ws->graph, ws->order, acyclic, &ws->path, &out->error);
  }
  if (!out->ok) return;
  out->length = ws->path.length;
  out->summary = Summarize(ws->graph, ws->path, {}, &ws->scratch);
  if (what_if) out->spans = SpansOf(ws->graph, ws->path, {}, &ws->scratch, &ws->span_next);
}

}  // namespace th::critical_path
