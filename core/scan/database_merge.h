// Joining results databases: the shards of a scheduler array, the per-rank
// files of an MPI scan, or the databases of several machines become one.
//
// Contract of MergeResults(in, out):
// - Copies every run of `in` whose run_id `out` does not have, with all of
//   its rows in the child tables (ResultTables()), in one transaction per run:
//   a run is wholly copied or not at all. Runs `out` already has are left as
//   they are (the run_id is the hash of the content and of the pipeline, so
//   the same id means the same results), unless `in` holds the run at a
//   smaller location: then `in`'s rows replace them, as one scan keeps the
//   smallest location's rows. Every location of a run is kept (run_locations
//   of both), and the pipelines rows `out` lacks are copied. The diffs of
//   `tracehound diff --db` that `out` lacks (equal in every column but their
//   number) are copied with their rows, numbered after `out`'s last. Merging
//   again copies nothing.
// - `out` gets the current results schema when it has none. Databases of
//   different schema versions are refused, naming both versions; `in` is
//   never written.
// - The result does not depend on the order of merges: the content (every
//   row but the runs' bookkeeping columns) of a merge of shards equals that of
//   one scan over all runs.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/scan/database.h"

namespace th::scan {

struct MergeStats {
  size_t runs_in = 0;          // runs in the input
  size_t runs_copied = 0;      // of those, copied
  size_t runs_present = 0;     // of those, already in the output
  size_t runs_replaced = 0;    // of the present, replaced: the input's location is smaller
  size_t locations_added = 0;  // run_locations rows added to runs the output holds
  size_t diffs_copied = 0;     // diffs the output did not hold, renumbered
  std::map<std::string, size_t> rows_copied;  // per table, runs included
};

StatusOr<MergeStats> MergeResults(Database& in, Database& out);

// Opens a database that must exist already: a SQLite URL naming a missing
// file is NotFound (OpenDatabase would create it), e.g. for merge inputs.
StatusOr<std::unique_ptr<Database>> OpenExistingDatabase(const std::string& url);

// The results schema version of `db` without writing to it: 0 when it has
// no th_schema table.
StatusOr<int> ReadResultsSchemaVersion(Database& db);

// Columns of `runs` that describe a scan rather than its results (when, how
// long, which worker) and differ between two scans of the same content.
const std::vector<std::string>& BookkeepingColumns();

// The content of a results database as canonical text: per table, a header of
// column names and one line per row (values typed: NULL, integers, doubles in
// shortest round-trip form, quoted text), lines sorted, the bookkeeping
// columns left out; diffs without their numbers, their rows by the diff's
// inputs and threshold. Two databases hold the same results iff these are equal,
// whatever the dialect, the order rows were written in, or who wrote them.
StatusOr<std::string> DumpResultsContent(Database& db);

}  // namespace th::scan
