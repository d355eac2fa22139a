// ServeRouter: every HTTP request of `tracehound serve`, answered: access
// checks, limits, routing to the API (serve_api.h) and the viewer's assets.
//
// Checked on every request, in this order: URL over kMaxUrlBytes (414),
// a method other than GET/HEAD (405), the client's rate (429, a token
// bucket per client address), the token when one is set (401: header
// "Authorization: Bearer T", query token=T or the page's cookie). T is the
// admin token (everything) or a share token (share_token.h) when the server
// has a share key: read-only, its runs alone (serve_share_api.h; /diff only
// when it names both runs), the page and its assets; any other API path is 403. Unknown paths are
// 404. Errors are {"error": "..."} naming the parameter. Every response has X-Content-Type-Options:
// nosniff; the viewer's files the CSP of the API contract. Thread-safe: handlers only read the
// runs.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/serve/http_module.h"
#include "core/serve/run_list.h"
#include "core/serve/serve_access.h"
#include "core/serve/serve_diff.h"
#include "core/serve/serve_paths.h"
#include "core/serve/serve_run.h"
#include "core/serve/serve_run_extras.h"
#include "core/serve/share_keys.h"

namespace th::serve {

inline constexpr size_t kMaxUrlBytes = 8192;

struct ServeAccess {
  std::string token;                      // the admin token; "" = none
  const ShareAuthority* share = nullptr;  // checks share tokens when a token is set
  double requests_per_second = 500;
  double request_burst = 1000;
};

// The run browser's parts of a server (docs/serve.md, "The run browser").
struct RunBrowser {
  // One per run (same order), or empty: each run's name only until it loads.
  std::vector<RunSummary> summaries;
  // Queues the import of a run that is neither ready nor failed, called on
  // each request for one of its endpoints; null: the runs load at start.
  std::function<void(size_t run)> open_run = nullptr;
  // The stored findings of a database run (RunSummary::db_run_id); a run that
  // has them answers /findings from them ("source":"database"), not from the
  // pipeline.
  std::function<StatusOr<std::vector<Finding>>(const std::string& db_run_id)> stored_findings =
      nullptr;
  // Runs the diff's plugins for /api/v1/diff (serve_diff.h); null: 404.
  DiffPluginsSource diff_plugins = nullptr;
  // Runs the critical-path and roofline plugins for /critical-path and
  // /roofline (serve_paths.h), on a run's first such request; null: 404.
  PathsSource paths = nullptr;
};

class ServeRouter {
 public:
  // `runs` must outlive the router and not be resized while it answers.
  ServeRouter(const std::vector<std::unique_ptr<ServeRun>>* runs, ServeAccess access,
              FindingsSource findings = nullptr, RunBrowser browser = {});
  HttpResponse Handle(const HttpRequest& request);
  // Starts the findings of run `run` (now ready) in the background.
  void RunReady(size_t run);

 private:
  HttpResponse Route(const HttpRequest& request) const;
  // GET /api/v1/diff (serve_diff.h); opens both runs when they load lazily.
  HttpResponse DiffAnswer(const HttpRequest& request) const;
  // What a share token's bearer may ask: the page, assets and its runs.
  HttpResponse RouteShared(const HttpRequest& request, const ShareClaims& claims) const;
  // The answer to a request with a token set: admin, share token or 401.
  HttpResponse Authorised(const HttpRequest& request, const std::string& given) const;
  // The extras of run number `run`, or null when there is no such run.
  RunExtras* ExtrasOf(const std::string& run) const;
  // Where run `run`'s findings come from: the database's rows or the pipeline.
  std::pair<FindingsSource, std::string> FindingsOf(size_t run) const;
  // Queues the import of the run a /api/v1/runs/{run}/... path names.
  void OpenOnRequest(const std::string& run) const;
  std::vector<RunSummary> Summaries() const;
  const std::vector<std::unique_ptr<ServeRun>>* runs_;
  ServeAccess access_;
  RateLimiter limiter_;
  FindingsSource findings_;
  RunBrowser browser_;
  std::vector<std::unique_ptr<RunExtras>> extras_;  // one per run
  std::unique_ptr<DiffViews> diffs_;
};

}  // namespace th::serve
