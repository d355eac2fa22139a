#include "core/serve/serve_findings.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include "core/graph/finding_severity.h"
#include "core/report/finding_json.h"
#include "core/report/json_writer.h"

namespace th::serve {
namespace {

using Window = std::optional<std::pair<int64_t, int64_t>>;

void Widen(Window* w, int64_t start, int64_t end) {
  *w = *w ? std::pair{std::min((*w)->first, start), std::max((*w)->second, end)}
          : std::pair{start, end};
}

// The span of the events on the GPU streams of the finding's device (and
// stream, when it names one).
Window ScopeSpan(const EventGraph& g, const ReportScope& scope) {
  Window w;
  for (TrackId t = 0; t < g.tracks.size(); ++t) {
    const Track& track = g.tracks[t];
    if (track.kind != TrackKind::kGpuStream || track.device != scope.device) continue;
    if (scope.stream >= 0 && track.stream != scope.stream) continue;
    const auto events = g.TrackEvents(t);
    for (uint32_t k = 0; k < events.size(); ++k) {
      const EventId e = events[k];
      Widen(&w, g.events.ts[e], g.events.ts[e] + std::max<int64_t>(0, g.events.dur[e]));
    }
  }
  return w;
}

// The finding's place on the trace's clock and what it comes from: its
// range, else the span of its steps, else the span of its device's (or
// stream's) events, else the whole run.
std::pair<Window, const char*> Place(const ServeRun& run, const Finding& f) {
  if (f.range) return {f.range, "range"};
  Window w;
  if (f.scope.step_first >= 0) {
    const int64_t last = f.scope.step_last < 0 ? f.scope.step_first : f.scope.step_last;
    for (const Step& s : run.graph().steps)
      if (s.number >= f.scope.step_first && s.number <= last)
        Widen(&w, s.ts, s.ts + std::max<int64_t>(0, s.dur));
    if (w) return {w, "steps"};
  }
  if (f.scope.device >= 0) {
    w = ScopeSpan(run.graph(), f.scope);
    if (w) return {w, "scope"};
  }
  return {std::pair{run.origin_ns(), run.origin_ns() + run.end_rel_ns()}, "run"};
}

}  // namespace

FindingsTask::~FindingsTask() {
  if (thread_.joinable()) thread_.join();
}

FindingsDigest DigestOf(const std::vector<Finding>& findings) {
  FindingsDigest d;
  d.count = static_cast<int64_t>(findings.size());
  for (const Finding& f : findings) {
    const int64_t severity = static_cast<int64_t>(f.severity);
    d.problem = d.problem || IsProblem(f.severity);
    if (!d.top || severity < d.top->severity) d.top = TopFinding{severity, f.plugin, f.title};
  }
  return d;
}

void FindingsTask::Start(const FindingsSource& source, const ServeRun& run, std::string origin) {
  std::lock_guard lock(mu_);
  if (state_ != State::kNotStarted || !source) return;
  state_ = State::kRunning;
  thread_ = std::thread([this, source, &run, origin = std::move(origin)] {
    auto findings = source(run.input(), run.imported());
    std::string text =
        findings.ok() ? FindingsJson(run, *findings, origin) : findings.status().message();
    std::lock_guard done(mu_);
    state_ = findings.ok() ? State::kDone : State::kFailed;
    if (findings.ok()) digest_ = DigestOf(*findings);
    text_ = std::move(text);
  });
}

std::optional<FindingsDigest> FindingsTask::digest() const {
  std::lock_guard lock(mu_);
  return digest_;
}

FindingsTask::State FindingsTask::state(std::string* json_or_error) const {
  std::lock_guard lock(mu_);
  if (json_or_error) *json_or_error = text_;
  return state_;
}

std::string FindingsJson(const ServeRun& run, const std::vector<Finding>& findings,
                         const std::string& origin) {
  std::ostringstream out;
  {
    JsonWriter w(out, JsonStyle::kCompact);
    w.BeginObject().Key("findings").BeginArray();
    for (size_t k = 0; k < findings.size(); ++k) {
      const Finding& f = findings[k];
      w.BeginObject().Field("index", static_cast<int64_t>(k)).Field("plugin", f.plugin);
      w.Field("severity", SeverityLabel(f.severity)).Field("title", f.title);
      w.Field("what", f.what).Field("suggestion", f.suggestion).Field("confidence", f.confidence);
      w.Key("scope");
      WriteScopeJson(w, f.scope);
      const auto [window, place] = Place(run, f);
      w.Field("start_ns", run.Relative(window->first));
      w.Field("end_ns", run.Relative(window->second)).Field("place", place);
      w.Key("evidence");
      WriteEvidenceJson(w, f.evidence);
      w.EndObject();
    }
    w.EndArray().Field("total", static_cast<int64_t>(findings.size()));
    w.Field("source", origin).EndObject();
  }
  return out.str();
}

}  // namespace th::serve
