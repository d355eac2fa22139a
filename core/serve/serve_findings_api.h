// GET /api/v1/runs/{run}/findings: the default pipeline's findings of the
// run (serve_findings.h); 503 while the pipeline runs (asking starts it when
// it has not started), 500 naming the failure, 404 when the server has no
// pipeline to run.
#pragma once

#include <string>

#include "core/serve/serve_api.h"
#include "core/serve/serve_findings.h"
#include "core/serve/serve_run_extras.h"

namespace th::serve {

// `extras`: the run's (null only when `run` names no run).
// `origin`: where `source` takes the findings from ("pipeline", "database").
ApiResponse FindingsResponse(const Runs& runs, const std::string& run, RunExtras* extras,
                             const FindingsSource& source, const std::string& origin = "pipeline");

}  // namespace th::serve
