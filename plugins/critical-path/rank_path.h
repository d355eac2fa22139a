// The critical path of one rank over one window, computed apart from the
// plugin's context so that windows can run on several threads: it reads only
// the trace's columns and the TraceIndex (no call into the host), into a
// worker's own Workspace, whose buffers are reused from window to window.
#pragma once

#include <tracehound/sdk.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cp_graph.h"
#include "path_summary.h"
#include "rank_graph.h"
#include "trace_index.h"
#include "what_if.h"

namespace th::critical_path {

// The buffers of one worker, kept from graph to graph.
struct Workspace {
  Graph graph;
  GraphOrder order;
  LongestPath path;
  WhatIf what_if;
  // Per trace slot, one kNone entry per event (sized on first use): lent in
  // turn to a graph's RankGraph::local while it is built, then to Summarize
  // and SpansOf; each leaves it kNone again.
  EventScratch scratch;
  RankGraphBuffers build;           // BuildRankGraph's
  std::vector<uint32_t> span_next;  // SpansOf's
};

// What one rank's window gives.
struct WindowPath {
  bool ok = false;
  std::string error;  // when !ok: why there is no path
  int64_t sync_edges = 0, inferred_sync_edges = 0;
  int64_t length = 0;  // ns
  PathSummary summary;
  std::array<int64_t, 6> without{};  // what-if lengths (WhatIf::PathAndLengthsWithout), when asked
  std::vector<PathSpan> spans;       // SpansOf, when asked
};

// The path of traces[slot] over `w`; the what-if lengths and spans when
// `what_if`. Overwrites *out.
void RankPath(const std::vector<th::sdk::Trace>& traces, const TraceIndex& ix, uint32_t slot,
              const Window& w, bool infer_sync, bool what_if, Workspace* ws, WindowPath* out);

// Sizes ws->scratch for `traces` (a kNone entry per event of each), once.
void PrepareScratch(const std::vector<th::sdk::Trace>& traces, Workspace* ws);

}  // namespace th::critical_path
