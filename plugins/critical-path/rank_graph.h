// One rank's critical path graph over a time window, by the rules of
// Holistic Trace Analysis' critical path analysis:
// - nodes at the start and end of CPU ops and runtime/driver calls that start
//   in the window (and last > 0), and of GPU activities launched by such calls
//   (lasting >= 0);
// - host edges: each call stack (a CPU thread; HTA merges the backward thread
//   into the forward thread) walked depth first, consecutive instants joined
//   (top-level ops by a dependency of weight 0, nested ones by the time between
//   them); calls holding the CUDA runtime lock ordered by their ends;
//   synchronising calls (cudaStreamSynchronize, ...) weigh 0;
// - GPU edges: each activity's span; a launch edge (runtime call start ->
//   activity start) only when the stream queue was empty (the activity was the
//   only one queued at its launch and the stream had finished the previous
//   one before the call); else the gap from the previous activity on the same
//   stream when under 1.5 ms; sync edges of weight 0 from the activity a
//   stream, device or event synchronisation waits for to the end of the
//   waiting call, and from a recorded activity to the first activity launched
//   on a stream after cudaStreamWaitEvent.
#pragma once

#include <tracehound/sdk.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cp_graph.h"
#include "event_slots.h"
#include "starts_and_ends.h"
#include "trace_index.h"

namespace th::critical_path {

struct Window {
  int64_t begin = 0, end = 0;  // ns, inclusive: events starting in [begin, end]
};

// One rank's part of a graph. Its events are found through `local`, an
// index over every event of the rank's trace (kNone: not in this graph),
// shared from window to window: Release() empties it again.
struct RankGraph {
  uint32_t first_node = 0, first_edge = 0;  // where this rank's part begins in the graph
  uint32_t rank_slot = 0;
  EventSlots* local = nullptr;  // per event of the trace: index into the vectors below
  std::vector<uint32_t> events, start, end, span_edge;  // per event with nodes (span: kNone)
  int64_t sync_edges = 0;
  int64_t inferred_sync_edges = 0;  // of sync_edges

  bool Has(uint32_t e) const { return e != kNone && (*local)[e] != kNone; }
  // The start and end node of an event with nodes; throws for another.
  uint32_t StartOf(uint32_t e) const { return start[At(e)]; }
  uint32_t EndOf(uint32_t e) const { return end[At(e)]; }
  // The edge of a GPU activity's span, kNone if none.
  uint32_t SpanEdgeOf(uint32_t e) const { return Has(e) ? span_edge[(*local)[e]] : kNone; }
  size_t event_count() const { return events.size(); }
  // Leaves `local` as it found it (every entry kNone).
  void Release() {
    for (uint32_t e : events) (*local)[e] = kNone;
    events.clear();
  }

 private:
  uint32_t At(uint32_t e) const {
    if (!Has(e))
      throw std::out_of_range("critical path: event " + std::to_string(e) +
                              " has no node in the graph");
    return (*local)[e];
  }
};

// What BuildRankGraph works in, kept from graph to graph (one per worker),
// so that a window allocates (and faults in) no memory a window before it
// had: its lists and sort keys, and the vectors of a RankGraph, lent to the
// next one built and given back by Recycle.
// A GPU event at an instant (an activity's start, a sync's end) with the host
// call it came from, ordered by (ts, event): unique.
struct CalledAt {
  int64_t ts;
  uint32_t event, call;
  EventKey key() const { return {ts, event}; }
  bool operator<(const CalledAt& o) const { return key() < o.key(); }
};

struct RankGraphBuffers {
  std::vector<uint32_t> host, by_thread, first, at, stack, open;
  std::vector<CalledAt> gpu_starts, sync_ends;
  std::vector<EventKey> starts, ends, open_ends, gpu_ends;
  std::vector<uint32_t> events, start, end, span_edge;  // a RankGraph's, between graphs
  // Takes back `r`'s vectors (after Release).
  void Recycle(RankGraph&& r);
};

// Appends the rank's graph for `w` to `g`. `infer_sync`, for a trace without
// CUDA sync events: a blocking call waits for the GPU activity that ended
// last within it (an edge from its end to the call's end), and
// cudaStreamWaitEvent makes the next activity launched from its thread wait
// for the activity recorded before it (when on another stream). `local`: one
// kNone entry per event of `t`, filled for the graph's events (the result's
// Release() empties it).
RankGraph BuildRankGraph(const th::sdk::Trace& t, const TraceIndex& ix, const Window& w,
                         uint32_t rank_slot, bool infer_sync, EventSlots* local, Graph* g,
                         RankGraphBuffers* buffers);

}  // namespace th::critical_path
