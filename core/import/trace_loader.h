// LoadTraceSet: inputs (files, directories, globs, .tar[.gz]/.zip of rank
// files; the same as remote objects and prefixes) → one TraceSet with a rank
// per file, files imported in parallel.
//
// Rank: distributedInfo.rank, else a number in the file name ("rank3",
// "rank-3", "rank_3", "worker3"), else the input's position.
// The format of each file and archive member is decided by its content
// (importer_registry.h). Files named explicitly must be traces; files found by
// walking a directory or an archive that are not traces (other JSON, other
// formats) are skipped and counted in the set's trust table. A JAX `<host>.trace.json.gz` or
// perfetto_trace.json.gz found beside its `<host>.xplane.pb` (directory or
// glob) is skipped too: the same capture, read once from the .xplane.pb.
// A directory's redaction-report.json (written by `tracehound redact`) is
// not looked at.
#pragma once

#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/graph/trace.h"
#include "core/import/kineto/kineto_importer.h"

namespace th {

struct LoadOptions {
  kineto::ImportOptions import;
};

StatusOr<TraceSet> LoadTraceSet(const std::vector<std::string>& inputs, const LoadOptions& options);

// Expands inputs into the files to read (sorted within each input), without
// opening them. Exposed for tests and for `scan`.
struct InputFile {
  std::string path;
  bool explicit_input = false;  // named on the command line (not discovered)
};
StatusOr<std::vector<InputFile>> ExpandInputs(const std::vector<std::string>& inputs,
                                              TrustTable* skipped);

}  // namespace th
