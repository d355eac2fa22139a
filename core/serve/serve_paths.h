// The critical path and the roofline of one run, for the viewer: the
// critical-path and roofline plugins (after collectives, whose tables the
// path across ranks reads) run once per run, in the background, on the first
// request; their tables become two JSON answers (serve_critical_path_json.h,
// serve_roofline_json.h).
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "core/graph/analysis_results.h"
#include "core/graph/status.h"
#include "core/plugin/plugin_loader.h"
#include "core/serve/serve_run.h"

namespace th::serve {

// Runs the plugins of RunPathsPlugins on a run: on `loaded`, the run's traces
// as imported, when not null; else on its input, imported again (a run of
// several ranks holds their merged graph, not theirs).
using PathsSource =
    std::function<StatusOr<PluginResults>(const std::string& input, const TraceSet* loaded)>;

// collectives, critical-path and roofline from `registry`, each with its
// default options; an error names the plugin that is missing or failed.
StatusOr<PluginResults> RunPathsPlugins(const TraceSet& traces, const PluginRegistry& registry);

class PathsTask {
 public:
  enum class State { kNotStarted, kRunning, kDone, kFailed };
  enum class Answer { kCriticalPath, kRoofline };

  PathsTask() = default;
  ~PathsTask();  // waits for running plugins
  PathsTask(const PathsTask&) = delete;
  PathsTask& operator=(const PathsTask&) = delete;

  // Starts the plugins on a thread of its own (the first call only); `run`
  // must be ready and outlive the task.
  void Start(const PathsSource& source, const ServeRun& run);
  // The state and, when done, the JSON answer asked for or, when failed, the error.
  State state(Answer answer, std::string* json_or_error) const;

 private:
  mutable std::mutex mu_;
  State state_ = State::kNotStarted;
  std::string critical_path_, roofline_, error_;
  std::thread thread_;
};

}  // namespace th::serve
