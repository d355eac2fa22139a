// GET /api/v1/runs: the run list of the run browser, sorted, filtered and
// paged on the server (run_list.h). Per run: {"run","name","events",
// "origin_ns","end_ns","content_key","ready","overview_ready","error", the
// summary's fields (WriteRunSummaryFields)}; then "total" (the runs that match)
// and "offset". Before a run is ready its events, origin and end are what its
// cached overview says (overview_ready), if any; "error" says why a run that
// was opened could not be loaded (null otherwise).
#pragma once

#include <string>
#include <vector>

#include "core/serve/run_list.h"
#include "core/serve/serve_api.h"
#include "core/serve/serve_findings.h"

namespace th::serve {

// The summary of `run` as known now: `base` (from the database or the files)
// completed, for a run of files, by what its import and findings say (ranks,
// steps, verdict, top finding); `findings` may be null.
RunSummary LiveSummary(const ServeRun& run, RunSummary base, const FindingsTask* findings);

// `summaries`: one per run (LiveSummary); runs past its end get their name
// only. `visible` (when given, one per run: a share token's runs) keeps the
// runs it marks. A bad parameter is 400 naming it.
ApiResponse RunsResponse(const Runs& runs, std::vector<RunSummary> summaries,
                         const QueryParams& params, const std::vector<bool>* visible = nullptr);

}  // namespace th::serve
