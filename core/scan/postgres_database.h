// PostgreSQL backend of Database (core/scan/database.h), through libpq.
// Parameters are sent as text; result columns of integer types (int2/4/8,
// oid) come back as int64, float4/8 and numeric as double, the rest as text.
#pragma once

#include <memory>
#include <string>

#include "core/scan/database.h"

namespace th::scan {

StatusOr<std::unique_ptr<Database>> OpenPostgresDatabase(const std::string& url);

}  // namespace th::scan
