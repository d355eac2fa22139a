#include "core/serve/serve_router.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string_view>

#include "core/serve/response_gzip.h"
#include "core/serve/serve_api.h"
#include "core/serve/serve_counters_api.h"
#include "core/serve/serve_findings_api.h"
#include "core/serve/serve_flows_api.h"
#include "core/serve/serve_paths_api.h"
#include "core/serve/serve_runs_api.h"
#include "core/serve/serve_share_api.h"
#include "core/serve/web_assets.h"

namespace th::serve {
namespace {

constexpr const char* kCsp =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const char* StatusText(int status) {
  switch (status) {
    case 401:
      return "token: missing or wrong (send Authorization: Bearer TOKEN or ?token=TOKEN)";
    case 404:
      return "path: not found";
    case 405:
      return "method: only GET and HEAD are allowed";
    case 414:
      return "url: longer than 8 KiB";
    case 429:
      return "rate: too many requests from this client";
    default:
      return "request: refused";
  }
}

// The page's scripts and styles cannot send the token: a page's answer ("/"
// or an .html asset: the run list, the diff view) sets it as a cookie (HttpOnly, SameSite=Strict)
// that their requests carry.
constexpr std::string_view kTokenCookie = "th_token";

// The value of cookie `name` in a Cookie header ("a=1; b=2"), or "".
std::string_view CookieValue(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    const size_t end = std::min(header.find(';'), header.size());
    std::string_view pair = header.substr(0, end);
    header.remove_prefix(std::min(end + 1, header.size()));
    while (pair.starts_with(' ')) pair.remove_prefix(1);
    if (pair.size() > name.size() && pair.starts_with(name) && pair[name.size()] == '=')
      return pair.substr(name.size() + 1);
  }
  return {};
}

HttpResponse ToHttp(ApiResponse a) {
  HttpResponse r;
  r.status = a.status;
  r.headers.push_back({"Cache-Control", a.cache_control});
  if (!a.etag.empty()) r.headers.push_back({"ETag", a.etag});
  if (a.status != 304) {
    r.body = std::move(a.body);
    r.content_type = std::move(a.content_type);
  }
  return r;
}

HttpResponse Error(int status) { return ToHttp(ErrorResponse(status, StatusText(status))); }

int64_t NowUnixSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The path's parts after "/api/v1/runs/", split at '/'.
std::vector<std::string> RunPathParts(std::string_view path) {
  std::vector<std::string> parts;
  constexpr std::string_view kPrefix = "/api/v1/runs/";
  if (!path.starts_with(kPrefix)) return parts;
  path.remove_prefix(kPrefix.size());
  while (true) {
    const size_t slash = path.find('/');
    parts.emplace_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

}  // namespace

ServeRouter::ServeRouter(const std::vector<std::unique_ptr<ServeRun>>* runs, ServeAccess access,
                         FindingsSource findings, RunBrowser browser)
    : runs_(runs),
      access_(std::move(access)),
      limiter_(access_.requests_per_second, access_.request_burst),
      findings_(std::move(findings)),
      browser_(std::move(browser)),
      diffs_(std::make_unique<DiffViews>(browser_.diff_plugins)) {
  for (size_t k = 0; k < runs_->size(); ++k) extras_.push_back(std::make_unique<RunExtras>());
}

HttpResponse ServeRouter::Handle(const HttpRequest& req) {
  HttpResponse r;
  if (req.error_status)
    r = Error(req.error_status);
  else if (req.target.size() > kMaxUrlBytes)
    r = Error(414);
  else if (req.method != "GET" && req.method != "HEAD")
    r = Error(405);
  else if (!limiter_.Allow(req.remote_addr))
    r = Error(429);
  else if (!access_.token.empty()) {
    std::string given;
    if (req.authorization.starts_with("Bearer ")) given = req.authorization.substr(7);
    auto param = req.params.find("token");
    if (given.empty() && param != req.params.end()) given = param->second;
    if (given.empty()) given = std::string(CookieValue(req.cookie, kTokenCookie));
    r = Authorised(req, given);
    if (r.status == 200 && (req.path == "/" || req.path.ends_with(".html")))
      r.headers.push_back({"Set-Cookie", std::string(kTokenCookie) + "=" + given +
                                             "; Path=/; HttpOnly; SameSite=Strict"});
  } else {
    r = Route(req);
  }
  if (r.status == 405) r.headers.push_back({"Allow", "GET, HEAD"});
  r.headers.push_back({"X-Content-Type-Options", "nosniff"});
  GzipIfWorthIt(req, &r);
  return r;
}

HttpResponse ServeRouter::Authorised(const HttpRequest& req, const std::string& given) const {
  if (TokensEqual(given, access_.token)) return Route(req);
  if (!access_.share || given.find('.') == std::string::npos) return Error(401);
  const ShareVerdict v = access_.share->Check(given, NowUnixSeconds());
  if (v.check != ShareCheck::kOk) return ToHttp(ErrorResponse(401, v.message));
  return RouteShared(req, v.claims);
}

HttpResponse ServeRouter::RouteShared(const HttpRequest& req, const ShareClaims& claims) const {
  const std::vector<bool> visible = VisibleRuns(*runs_, browser_.summaries, claims);
  if (req.path == "/api/v1/runs")
    return ToHttp(RunsResponse(*runs_, Summaries(), req.params, &visible));
  auto unseen = [&](const std::string& run) -> std::optional<HttpResponse> {
    const auto n = ParseInt64(run);
    const bool seen = n && *n >= 0 && static_cast<uint64_t>(*n) < visible.size() &&
                      visible[static_cast<size_t>(*n)];
    if (seen) return std::nullopt;
    return ToHttp(ErrorResponse(404, "run: this link shows no run " + std::string(n ? run : "?")));
  };
  const std::vector<std::string> parts = RunPathParts(req.path);
  if (!parts.empty()) {
    if (auto refused = unseen(parts[0])) return *refused;
    return Route(req);
  }
  if (req.path == "/api/v1/diff") {  // both runs must be the link's
    for (const char* side : {"a", "b"}) {
      auto it = req.params.find(side);
      if (auto refused = unseen(it == req.params.end() ? "" : it->second)) return *refused;
    }
    return Route(req);
  }
  if (req.path.starts_with("/api/"))
    return ToHttp(ErrorResponse(403, "scope: a share link reads the runs it names, nothing else"));
  return Route(req);
}

void ServeRouter::RunReady(size_t run) {
  if (run >= extras_.size() || !(*runs_)[run]->ready()) return;
  auto [source, origin] = FindingsOf(run);
  if (source) extras_[run]->findings().Start(source, *(*runs_)[run], origin);
}

std::pair<FindingsSource, std::string> ServeRouter::FindingsOf(size_t run) const {
  if (run < browser_.summaries.size() && browser_.stored_findings &&
      !browser_.summaries[run].db_run_id.empty()) {
    auto stored = browser_.stored_findings;
    std::string id = browser_.summaries[run].db_run_id;
    FindingsSource source = [stored, id](const std::string&, const TraceSet*) {
      return stored(id);
    };
    return {source, "database"};
  }
  return {findings_, "pipeline"};
}

void ServeRouter::OpenOnRequest(const std::string& run) const {
  const auto n = ParseInt64(run);
  if (!browser_.open_run || !n || *n < 0 || static_cast<uint64_t>(*n) >= runs_->size()) return;
  const ServeRun& r = *(*runs_)[static_cast<size_t>(*n)];
  if (!r.ready() && !r.failed()) browser_.open_run(static_cast<size_t>(*n));
}

std::vector<RunSummary> ServeRouter::Summaries() const {
  std::vector<RunSummary> out;
  out.reserve(runs_->size());
  for (size_t k = 0; k < runs_->size(); ++k)
    out.push_back(LiveSummary(*(*runs_)[k],
                              k < browser_.summaries.size() ? browser_.summaries[k] : RunSummary{},
                              &extras_[k]->findings()));
  return out;
}

RunExtras* ServeRouter::ExtrasOf(const std::string& run) const {
  const auto n = ParseInt64(run);
  if (!n || *n < 0 || static_cast<uint64_t>(*n) >= extras_.size()) return nullptr;
  return extras_[static_cast<size_t>(*n)].get();
}

HttpResponse ServeRouter::DiffAnswer(const HttpRequest& req) const {
  for (const char* side : {"a", "b"})
    if (auto it = req.params.find(side); it != req.params.end()) OpenOnRequest(it->second);
  HttpResponse r = ToHttp(diffs_->Answer(*runs_, req.params));
  if (r.status == 503) r.headers.push_back({"Retry-After", "1"});
  return r;
}

HttpResponse ServeRouter::Route(const HttpRequest& req) const {
  const Runs& runs = *runs_;
  if (req.path == "/api/v1/runs") return ToHttp(RunsResponse(runs, Summaries(), req.params));
  if (req.path == "/api/v1/diff") return DiffAnswer(req);
  if (req.path == "/api/v1/share")
    return ToHttp(
        ShareResponse(runs, browser_.summaries, access_.share, req.params, NowUnixSeconds()));
  const std::vector<std::string> parts = RunPathParts(req.path);
  if (!parts.empty()) OpenOnRequest(parts[0]);
  if (parts.size() == 2) {
    const std::string& run = parts[0];
    const std::string& what = parts[1];
    if (what == "meta") return ToHttp(MetaResponse(runs, run));
    if (what == "viewport") return ToHttp(ViewportResponse(runs, run, req.params));
    if (what == "tile") return ToHttp(TileResponse(runs, run, req.params, req.if_none_match));
    if (what == "bucket") return ToHttp(BucketResponse(runs, run, req.params));
    if (what == "search") return ToHttp(SearchResponse(runs, run, req.params));
    if (what == "flows") return ToHttp(FlowsResponse(runs, run, ExtrasOf(run), req.params));
    if (what == "counters") return ToHttp(CountersResponse(runs, run, ExtrasOf(run), req.params));
    if (what == "critical-path" || what == "roofline") {
      HttpResponse r = ToHttp(PathsResponse(
          runs, run, ExtrasOf(run), browser_.paths,
          what == "roofline" ? PathsTask::Answer::kRoofline : PathsTask::Answer::kCriticalPath));
      if (r.status == 503) r.headers.push_back({"Retry-After", "1"});
      return r;
    }
    if (what == "findings") {
      const auto n = ParseInt64(run);
      const bool valid = n && *n >= 0 && static_cast<uint64_t>(*n) < runs.size();
      auto [source, origin] = valid ? FindingsOf(static_cast<size_t>(*n))
                                    : std::pair<FindingsSource, std::string>{findings_, ""};
      return ToHttp(FindingsResponse(runs, run, ExtrasOf(run), source, origin));
    }
  } else if (parts.size() == 3 && parts[1] == "events") {
    return ToHttp(EventResponse(runs, parts[0], parts[2]));
  }
  const WebAsset* asset = FindWebAsset(req.path);
  if (!asset) return Error(404);
  HttpResponse r;
  r.body = std::string(asset->body);
  r.content_type = std::string(asset->content_type);
  // A page URL holds the token: no Referer carries it anywhere.
  r.headers = {{"Content-Security-Policy", kCsp},
               {"Cache-Control", "no-cache"},
               {"Referrer-Policy", "no-referrer"}};
  return r;
}

}  // namespace th::serve
