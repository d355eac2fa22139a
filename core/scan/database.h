// Database: the results store of fleet scans, one small SQL interface over
// SQLite (the default, a file) and PostgreSQL (a shared server, via libpq).
//
// Contract:
// - SQL is the common subset of both dialects; parameters are written $1, $2,
//   ... in both (the SQLite backend binds them by number).
// - Values are NULL, 64-bit integers, doubles or UTF-8 text (SqlValue); a
//   query returns every row, each column as the SqlValue the server sent
//   (PostgreSQL integer/float columns come back as int64/double, text as text).
// - Errors are Status values naming the database (URL with any password
//   removed) and the server's message; nothing throws.
// - One Database is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/graph/status.h"

namespace th::scan {

using SqlValue = std::variant<std::monostate, int64_t, double, std::string>;
using SqlRow = std::vector<SqlValue>;

struct SqlRows {
  std::vector<std::string> columns;
  std::vector<SqlRow> rows;
};

// Accessors that accept the representations both backends produce (an
// integer column read as text by a driver, a NULL): 0 / "" when NULL.
int64_t SqlInt(const SqlValue& v);
double SqlDouble(const SqlValue& v);
std::string SqlText(const SqlValue& v);
bool SqlIsNull(const SqlValue& v);

enum class SqlDialect { kSqlite, kPostgres };

class Database {
 public:
  virtual ~Database() = default;
  virtual SqlDialect dialect() const = 0;
  // The URL it was opened with, password removed (for messages).
  virtual const std::string& name() const = 0;

  // Runs one statement (or, without params, several separated by ';').
  virtual Status Exec(std::string_view sql, const std::vector<SqlValue>& params = {}) = 0;
  virtual StatusOr<SqlRows> Query(std::string_view sql,
                                  const std::vector<SqlValue>& params = {}) = 0;

  Status Begin() { return Exec("BEGIN"); }
  Status Commit() { return Exec("COMMIT"); }
  Status Rollback() { return Exec("ROLLBACK"); }
};

// "sqlite:PATH" (PATH relative to the cwd; created when absent), a path
// ending in .db/.sqlite (same), or "postgresql://..." / "postgres://..."
// (libpq connection URI). Anything else is InvalidInput naming it.
StatusOr<std::unique_ptr<Database>> OpenDatabase(const std::string& url);

// The URL with the password of a postgresql:// URI replaced by "***".
std::string RedactDatabaseUrl(const std::string& url);

}  // namespace th::scan
