#include "core/scan/database_merge.h"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <map>
#include <set>

#include "core/scan/results_schema.h"

namespace th::scan {

namespace {

bool IsPostgresUrl(const std::string& url) {
  return url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0;
}

StatusOr<bool> HasTable(Database& db, const std::string& table) {
  StatusOr<SqlRows> rows =
      db.dialect() == SqlDialect::kSqlite
          ? db.Query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = $1",
                     {SqlValue{table}})
          : db.Query(
                "SELECT table_name FROM information_schema.tables WHERE table_name = $1 AND "
                "table_schema = current_schema()",
                {SqlValue{table}});
  if (!rows.ok()) return rows.status();
  return !rows->rows.empty();
}

// "$first+1, ..., $first+n"
std::string Placeholders(size_t n, size_t first = 0) {
  std::string s;
  for (size_t i = 1; i <= n; ++i) s += (i > 1 ? ", $" : "$") + std::to_string(first + i);
  return s;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

// Inserts `rows` into `table` of `out` (columns as `rows` names them) with
// multi-row INSERTs, under both servers' parameter limits (SQLite 32766,
// PostgreSQL 65535): one round trip per chunk, not per row.
Status InsertAll(Database& out, const std::string& table, const SqlRows& rows) {
  const size_t cols = rows.columns.size();
  const size_t per_chunk = std::max<size_t>(1, std::min<size_t>(500, 30000 / cols));
  for (size_t first = 0; first < rows.rows.size(); first += per_chunk) {
    const size_t n = std::min(per_chunk, rows.rows.size() - first);
    std::string sql = "INSERT INTO " + table + " (" + Join(rows.columns) + ") VALUES ";
    std::vector<SqlValue> params;
    params.reserve(n * cols);
    for (size_t r = 0; r < n; ++r) {
      sql += (r ? ", (" : "(") + Placeholders(cols, r * cols) + ")";
      params.insert(params.end(), rows.rows[first + r].begin(), rows.rows[first + r].end());
    }
    TH_RETURN_IF_ERROR(out.Exec(sql, params));
  }
  return Ok();
}

// Copies one run and its child rows inside one transaction of `out`. With
// `replace`, the run `out` holds is deleted first (its locations kept): the
// input's copy lies at a smaller location, the one a single scan keeps.
Status CopyRun(Database& in, Database& out, const std::string& run_id, bool replace,
               MergeStats* stats, bool* copied) {
  *copied = false;
  TH_RETURN_IF_ERROR(out.Exec(out.dialect() == SqlDialect::kSqlite ? "BEGIN IMMEDIATE" : "BEGIN"));
  auto fail = [&](Status s) {
    (void)out.Rollback();
    return s;
  };
  const std::vector<SqlValue> id = {SqlValue{run_id}};
  // Checked again under the transaction: another merge may have copied it.
  auto present = out.Query("SELECT 1 FROM runs WHERE run_id = $1", id);
  if (!present.ok()) return fail(present.status());
  if (!present->rows.empty() && !replace) return fail(Ok());
  SqlRows kept_locations;
  if (replace) {
    auto kept = out.Query("SELECT * FROM run_locations WHERE run_id = $1", id);
    if (!kept.ok()) return fail(kept.status());
    kept_locations = std::move(*kept);
    const auto& tables = ResultTables();
    for (auto t = tables.rbegin(); t != tables.rend(); ++t) {
      Status s = out.Exec("DELETE FROM " + *t + " WHERE run_id = $1", id);
      if (!s.ok()) return fail(s);
    }
  }
  std::map<std::string, size_t> rows_copied;
  std::set<std::string> locations;
  for (const std::string& table : ResultTables()) {
    auto rows = in.Query("SELECT * FROM " + table + " WHERE run_id = $1", id);
    if (!rows.ok()) return fail(rows.status());
    if (table == "run_locations") {
      auto col = std::find(rows->columns.begin(), rows->columns.end(), "location");
      for (const SqlRow& r : rows->rows)
        locations.insert(SqlText(r[static_cast<size_t>(col - rows->columns.begin())]));
    }
    if (rows->rows.empty()) continue;
    Status s = InsertAll(out, table, *rows);
    if (!s.ok())
      return fail(Status(s.code(), "run " + run_id + ", table " + table + ": " + s.message()));
    rows_copied[table] += rows->rows.size();
  }
  if (!kept_locations.rows.empty()) {
    auto col = std::find(kept_locations.columns.begin(), kept_locations.columns.end(), "location");
    std::erase_if(kept_locations.rows, [&](const SqlRow& r) {
      return locations.count(SqlText(r[static_cast<size_t>(col - kept_locations.columns.begin())]));
    });
    Status s = InsertAll(out, "run_locations", kept_locations);
    if (!s.ok()) return fail(s);
  }
  TH_RETURN_IF_ERROR(out.Commit());
  for (const auto& [table, n] : rows_copied) stats->rows_copied[table] += n;
  *copied = true;
  return Ok();
}

// The locations `in` knows of runs `out` holds and lacks them at, then the
// pipelines `out` lacks: one transaction.
Status MergeLocationsAndPipelines(Database& in, Database& out, MergeStats* stats) {
  auto in_locations = in.Query("SELECT run_id, location, name, first_seen FROM run_locations");
  if (!in_locations.ok()) return in_locations.status();
  auto in_pipelines = in.Query("SELECT * FROM pipelines");
  if (!in_pipelines.ok()) return in_pipelines.status();
  TH_RETURN_IF_ERROR(out.Exec(out.dialect() == SqlDialect::kSqlite ? "BEGIN IMMEDIATE" : "BEGIN"));
  auto fail = [&](Status s) {
    (void)out.Rollback();
    return s;
  };
  auto out_runs = out.Query("SELECT run_id FROM runs");
  auto out_locations = out.Query("SELECT run_id, location FROM run_locations");
  auto out_pipelines = out.Query("SELECT pipeline_hash FROM pipelines");
  if (!out_runs.ok()) return fail(out_runs.status());
  if (!out_locations.ok()) return fail(out_locations.status());
  if (!out_pipelines.ok()) return fail(out_pipelines.status());
  std::set<std::string> runs, hashes;
  std::set<std::pair<std::string, std::string>> have;
  for (const SqlRow& r : out_runs->rows) runs.insert(SqlText(r[0]));
  for (const SqlRow& r : out_locations->rows) have.insert({SqlText(r[0]), SqlText(r[1])});
  for (const SqlRow& r : out_pipelines->rows) hashes.insert(SqlText(r[0]));
  SqlRows add{in_locations->columns, {}};
  for (SqlRow& r : in_locations->rows)
    if (runs.count(SqlText(r[0])) && have.insert({SqlText(r[0]), SqlText(r[1])}).second)
      add.rows.push_back(std::move(r));
  Status s = InsertAll(out, "run_locations", add);
  if (!s.ok()) return fail(s);
  stats->locations_added = add.rows.size();
  auto hash_col = std::find(in_pipelines->columns.begin(), in_pipelines->columns.end(),
                            std::string("pipeline_hash"));
  const size_t h = static_cast<size_t>(hash_col - in_pipelines->columns.begin());
  std::erase_if(in_pipelines->rows,
                [&](const SqlRow& r) { return !hashes.insert(SqlText(r[h])).second; });
  s = InsertAll(out, "pipelines", *in_pipelines);
  if (!s.ok()) return fail(s);
  return out.Commit();
}

std::string FormatValue(const SqlValue& v) {
  if (SqlIsNull(v)) return "NULL";
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&v)) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, *d);
    return std::string(buf, r.ptr) + "d";
  }
  std::string out = "'";
  for (char c : std::get<std::string>(v)) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\'')
      out += "''";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out + "'";
}

