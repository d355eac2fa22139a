// The JSON of GET /api/v1/runs and GET /api/v1/runs/{run}/meta (docs/serve.md).
//
// Times are ns relative to the run's origin; origin_ns is a decimal string.
// Tracks (those with indexed events) are listed in display order: GPU streams
// (by device, stream), then CPU threads, counter tracks and the rest (by
// process, thread); `group` is [rank, device] or [rank, process].
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/serve/serve_run.h"

namespace th::serve {

std::string RunsJson(const std::vector<std::unique_ptr<ServeRun>>& runs);

// `run` must be ready.
std::string MetaJson(const ServeRun& run, size_t number);

}  // namespace th::serve
