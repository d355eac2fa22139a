// GraphBuilder: appends parsed chunks to one EventGraph in file order
// (Phase 1), then derives what needs the whole trace (Phase 2, Finish):
// B/E pairing, per-track time order, nesting (parent, depth), launch and flow
// edges, ProfilerStep windows, track kinds and names, and the trust entries
// that only the whole trace can count (kernels with no launch, orphan flows).
#pragma once

#include <unordered_map>
#include <vector>

#include "core/graph/id_index.h"
#include "core/graph/pod_column.h"
#include "core/graph/trace.h"
#include "core/import/kineto/parsed_chunk.h"

namespace th::kineto {

class GraphBuilder {
 public:
  explicit GraphBuilder(Trace* trace) : trace_(trace) {}

  // The chunks hold an XProf JSON trace: Finish maps device-plane events
  // (xprof_json.h) before it derives anything.
  void SetXprofJson() { xprof_json_ = true; }
  // The chunks hold a bare event array: Finish maps an autograd profiler's
  // events (autograd_profiler.h) when their tracks say it wrote them.
  void SetTopLevelArray() { top_level_array_ = true; }
  // After Finish: the trace is the autograd profiler's.
  bool autograd_profiler() const { return autograd_profiler_; }
  // Phase 1: chunks must arrive in sequence order.
  void Append(ParsedChunk&& chunk);
  // Between the phases: parse threads number tracks in the order they first
  // meet them, which differs between runs. This renumbers them by their first
  // event (then, tracks without events, by key), in the events' track column
  // and the name records, and returns the tracks by their new ids: the same
  // file then always gives the same track ids.
  std::vector<TrackKey> NumberTracksByFirstEvent(const std::vector<TrackKey>& tracks);
  // Phase 2. `tracks`: every track id the chunks used, by id.
  void Finish(const std::vector<TrackKey>& tracks);

  // What phase 1 gathered besides the graph's columns (merged_ranks.h splits
  // a file by them before Finish).
  const std::vector<NameRecord>& names() const { return names_; }
  const std::vector<std::pair<EventId, int64_t>>& event_ranks() const { return event_ranks_; }
  const ChunkDefects& defects() const { return defects_; }

 private:
  void AppendNamesAndDefects(const ParsedChunk& c);
  void PairBeginEnd();
  // One pass over the events for what the steps below need from every row:
  // where each track's slices lie, the track kinds (ClassifyTrack), the
  // launches and flow events, and GPU activity counts.
  void Scan();
  void ClassifyTrack(EventId i, TrackId t, EventKind k);
  // After Scan: counts the synchronising runtime calls when the trace holds
  // no GPU sync event (kGpuSyncEventsAbsent).
  void NoteSyncEventsAbsent();
  void OrderTracks();
  void Nest();
  void LinkLaunches();
  void LinkFlows();
  void CollectSteps();
  void NameTracks();  // thread and process names onto the tracks

  Trace* trace_;
  bool xprof_json_ = false;
  bool top_level_array_ = false;
  bool autograd_profiler_ = false;
  std::vector<NameRecord> names_;                         // global track / string ids
  std::vector<std::pair<EventId, int64_t>> event_ranks_;  // args.rank, by event
  ChunkDefects defects_;
  int64_t crossing_slices_ = 0;
  bool saw_gpu_sync_ = false;  // a kGpuSync row (Scan)
  IdIndex launch_of_;          // correlation id -> launch event
  // Per event: GPU activity linked to its launch (empty when none is).
  std::vector<bool> launched_;

  // From Scan. Per track: its slices (not metadata, flows or E markers), and
  // the first row and one past the last row that holds one.
  std::vector<uint32_t> slices_;
  std::vector<EventId> first_slice_, end_slice_;
  // (PodColumn: a big one grows by mremap, not by copying into fresh pages.)
  PodColumn<EventId> launches_;  // launches with a correlation id, in row order
  int64_t first_launch_ = INT64_MAX;
  std::vector<EventId> flows_;  // flow events, in row order
  // GPU activity: rows with a correlation id (in row order), and counts of
  // the copies (memcpy / memset) and kernels without one.
  PodColumn<EventId> gpu_with_id_;
  int64_t copies_no_id_ = 0, kernels_no_id_ = 0;
  // From OrderTracks to Nest, per track: whether its slices are the rows
  // [first_slice_, end_slice_) (contiguous), left for Nest to order.
  std::vector<uint8_t> contiguous_;
};

}  // namespace th::kineto