// The diffs `in` holds and `out` lacks (a diff `out` holds equals it in every
// column but id), numbered on after `out`'s largest id, with their rows: one
// transaction.
Status MergeDiffs(Database& in, Database& out, MergeStats* stats) {
  auto in_diffs = in.Query("SELECT * FROM diffs ORDER BY id");
  if (!in_diffs.ok()) return in_diffs.status();
  auto in_rows = in.Query("SELECT * FROM diff_rows ORDER BY diff_id");
  if (!in_rows.ok()) return in_rows.status();
  if (in_diffs->rows.empty()) return Ok();
  TH_RETURN_IF_ERROR(out.Exec(out.dialect() == SqlDialect::kSqlite ? "BEGIN IMMEDIATE" : "BEGIN"));
  auto fail = [&](Status s) {
    (void)out.Rollback();
    return s;
  };
  auto out_diffs = out.Query("SELECT * FROM diffs");
  if (!out_diffs.ok()) return fail(out_diffs.status());
  auto column = [](const SqlRows& rows, const char* name) {
    return static_cast<size_t>(std::find(rows.columns.begin(), rows.columns.end(), name) -
                               rows.columns.begin());
  };
  auto key = [](const SqlRows& rows, const SqlRow& row) {
    std::string k;
    for (size_t c = 0; c < row.size(); ++c)
      if (rows.columns[c] != "id") k += rows.columns[c] + "=" + FormatValue(row[c]) + "|";
    return k;
  };
  const size_t id = column(*in_diffs, "id"), out_id = column(*out_diffs, "id");
  int64_t next = 0;
  std::set<std::string> have;
  for (const SqlRow& r : out_diffs->rows) {
    next = std::max(next, SqlInt(r[out_id]));
    have.insert(key(*out_diffs, r));
  }
  std::map<int64_t, int64_t> renumbered;
  SqlRows diffs{in_diffs->columns, {}};
  for (SqlRow& r : in_diffs->rows) {
    if (!have.insert(key(*in_diffs, r)).second) continue;
    renumbered[SqlInt(r[id])] = ++next;
    r[id] = SqlValue{next};
    diffs.rows.push_back(std::move(r));
  }
  const size_t diff_id = column(*in_rows, "diff_id");
  SqlRows rows{in_rows->columns, {}};
  for (SqlRow& r : in_rows->rows) {
    auto it = renumbered.find(SqlInt(r[diff_id]));
    if (it == renumbered.end()) continue;
    r[diff_id] = SqlValue{it->second};
    rows.rows.push_back(std::move(r));
  }
  Status s = InsertAll(out, "diffs", diffs);
  if (s.ok()) s = InsertAll(out, "diff_rows", rows);
  if (!s.ok()) return fail(s);
  TH_RETURN_IF_ERROR(out.Commit());
  stats->diffs_copied = diffs.rows.size();
  stats->rows_copied["diffs"] += diffs.rows.size();
  stats->rows_copied["diff_rows"] += rows.rows.size();
  return Ok();
}

