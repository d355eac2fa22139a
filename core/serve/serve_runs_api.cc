#include "core/serve/serve_runs_api.h"

#include <algorithm>
#include <sstream>

#include "core/report/json_writer.h"
#include "core/serve/serve_overview.h"

namespace th::serve {
namespace {

void WriteLiveFields(JsonWriter& w, const ServeRun& run) {
  const bool ready = run.ready();
  const RunOverview* early = ready ? nullptr : run.overview();
  int64_t events = 0, origin = 0, end = 0;
  std::string key;
  if (ready) {
    events = static_cast<int64_t>(run.graph().events.size());
    origin = run.origin_ns();
    end = run.end_rel_ns();
    key = run.content_key();
  } else if (early) {
    events = static_cast<int64_t>(early->events);
    origin = early->origin_ns;
    end = early->end_rel_ns;
    key = early->content_key;
  }
  w.Field("events", events).Field("origin_ns", std::to_string(origin));
  w.Field("end_ns", end).Field("content_key", key);
  w.Field("ready", ready).Field("overview_ready", ready || early != nullptr);
  w.Key("error");
  run.failed() ? w.String(run.load_error()) : w.Null();
}

}  // namespace

RunSummary LiveSummary(const ServeRun& run, RunSummary s, const FindingsTask* findings) {
  if (s.name.empty()) s.name = run.name();
  if (s.source.empty()) s.source = "files";
  if (s.source != "files") return s;
  if (run.ready()) {
    s.ranks = static_cast<int64_t>(run.ranks().size());
    std::vector<int64_t> durations;
    for (const Step& step : run.graph().steps) durations.push_back(step.dur);
    if (!durations.empty()) {
      s.steps = static_cast<int64_t>(durations.size());
      s.step_min_ns = *std::min_element(durations.begin(), durations.end());
      s.step_max_ns = *std::max_element(durations.begin(), durations.end());
      s.step_p50_ns = LowerMedian(std::move(durations));
    }
  }
  if (const auto digest = findings ? findings->digest() : std::nullopt) {
    s.findings = digest->count;
    s.top = digest->top;
    s.verdict = digest->problem ? "NEEDS_ATTENTION" : "OPTIMAL";
  }
  return s;
}

ApiResponse RunsResponse(const Runs& runs, std::vector<RunSummary> summaries,
                         const QueryParams& params, const std::vector<bool>* visible) {
  for (size_t k = summaries.size(); k < runs.size(); ++k)
    summaries.push_back(LiveSummary(*runs[k], {}, nullptr));
  auto query = ParseRunListQuery(params);
  if (!query.ok()) return ErrorResponse(400, query.status().message());
  std::vector<size_t> picked = SelectRuns(summaries, *query);
  if (visible)
    std::erase_if(picked, [visible](size_t k) { return k >= visible->size() || !(*visible)[k]; });
  const size_t first = std::min(picked.size(), static_cast<size_t>(query->offset));
  size_t last = picked.size();
  if (query->limit) last = std::min(last, first + static_cast<size_t>(*query->limit));
  std::ostringstream out;
  {
    JsonWriter w(out, JsonStyle::kCompact);
    w.BeginObject().Key("runs").BeginArray();
    for (size_t k = first; k < last; ++k) {
      const size_t number = picked[k];
      w.BeginObject().Field("run", static_cast<int64_t>(number));
      w.Field("name", summaries[number].name);
      WriteLiveFields(w, *runs[number]);
      WriteRunSummaryFields(w, summaries[number]);
      w.EndObject();
    }
    w.EndArray().Field("total", static_cast<int64_t>(picked.size()));
    w.Field("offset", static_cast<int64_t>(first)).EndObject();
  }
  ApiResponse r;
  r.body = out.str();
  return r;
}

}  // namespace th::serve
