// The endpoints of /api/v1 as functions of the request's path parts and
// query: what to answer (status, body, caching), without HTTP plumbing.
// A run number that is not a run is 404, a run still importing 503; bad
// query parameters are 400 naming the parameter; an unknown event id 404.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/serve/serve_params.h"
#include "core/serve/serve_run.h"

namespace th::serve {

struct ApiResponse {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::string cache_control = "no-cache";
  std::string etag;  // strong, quoted; "" for none
};

using Runs = std::vector<std::unique_ptr<ServeRun>>;

ApiResponse ErrorResponse(int status, const std::string& message);
// The ready run named by `run` (its number), or null with the 404/503 answer in *error.
const ServeRun* FindReadyRun(const Runs& runs, const std::string& run, ApiResponse* error);
ApiResponse MetaResponse(const Runs& runs, const std::string& run);
ApiResponse ViewportResponse(const Runs& runs, const std::string& run, const QueryParams& params);
// 304 without a body when `if_none_match` is the tile's ETag.
ApiResponse TileResponse(const Runs& runs, const std::string& run, const QueryParams& params,
                         const std::string& if_none_match);
// One bucket of a tile at its exact count and busy_ns (JSON; a bucket
// without events answers zeros): what THVP gives at display precision.
ApiResponse BucketResponse(const Runs& runs, const std::string& run, const QueryParams& params);
ApiResponse EventResponse(const Runs& runs, const std::string& run, const std::string& id);
ApiResponse SearchResponse(const Runs& runs, const std::string& run, const QueryParams& params);

}  // namespace th::serve