// One table of DumpResultsContent: `title`, then the rows of `sql` without the
// columns `skip` names, sorted.
StatusOr<std::string> DumpQuery(Database& db, const std::string& title, const std::string& sql,
                                const std::function<bool(const std::string&)>& skip) {
  auto rows = db.Query(sql);
  if (!rows.ok()) return rows.status();
  std::vector<size_t> keep;
  std::vector<std::string> names;
  for (size_t c = 0; c < rows->columns.size(); ++c) {
    if (skip(rows->columns[c])) continue;
    keep.push_back(c);
    names.push_back(rows->columns[c]);
  }
  std::vector<std::string> lines;
  lines.reserve(rows->rows.size());
  for (const SqlRow& row : rows->rows) {
    std::string line;
    for (size_t k = 0; k < keep.size(); ++k) line += (k ? "|" : "") + FormatValue(row[keep[k]]);
    lines.push_back(std::move(line));
  }
  std::sort(lines.begin(), lines.end());
  std::string out =
      "table " + title + " (" + std::to_string(lines.size()) + " rows): " + Join(names) + "\n";
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

}  // namespace

const std::vector<std::string>& BookkeepingColumns() {
  static const std::vector<std::string> kColumns = {"scanned_at", "scan_seconds", "worker"};
  return kColumns;
}

StatusOr<int> ReadResultsSchemaVersion(Database& db) {
  auto has = HasTable(db, "th_schema");
  if (!has.ok()) return has.status();
  if (!*has) return 0;
  auto rows = db.Query("SELECT MAX(version) FROM th_schema");
  if (!rows.ok()) return rows.status();
  if (rows->rows.empty() || SqlIsNull(rows->rows[0][0])) return 0;
  return static_cast<int>(SqlInt(rows->rows[0][0]));
}

