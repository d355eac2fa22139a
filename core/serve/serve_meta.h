// The JSON of GET /api/v1/runs and GET /api/v1/runs/{run}/meta (docs/serve.md).
//
// Times are ns relative to the run's origin; origin_ns is a decimal string.
// Tracks (those with indexed events) are listed in display order: GPU streams
// (by device, stream), then CPU threads, counter tracks and the rest (by
// process, thread); `group` is [rank, device] or [rank, process]. Before a run is
// ready, /runs gives what its cached overview says (overview_ready), if any.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/serve/serve_run.h"

namespace th::serve {

// `visible` (when given, one per run) keeps the runs it marks.
std::string RunsJson(const std::vector<std::unique_ptr<ServeRun>>& runs,
                     const std::vector<bool>* visible = nullptr);

// `run` must be ready. MetaJson = MetaJsonHead + MetaJsonTail: the head
// (run number and name, the only parts that depend on how the run was
// started) is `{"run":N,"name":"NAME",`, the tail the rest.
std::string MetaJson(const ServeRun& run, size_t number);
std::string MetaJsonHead(size_t number, const std::string& name);
std::string MetaJsonTail(const ServeRun& run);

}  // namespace th::serve
