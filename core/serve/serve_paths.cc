#include "core/serve/serve_paths.h"

#include <map>

#include "core/plugin/plugin_host.h"
#include "core/serve/serve_critical_path_json.h"
#include "core/serve/serve_roofline_json.h"

namespace th::serve {
namespace {

std::map<std::string, OptionValue> Defaults(const LoadedPlugin& p) {
  std::map<std::string, OptionValue> out;
  for (const OptionDeclaration& o : p.declaration.options) out[o.name] = o.default_value;
  return out;
}

}  // namespace

StatusOr<PluginResults> RunPathsPlugins(const TraceSet& traces, const PluginRegistry& registry) {
  PluginResults results;
  for (const char* id : {"collectives", "critical-path", "roofline"}) {
    const LoadedPlugin* p = registry.Find(id);
    if (!p) return NotFound(std::string("paths: plugin '") + id + "' not found on the plugin path");
    PluginRunContext context;
    context.echo_log = false;
    Status s = RunPlugin(*p, traces, Defaults(*p), &results, context);
    if (!s.ok()) return s;
  }
  return results;
}

PathsTask::~PathsTask() {
  if (thread_.joinable()) thread_.join();
}

void PathsTask::Start(const PathsSource& source, const ServeRun& run) {
  std::lock_guard lock(mu_);
  if (state_ != State::kNotStarted || !source) return;
  state_ = State::kRunning;
  thread_ = std::thread([this, source, &run] {
    auto results = source(run.input(), run.imported());
    std::string path, roofline, error;
    if (results.ok()) {
      path = CriticalPathJson(run, *results);
      roofline = RooflineJson(*results);
    } else {
      error = results.status().message();
    }
    std::lock_guard done(mu_);
    state_ = results.ok() ? State::kDone : State::kFailed;
    critical_path_ = std::move(path);
    roofline_ = std::move(roofline);
    error_ = std::move(error);
  });
}

PathsTask::State PathsTask::state(Answer answer, std::string* json_or_error) const {
  std::lock_guard lock(mu_);
  if (json_or_error)
    *json_or_error = state_ == State::kFailed          ? error_
                     : answer == Answer::kCriticalPath ? critical_path_
                                                       : roofline_;
  return state_;
}

}  // namespace th::serve