StatusOr<std::unique_ptr<Database>> OpenExistingDatabase(const std::string& url) {
  if (!IsPostgresUrl(url)) {
    std::string path = url;
    if (path.rfind("sqlite:", 0) == 0) path = path.substr(7);
    if (path.rfind("//", 0) == 0) path = path.substr(2);
    struct stat st;
    if (!path.empty() && ::stat(path.c_str(), &st) != 0)
      return NotFound("database " + url + ": no such file");
  }
  return OpenDatabase(url);
}

StatusOr<MergeStats> MergeResults(Database& in, Database& out) {
  if (in.name() == out.name()) return InvalidInput("cannot merge " + in.name() + " into itself");
  auto in_version = ReadResultsSchemaVersion(in);
  if (!in_version.ok()) return in_version.status();
  if (*in_version == 0)
    return InvalidInput(in.name() + " is not a tracehound results database (no th_schema table)");
  if (*in_version > kResultsSchemaVersion)
    return Unsupported(in.name() + " has results schema v" + std::to_string(*in_version) +
                       ", newer than this tracehound (v" + std::to_string(kResultsSchemaVersion) +
                       "): upgrade tracehound");
  auto out_version = ReadResultsSchemaVersion(out);
  if (!out_version.ok()) return out_version.status();
  if (*out_version == 0) {
    TH_RETURN_IF_ERROR(MigrateResultsSchema(out));
    out_version = kResultsSchemaVersion;
  }
  if (*in_version != *out_version)
    return Unsupported("cannot merge " + in.name() + " (results schema v" +
                       std::to_string(*in_version) + ") into " + out.name() + " (results schema v" +
                       std::to_string(*out_version) +
                       "): the schema versions differ; open the older one with this "
                       "tracehound's scan to migrate it first");

  MergeStats stats;
  auto in_runs = in.Query("SELECT run_id, location FROM runs ORDER BY run_id");
  if (!in_runs.ok()) return in_runs.status();
  auto out_runs = out.Query("SELECT run_id, location FROM runs");
  if (!out_runs.ok()) return out_runs.status();
  std::map<std::string, std::string> present;  // run_id -> location
  for (const SqlRow& r : out_runs->rows) present[SqlText(r[0])] = SqlText(r[1]);
  stats.runs_in = in_runs->rows.size();
  for (const SqlRow& r : in_runs->rows) {
    std::string run_id = SqlText(r[0]);
    auto it = present.find(run_id);
    // As in one scan, a run's rows are those of its smallest location.
    const bool replace = it != present.end() && SqlText(r[1]) < it->second;
    bool copied = false;
    if (it == present.end() || replace)
      TH_RETURN_IF_ERROR(CopyRun(in, out, run_id, replace, &stats, &copied));
    ++(copied && !replace ? stats.runs_copied : stats.runs_present);
    stats.runs_replaced += copied && replace;
  }
  TH_RETURN_IF_ERROR(MergeLocationsAndPipelines(in, out, &stats));
  TH_RETURN_IF_ERROR(MergeDiffs(in, out, &stats));
  return stats;
}

StatusOr<std::string> DumpResultsContent(Database& db) {
  std::string out;
  std::vector<std::string> tables = ResultTables();
  tables.push_back("pipelines");
  for (const std::string& table : tables) {
    const auto& bookkeeping = BookkeepingColumns();
    auto text = DumpQuery(db, table, "SELECT * FROM " + table, [&](const std::string& column) {
      if (table == "runs")
        return std::find(bookkeeping.begin(), bookkeeping.end(), column) != bookkeeping.end();
      return (table == "phases" && column == "seconds") ||
             (table == "run_locations" && column == "first_seen");
    });
    if (!text.ok()) return text.status();
    out += *text;
  }
  // Diffs without their numbers (merge renumbers them); rows by their diff's inputs.
  auto diffs = DumpQuery(db, "diffs", "SELECT * FROM diffs",
                         [](const std::string& column) { return column == "id"; });
  if (!diffs.ok()) return diffs.status();
  auto rows = DumpQuery(db, "diff_rows",
                        "SELECT d.a_inputs, d.b_inputs, d.threshold_ns, r.* FROM diff_rows r "
                        "JOIN diffs d ON d.id = r.diff_id",
                        [](const std::string& column) { return column == "diff_id"; });
  if (!rows.ok()) return rows.status();
  return out + *diffs + *rows;
}

}  // namespace th::scan
