// The findings of the default pipeline for one run, computed once in the
// background after the run is ready: a FindingsSource (given by the command,
// which knows where the pipeline and plugins are) runs the pipeline on the
// run's input; the answer is kept as JSON with each finding's place on the
// run's relative clock: its own range, else the span of its steps, else the
// span of the events of its device (or stream), else the whole run.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/graph/analysis_results.h"
#include "core/graph/status.h"
#include "core/serve/run_list.h"
#include "core/serve/serve_run.h"

namespace th::serve {

// Runs the default pipeline on a run and returns its findings: on `loaded`,
// the run's traces as imported, when not null; else on its input, imported
// again (a run of several ranks holds their merged graph, not theirs).
using FindingsSource =
    std::function<StatusOr<std::vector<Finding>>(const std::string& input, const TraceSet* loaded)>;

// What the run list shows of a run's findings.
struct FindingsDigest {
  int64_t count = 0;
  bool problem = false;  // a P0, P1 or P2 finding
  std::optional<TopFinding> top;
};

FindingsDigest DigestOf(const std::vector<Finding>& findings);

class FindingsTask {
 public:
  enum class State { kNotStarted, kRunning, kDone, kFailed };

  FindingsTask() = default;
  ~FindingsTask();  // waits for a running pipeline
  FindingsTask(const FindingsTask&) = delete;
  FindingsTask& operator=(const FindingsTask&) = delete;

  // Starts the pipeline on a thread of its own (the first call only); `run`
  // must be ready and outlive the task. `origin` names where the findings
  // come from in the answer ("pipeline", "database").
  void Start(const FindingsSource& source, const ServeRun& run, std::string origin = "pipeline");
  // The state and, when done, the JSON answer or, when failed, the error.
  State state(std::string* json_or_error) const;
  // Once done: the count and most severe finding.
  std::optional<FindingsDigest> digest() const;

 private:
  mutable std::mutex mu_;
  State state_ = State::kNotStarted;
  std::string text_;
  std::optional<FindingsDigest> digest_;
  std::thread thread_;
};

// {"findings":[{"index","plugin","severity","title","what","suggestion",
// "confidence","scope":{…},"start_ns","end_ns","place","evidence":[…]}],
// "total","source"}; start_ns/end_ns relative to the run, `place` what they come from
// ("range", "steps", "scope", "run"); `source` is `origin`.
std::string FindingsJson(const ServeRun& run, const std::vector<Finding>& findings,
                         const std::string& origin = "pipeline");

}  // namespace th::serve
