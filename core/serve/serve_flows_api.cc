#include "core/serve/serve_flows_api.h"

#include <limits>

#include "core/serve/lod_viewport.h"

namespace th::serve {

ApiResponse FlowsResponse(const Runs& runs, const std::string& run_text, RunExtras* extras,
                          const QueryParams& params) {
  ApiResponse error;
  const ServeRun* run = FindReadyRun(runs, run_text, &error);
  if (!run) return error;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  FlowQuery q;
  auto t0 = IntParam(params, "t0", kMin, kMax);
  if (!t0.ok()) return ErrorResponse(400, t0.status().message());
  auto t1 = IntParam(params, "t1", kMin, kMax);
  if (!t1.ok()) return ErrorResponse(400, t1.status().message());
  if (*t1 <= *t0) return ErrorResponse(400, "t1: must be greater than t0");
  auto width = IntParam(params, "width", 1, kMaxViewportWidth);
  if (!width.ok()) return ErrorResponse(400, width.status().message());
  q.t0 = *t0;
  q.t1 = *t1;
  q.width = *width;
  if (params.count("rows") && params.find("rows")->second != "all") {
    auto rows = RowsParam(params, run->index().row_count());
    if (!rows.ok()) return ErrorResponse(400, rows.status().message());
    q.row_mask.assign(run->index().row_count(), false);
    for (uint32_t r : *rows) q.row_mask[r] = true;
  }
  ApiResponse r;
  r.body = FlowsJson(QueryFlows(extras->Flows(*run), q));
  return r;
}

}  // namespace th::serve
