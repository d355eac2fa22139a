#include "core/scan/sqlite_database.h"

#include <sqlite3.h>

#include <unordered_map>

namespace th::scan {

namespace {

// "$7" -> "?7" outside quoted literals, so both dialects share one SQL text.
std::string ToSqliteParams(std::string_view sql) {
  std::string out;
  out.reserve(sql.size());
  char quote = 0;
  for (size_t i = 0; i < sql.size(); ++i) {
    char c = sql[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '$' && i + 1 < sql.size() && sql[i + 1] >= '0' && sql[i + 1] <= '9') {
      c = '?';
    }
    out.push_back(c);
  }
  return out;
}

class SqliteDatabase final : public Database {
 public:
  SqliteDatabase(sqlite3* db, std::string name) : db_(db), name_(std::move(name)) {}
  ~SqliteDatabase() override {
    for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
    sqlite3_close_v2(db_);
  }

  SqlDialect dialect() const override { return SqlDialect::kSqlite; }
  const std::string& name() const override { return name_; }

  Status Exec(std::string_view sql, const std::vector<SqlValue>& params) override {
    if (params.empty()) {
      char* error = nullptr;
      std::string text(sql);
      if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
        Status s = Error(error ? error : sqlite3_errmsg(db_), sql);
        sqlite3_free(error);
        return s;
      }
      return Ok();
    }
    return Run(sql, params, nullptr);
  }

  StatusOr<SqlRows> Query(std::string_view sql, const std::vector<SqlValue>& params) override {
    SqlRows rows;
    TH_RETURN_IF_ERROR(Run(sql, params, &rows));
    return rows;
  }

 private:
  Status Error(std::string_view message, std::string_view sql) const {
    std::string head(sql.substr(0, 120));
    return IoError("database " + name_ + ": " + std::string(message) + " (in: " + head + ")");
  }

  // Prepared statements are cached by their text (scans repeat few shapes).
  StatusOr<sqlite3_stmt*> Prepare(std::string_view sql) {
    std::string key(sql);
    auto it = statements_.find(key);
    if (it != statements_.end()) return it->second;
    std::string text = ToSqliteParams(sql);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, text.c_str(), static_cast<int>(text.size()), &stmt, nullptr) !=
        SQLITE_OK)
      return Error(sqlite3_errmsg(db_), sql);
    statements_.emplace(std::move(key), stmt);
    return stmt;
  }

  Status Run(std::string_view sql, const std::vector<SqlValue>& params, SqlRows* rows) {
    auto prepared = Prepare(sql);
    if (!prepared.ok()) return prepared.status();
    sqlite3_stmt* stmt = *prepared;
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    for (size_t i = 0; i < params.size(); ++i) {
      int index = static_cast<int>(i + 1), rc = SQLITE_OK;
      const SqlValue& v = params[i];
      if (auto* n = std::get_if<int64_t>(&v))
        rc = sqlite3_bind_int64(stmt, index, *n);
      else if (auto* d = std::get_if<double>(&v))
        rc = sqlite3_bind_double(stmt, index, *d);
      else if (auto* s = std::get_if<std::string>(&v))
        rc = sqlite3_bind_text(stmt, index, s->data(), static_cast<int>(s->size()),
                               SQLITE_TRANSIENT);
      else
        rc = sqlite3_bind_null(stmt, index);
      if (rc != SQLITE_OK) return Error(sqlite3_errmsg(db_), sql);
    }
    if (rows) {
      int n = sqlite3_column_count(stmt);
      rows->columns.clear();
      for (int c = 0; c < n; ++c) rows->columns.emplace_back(sqlite3_column_name(stmt, c));
    }
    for (;;) {
      int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) {
        Status s = Error(sqlite3_errmsg(db_), sql);
        sqlite3_reset(stmt);
        return s;
      }
      if (!rows) continue;
      SqlRow row;
      int n = sqlite3_column_count(stmt);
      row.reserve(n);
      for (int c = 0; c < n; ++c) {
        switch (sqlite3_column_type(stmt, c)) {
          case SQLITE_INTEGER:
            row.emplace_back(static_cast<int64_t>(sqlite3_column_int64(stmt, c)));
            break;
          case SQLITE_FLOAT:
            row.emplace_back(sqlite3_column_double(stmt, c));
            break;
          case SQLITE_NULL:
            row.emplace_back(std::monostate{});
            break;
          default:
            row.emplace_back(
                std::string(reinterpret_cast<const char*>(sqlite3_column_text(stmt, c)),
                            static_cast<size_t>(sqlite3_column_bytes(stmt, c))));
        }
      }
      rows->rows.push_back(std::move(row));
    }
    sqlite3_reset(stmt);
    return Ok();
  }

  sqlite3* db_;
  std::string name_;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
};

}  // namespace

StatusOr<std::unique_ptr<Database>> OpenSqliteDatabase(const std::string& path) {
  sqlite3* db = nullptr;
  std::string name = "sqlite:" + path;
  int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return IoError("cannot open database " + name + ": " + message);
  }
  // Several writers (shards, MPI ranks on one file system) wait for each other.
  sqlite3_busy_timeout(db, 120000);
  std::unique_ptr<Database> out = std::make_unique<SqliteDatabase>(db, name);
  TH_RETURN_IF_ERROR(
      out->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                "PRAGMA foreign_keys=ON"));
  return out;
}

}  // namespace th::scan
