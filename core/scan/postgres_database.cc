#include "core/scan/postgres_database.h"

#include "core/scan/postgres_module.h"
#include "modules/module_loader.h"

namespace th::scan {

namespace {

// Type OIDs of pg_type.h (stable since PostgreSQL 7).
constexpr Oid kBoolOid = 16, kInt8Oid = 20, kInt2Oid = 21, kInt4Oid = 23, kOidOid = 26,
              kFloat4Oid = 700, kFloat8Oid = 701, kNumericOid = 1700;

class PostgresDatabase final : public Database {
 public:
  PostgresDatabase(const PostgresApi& pq, PGconn* conn, std::string name)
      : pq_(pq), conn_(conn), name_(std::move(name)) {}
  ~PostgresDatabase() override { pq_.finish(conn_); }

  SqlDialect dialect() const override { return SqlDialect::kPostgres; }
  const std::string& name() const override { return name_; }

  Status Exec(std::string_view sql, const std::vector<SqlValue>& params) override {
    return Run(sql, params, nullptr);
  }
  StatusOr<SqlRows> Query(std::string_view sql, const std::vector<SqlValue>& params) override {
    SqlRows rows;
    TH_RETURN_IF_ERROR(Run(sql, params, &rows));
    return rows;
  }

 private:
  Status Run(std::string_view sql, const std::vector<SqlValue>& params, SqlRows* rows) {
    std::string text(sql);
    PGresult* result = nullptr;
    if (params.empty() && !rows) {
      result = pq_.exec(conn_, text.c_str());  // may hold several statements
    } else {
      std::vector<std::string> values(params.size());
      std::vector<const char*> pointers(params.size(), nullptr);
      for (size_t i = 0; i < params.size(); ++i) {
        if (SqlIsNull(params[i])) continue;
        values[i] = SqlText(params[i]);
        pointers[i] = values[i].c_str();
      }
      result = pq_.exec_params(conn_, text.c_str(), static_cast<int>(params.size()), nullptr,
                               pointers.data(), nullptr, nullptr, 0);
    }
    ExecStatusType status = pq_.result_status(result);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      std::string message = result ? pq_.result_error_message(result) : pq_.error_message(conn_);
      while (!message.empty() && (message.back() == '\n' || message.back() == ' '))
        message.pop_back();
      pq_.clear(result);
      return IoError("database " + name_ + ": " + message + " (in: " + text.substr(0, 120) + ")");
    }
    if (rows) {
      int n = pq_.nfields(result), m = pq_.ntuples(result);
      rows->columns.clear();
      for (int c = 0; c < n; ++c) rows->columns.emplace_back(pq_.fname(result, c));
      rows->rows.reserve(m);
      for (int r = 0; r < m; ++r) {
        SqlRow row;
        row.reserve(n);
        for (int c = 0; c < n; ++c) {
          if (pq_.getisnull(result, r, c)) {
            row.emplace_back(std::monostate{});
            continue;
          }
          std::string value(pq_.getvalue(result, r, c), pq_.getlength(result, r, c));
          Oid type = pq_.ftype(result, c);
          if (type == kInt8Oid || type == kInt4Oid || type == kInt2Oid || type == kOidOid)
            row.emplace_back(SqlInt(value));
          else if (type == kFloat8Oid || type == kFloat4Oid || type == kNumericOid)
            row.emplace_back(SqlDouble(value));
          else if (type == kBoolOid)
            row.emplace_back(static_cast<int64_t>(value == "t"));
          else
            row.emplace_back(std::move(value));
        }
        rows->rows.push_back(std::move(row));
      }
    }
    pq_.clear(result);
    return Ok();
  }

  const PostgresApi& pq_;
  PGconn* conn_;
  std::string name_;
};

void IgnoreNotice(void*, const char*) {}

}  // namespace

const PostgresApi* LoadPostgresApi(std::string* error) {
  void* entry = modules::LoadModuleEntry("db-postgres", TH_POSTGRES_MODULE_ENTRY,
                                         "needed for postgresql:// databases", error);
  return entry ? reinterpret_cast<const PostgresApi* (*)()>(entry)() : nullptr;
}

StatusOr<std::unique_ptr<Database>> OpenPostgresDatabase(const std::string& url) {
  std::string name = RedactDatabaseUrl(url);
  std::string error;
  const PostgresApi* pq = LoadPostgresApi(&error);
  if (!pq) return Unsupported("cannot open database " + name + ": " + error);
  PGconn* conn = pq->connectdb(url.c_str());
  if (!conn) return IoError("cannot connect to database " + name + ": out of memory");
  if (pq->status(conn) != CONNECTION_OK) {
    std::string message = pq->error_message(conn);
    while (!message.empty() && (message.back() == '\n' || message.back() == ' '))
      message.pop_back();
    pq->finish(conn);
    return IoError("cannot connect to database " + name + ": " + message);
  }
  // "relation already exists, skipping" notices of migrations are not for the user.
  pq->set_notice_processor(conn, IgnoreNotice, nullptr);
  return std::unique_ptr<Database>(std::make_unique<PostgresDatabase>(*pq, conn, name));
}

}  // namespace th::scan
