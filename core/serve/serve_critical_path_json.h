// GET /api/v1/runs/{run}/critical-path's answer, from the critical-path
// plugin's tables (plugins/critical-path/README.md): per path (a step on one
// rank, or across ranks: rank -1) its length, late start, waits and elapsed
// time, its split by category and (across ranks) by rank, the gating rank of
// each collective, and the events with an instant on it placed on the run as
// the viewer draws them: job-wide id, lane row, track, start relative to the
// run, and the path's category that takes most of the event's time ("none":
// the path has an instant on the event but none of its time). Every time is
// ns, measured (late_start: inferred).
#pragma once

#include <string>

#include "core/graph/analysis_results.h"
#include "core/serve/serve_run.h"

namespace th::serve {

// {"paths":[{"step","rank","path_ns","late_start_ns","waits_ns","elapsed_ns","events_on_path",
// "sync_edges","inferred_sync_edges","categories":[{"category","hta_bound","time_ns"}],
// "ranks":[{"rank","time_ns"}],"collectives":[{"collective","gating_rank","lead_ns",
// "transfer_ns","on_path"}],"events":[{"id","row","rank","track","start_ns","dur_ns",
// "time_ns","category","name"}],"unplaced"}]}; `unplaced`: events of the path the run
// has no lane for (or whose time differs from the run's event: another import).
std::string CriticalPathJson(const ServeRun& run, const PluginResults& results);

}  // namespace th::serve
