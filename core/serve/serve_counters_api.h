// GET /api/v1/runs/{run}/counters: the run's counter tracks (serve_counters.h);
// with track=T&t0&t1&width, track T's values per pixel bucket of the window
// (JSON).
#pragma once

#include <string>

#include "core/serve/serve_api.h"
#include "core/serve/serve_run_extras.h"

namespace th::serve {

// `extras`: the run's (null only when `run` names no run).
ApiResponse CountersResponse(const Runs& runs, const std::string& run, RunExtras* extras,
                             const QueryParams& params);

}  // namespace th::serve
