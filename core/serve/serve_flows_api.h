// GET /api/v1/runs/{run}/flows?t0&t1&width[&rows]: the run's flow and launch
// edges with an end in the window, bundled per pixel (serve_flows.h), JSON.
#pragma once

#include <string>

#include "core/serve/serve_api.h"
#include "core/serve/serve_run_extras.h"

namespace th::serve {

// `extras`: the run's (null only when `run` names no run).
ApiResponse FlowsResponse(const Runs& runs, const std::string& run, RunExtras* extras,
                          const QueryParams& params);

}  // namespace th::serve
