// GraphBuilder: appends parsed chunks to one EventGraph in file order
// (Phase 1), then derives what needs the whole trace (Phase 2, Finish):
// B/E pairing, per-track time order, nesting (parent, depth), launch and flow
// edges, ProfilerStep windows, track kinds and names, and the trust entries
// that only the whole trace can count (kernels with no launch, orphan flows).
#pragma once

#include <unordered_map>
#include <vector>

#include "core/graph/id_index.h"
#include "core/graph/trace.h"
#include "core/import/kineto/parsed_chunk.h"

namespace th::kineto {

class GraphBuilder {
 public:
  explicit GraphBuilder(Trace* trace) : trace_(trace) {}

  // The chunks hold an XProf JSON trace: Finish maps device-plane events
  // (xprof_json.h) before it derives anything.
  void SetXprofJson() { xprof_json_ = true; }
  // Phase 1: chunks must arrive in sequence order.
  void Append(ParsedChunk&& chunk);
  // Phase 2. `tracks`: every track id the chunks used, by id.
  void Finish(const std::vector<TrackKey>& tracks);

 private:
  void AppendNamesAndDefects(const ParsedChunk& c);
  void PairBeginEnd();
  void OrderTracks();
  void Nest();
  void LinkLaunches();
  void LinkFlows();
  void CollectSteps();
  void ClassifyTracks();

  Trace* trace_;
  bool xprof_json_ = false;
  std::vector<NameRecord> names_;  // global track / string ids
  ChunkDefects defects_;
  int64_t crossing_slices_ = 0;
  IdIndex launch_of_;           // correlation id -> launch event
  std::vector<bool> launched_;  // per event: GPU activity linked to its launch
};

}  // namespace th::kineto
