// The content of a results database as sorted text rows, for comparing two
// databases (a scan against its rerun, a sharded scan against a local one, a
// merge against its parts): every column of every result table except the
// bookkeeping columns of runs (scanned_at, scan_seconds, worker).
#pragma once

#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/scan/database.h"

namespace th::scan {

// True for runs.scanned_at / scan_seconds / worker.
bool IsBookkeepingColumn(const std::string& table, const std::string& column);

// "table|v1|v2|..." per row (NULL as \N, doubles in shortest round-trip
// form), sorted, over ResultTables().
StatusOr<std::vector<std::string>> ContentRows(Database& db);

}  // namespace th::scan
