// SQLite backend of Database (core/scan/database.h): one file, WAL journal,
// a busy timeout so that several processes (MPI ranks, shards) can share it.
#pragma once

#include <memory>
#include <string>

#include "core/scan/database.h"

namespace th::scan {

StatusOr<std::unique_ptr<Database>> OpenSqliteDatabase(const std::string& path);

}  // namespace th::scan
