// GET /api/v1/runs/{run}/critical-path and /roofline: the run's critical path
// and roofline (serve_paths.h); asking starts the plugins when they have not
// started, 503 while they run (the router adds Retry-After), 500 naming the
// failure, 404 when the server has no plugins to run.
#pragma once

#include <string>

#include "core/serve/serve_api.h"
#include "core/serve/serve_paths.h"
#include "core/serve/serve_run_extras.h"

namespace th::serve {

// `extras`: the run's (null only when `run` names no run).
ApiResponse PathsResponse(const Runs& runs, const std::string& run, RunExtras* extras,
                          const PathsSource& source, PathsTask::Answer answer);

}  // namespace th::serve
