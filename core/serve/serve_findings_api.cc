#include "core/serve/serve_findings_api.h"

namespace th::serve {

ApiResponse FindingsResponse(const Runs& runs, const std::string& run_text, RunExtras* extras,
                             const FindingsSource& source, const std::string& origin) {
  ApiResponse error;
  const ServeRun* run = FindReadyRun(runs, run_text, &error);
  if (!run) return error;
  if (!source) return ErrorResponse(404, "findings: this server runs no pipeline");
  extras->findings().Start(source, *run, origin);
  std::string text;
  switch (extras->findings().state(&text)) {
    case FindingsTask::State::kDone: {
      ApiResponse r;
      r.body = std::move(text);
      return r;
    }
    case FindingsTask::State::kFailed:
      return ErrorResponse(500, std::string("findings: ") +
                                    (origin == "database" ? "reading the database failed: "
                                                          : "the pipeline failed: ") +
                                    text);
    default:
      return ErrorResponse(503, "findings: the pipeline is still running on run " + run_text);
  }
}

}  // namespace th::serve
