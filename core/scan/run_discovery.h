// DiscoverRuns: scan inputs (files, directories, globs, archives) → the runs
// of a fleet scan, a deterministic sorted list (same inputs, same list; every
// process of a sharded or MPI scan names runs by their index in it).
//
// Grouping of the trace files found (core/import ExpandInputs):
//   - an archive (.tar, .tar.gz, .tgz, .zip) is one run: its members are the
//     ranks;
//   - files whose name carries a rank marker (rank3, rank-3, rank_3, worker3,
//     any case) form one run per (directory, text before the marker, marker
//     word): rank0.pt.trace.json and rank1.pt.trace.json of one folder are one
//     run, named "<dir>/rank*";
//   - .xplane.pb files of one directory are one run (the hosts of one XProf
//     capture), named "<dir>/*.xplane.pb";
//   - any other file is a run of its own, named by its path.
// Runs are sorted by location; files within a run by path. A file named twice
// is taken once.
//
// Names are location-based and unique within a discovery: a run alone in its
// folder is named by the folder, an archive or a run that shares its folder
// by its location, as a path relative to the deepest folder holding every run
// found (that folder's own name for a run it holds alone). /data/a/rank*,
// /data/b/trace.json and /data/c/x.tar.gz are "a", "b" and "c/x.tar.gz".
// Names depend on the set of runs found: every process of a split scan finds
// the same set, so they agree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/graph/trust_table.h"

namespace th::scan {

struct RunFile {
  std::string path;
  uint64_t bytes = 0;  // as stored (compressed size for .gz)
};

struct Run {
  std::string location;  // unique within a discovery; see grouping above
  std::string name;      // location-based, unique within a discovery (above)
  std::vector<RunFile> files;
  uint64_t bytes = 0;  // sum over files
};

// Files skipped while walking directories (other formats) are counted in
// `skipped` when given. NotFound for an input that names nothing.
StatusOr<std::vector<Run>> DiscoverRuns(const std::vector<std::string>& inputs,
                                        TrustTable* skipped = nullptr);

}  // namespace th::scan
