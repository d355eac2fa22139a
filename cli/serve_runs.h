// The runs `tracehound serve` lists: discovered in its inputs with scan's
// grouping (core/scan/run_discovery.h: a folder of rank files, an archive, the
// hosts of an XProf session are each one run), or read from a fleet database.
#pragma once

#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/serve/run_list.h"

namespace th::cli {

struct ServeRunSpec {
  std::string input;  // what the run imports (a file, folder, archive or glob)
  std::string name;
  serve::RunSummary summary;
};

// Per INPUT, in argument order, its runs (sorted by location). An INPUT that
// is one run is imported as given and named by its file name (so one trace
// or one folder of ranks is served as before); an INPUT of several runs gives
// each its own: its file, archive, or pattern (folder/rank*, folder/*.xplane.pb).
// Summaries: location, ranks (files; an archive's once imported), the newest
// file modification time, tags (PathTags), source "files". Runs written by
// tracehound.capture: the manifests' earliest start time ("captured"), hosts
// and tags ("key=value", after the path tags). NotFound for an
// input that names nothing.
StatusOr<std::vector<ServeRunSpec>> DiscoverServeRuns(const std::vector<std::string>& inputs);

// The runs of a database's summaries: each imports its stored location.
std::vector<ServeRunSpec> DatabaseServeRuns(std::vector<serve::RunSummary> summaries);

}  // namespace th::cli
