#include "core/serve/serve_paths_api.h"

namespace th::serve {

ApiResponse PathsResponse(const Runs& runs, const std::string& run_text, RunExtras* extras,
                          const PathsSource& source, PathsTask::Answer answer) {
  const char* what = answer == PathsTask::Answer::kCriticalPath ? "critical-path" : "roofline";
  ApiResponse error;
  const ServeRun* run = FindReadyRun(runs, run_text, &error);
  if (!run) return error;
  if (!source) return ErrorResponse(404, std::string(what) + ": this server runs no plugins");
  extras->paths().Start(source, *run);
  std::string text;
  switch (extras->paths().state(answer, &text)) {
    case PathsTask::State::kDone: {
      ApiResponse r;
      r.body = std::move(text);
      return r;
    }
    case PathsTask::State::kFailed:
      return ErrorResponse(500, std::string(what) + ": the plugins failed: " + text);
    default:
      return ErrorResponse(
          503, std::string(what) + ": the plugins are still running on run " + run_text);
  }
}

}  // namespace th::serve
