#include "core/serve/serve_counters_api.h"

#include <limits>

#include "core/serve/lod_viewport.h"

namespace th::serve {

ApiResponse CountersResponse(const Runs& runs, const std::string& run_text, RunExtras* extras,
                             const QueryParams& params) {
  ApiResponse error;
  const ServeRun* run = FindReadyRun(runs, run_text, &error);
  if (!run) return error;
  const CounterIndex& index = extras->Counters(*run);
  ApiResponse r;
  if (!params.count("track")) {
    r.body = CounterTracksJson(index);
    return r;
  }
  const int64_t tracks = static_cast<int64_t>(index.tracks().size());
  if (tracks == 0) return ErrorResponse(400, "track: the run has no counter tracks");
  auto track = IntParam(params, "track", 0, tracks - 1);
  if (!track.ok()) return ErrorResponse(400, track.status().message());
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  auto t0 = IntParam(params, "t0", kMin, kMax);
  if (!t0.ok()) return ErrorResponse(400, t0.status().message());
  auto t1 = IntParam(params, "t1", kMin, kMax);
  if (!t1.ok()) return ErrorResponse(400, t1.status().message());
  if (*t1 <= *t0) return ErrorResponse(400, "t1: must be greater than t0");
  auto width = IntParam(params, "width", 1, kMaxViewportWidth);
  if (!width.ok()) return ErrorResponse(400, width.status().message());
  const size_t t = static_cast<size_t>(*track);
  r.body = CounterJson(index, t, index.Query(t, *t0, *t1, *width));
  return r;
}

}  // namespace th::serve
