#include "core/serve/serve_share_api.h"

#include <sstream>

#include "core/report/json_writer.h"
#include "core/serve/serve_overview.h"

namespace th::serve {

std::string KnownContentKey(const ServeRun& run) {
  if (run.ready()) return run.content_key();
  const RunOverview* early = run.overview();
  return early ? early->content_key : "";
}

std::string FleetContentHash(const RunSummary& summary) {
  const std::string hash = summary.db_run_id.substr(0, summary.db_run_id.find(':'));
  return IsHex32(hash) ? hash : "";
}

std::vector<bool> VisibleRuns(const Runs& runs, const std::vector<RunSummary>& summaries,
                              const ShareClaims& claims) {
  std::vector<bool> visible(runs.size(), false);
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string key = KnownContentKey(*runs[i]);
    const std::string fleet = i < summaries.size() ? FleetContentHash(summaries[i]) : "";
    for (const std::string& named : claims.runs)
      visible[i] =
          visible[i] || (!key.empty() && key == named) || (!fleet.empty() && fleet == named);
  }
  return visible;
}

namespace {

// The content keys of the runs `text` lists ("0,2"), or an error response.
StatusOr<std::vector<std::string>> RunKeys(const Runs& runs,
                                           const std::vector<RunSummary>& summaries,
                                           std::string_view text) {
  std::vector<std::string> keys;
  while (!text.empty() || keys.empty()) {
    const size_t comma = text.find(',');
    const std::string_view part = text.substr(0, comma);
    const auto n = ParseInt64(part);
    if (!n || *n < 0 || static_cast<uint64_t>(*n) >= runs.size())
      return InvalidInput("runs: " + std::string(part.size() > 20 ? "?" : part) +
                          " is not a run number");
    const size_t k = static_cast<size_t>(*n);
    // A database run is named by its fleet hash, known before it is opened.
    const std::string fleet = k < summaries.size() ? FleetContentHash(summaries[k]) : "";
    const std::string key = fleet.empty() ? KnownContentKey(*runs[k]) : fleet;
    if (key.empty()) return NotFound("runs: run " + std::string(part) + " is still importing");
    keys.push_back(key);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
    if (keys.size() > kMaxShareRuns) return InvalidInput("runs: more than 64 runs");
  }
  return keys;
}

}  // namespace

ApiResponse ShareResponse(const Runs& runs, const std::vector<RunSummary>& summaries,
                          const ShareAuthority* authority, const QueryParams& params,
                          int64_t now_unix_s) {
  if (!authority)
    return ErrorResponse(404,
                         "share: this server signs no share links (they need a token: "
                         "--bind off loopback, or --token)");
  const auto runs_param = params.find("runs");
  if (runs_param == params.end()) return ErrorResponse(400, "runs: missing");
  auto keys = RunKeys(runs, summaries, runs_param->second);
  if (!keys.ok())
    return ErrorResponse(keys.status().code() == StatusCode::kNotFound ? 503 : 400,
                         keys.status().message());
  int64_t seconds = kDefaultShareSeconds;
  if (const auto e = params.find("expires"); e != params.end()) {
    auto parsed = ParseShareDuration(e->second);
    if (!parsed.ok()) return ErrorResponse(400, "expires: " + parsed.status().message());
    seconds = *parsed;
  }
  ShareClaims claims;
  auto token = authority->Issue(*keys, now_unix_s + seconds, &claims);
  if (!token.ok()) return ErrorResponse(500, token.status().message());
  std::ostringstream out;
  {
    JsonWriter w(out, JsonStyle::kCompact);
    w.BeginObject().Field("token", *token).Field("id", claims.id).Key("runs").BeginArray();
    for (const std::string& key : claims.runs) w.String(key);
    w.EndArray().Field("expires", claims.expires_unix_s);
    w.Field("expires_utc", UtcTime(claims.expires_unix_s)).EndObject();
  }
  ApiResponse r;
  r.body = out.str();
  return r;
}

}  // namespace th::serve
