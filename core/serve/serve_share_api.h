// What a share token may see, and GET /api/v1/share, which issues one.
//
// A share token sees the runs whose content key it names: /api/v1/runs lists
// only those, and any other run number, existing or not, is the same 404.
// A run's key is known once it is ready, or earlier from its cached
// overview; until then no token sees it by that key. A run of the fleet
// database is also known by its scan content hash (the run_id's first part),
// before it is opened: the key its links name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/serve/run_list.h"
#include "core/serve/serve_api.h"
#include "core/serve/share_keys.h"

namespace th::serve {

inline constexpr int64_t kDefaultShareSeconds = 7 * 86400;

// The content key a run answers with now, or "" when it is not known yet.
std::string KnownContentKey(const ServeRun& run);

// The database's content hash of a run (RunSummary::db_run_id before ':'),
// or "" for a run of files.
std::string FleetContentHash(const RunSummary& summary);

// Per run, whether `claims` names its content key or fleet content hash
// (`summaries`: one per run, or fewer).
std::vector<bool> VisibleRuns(const Runs& runs, const std::vector<RunSummary>& summaries,
                              const ShareClaims& claims);

// GET /api/v1/share?runs=N,M[&expires=7d]: a token for those runs (each ready
// or with a known key): {"token","id","runs":[KEY...],"expires","expires_utc"}.
// 404 when the server has no share key; 400 naming a bad parameter.
ApiResponse ShareResponse(const Runs& runs, const std::vector<RunSummary>& summaries,
                          const ShareAuthority* authority, const QueryParams& params,
                          int64_t now_unix_s);

}  // namespace th::serve
