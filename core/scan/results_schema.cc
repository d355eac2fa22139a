#include "core/scan/results_schema.h"

#include <algorithm>

namespace th::scan {

namespace {

// Migration N takes the schema from version N-1 to N. Types are written so
// that both dialects read them the same: BIGINT (SQLite: INTEGER affinity),
// DOUBLE PRECISION (REAL), TEXT.
const std::vector<std::string>& Migrations() {
  static const std::vector<std::string> kMigrations = {
      // v1
      R"sql(
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY,
  content_hash TEXT NOT NULL,
  pipeline_hash TEXT NOT NULL,
  location TEXT NOT NULL,
  name TEXT NOT NULL,
  host TEXT,
  status TEXT NOT NULL,
  error TEXT,
  verdict TEXT,
  exit_code BIGINT,
  traces BIGINT NOT NULL,
  ranks BIGINT,
  bytes BIGINT NOT NULL,
  events BIGINT,
  captured_at_ns BIGINT,
  scanned_at TEXT,
  scan_seconds DOUBLE PRECISION,
  worker TEXT,
  UNIQUE (content_hash, pipeline_hash));
CREATE TABLE IF NOT EXISTS traces (
  run_id TEXT NOT NULL REFERENCES runs(run_id),
  path TEXT NOT NULL,
  rank BIGINT,
  host TEXT,
  file_hash TEXT NOT NULL,
  bytes BIGINT NOT NULL,
  events BIGINT,
  format TEXT,
  PRIMARY KEY (run_id, path));
CREATE TABLE IF NOT EXISTS metrics (
  run_id TEXT NOT NULL REFERENCES runs(run_id),
  seq BIGINT NOT NULL,
  plugin TEXT NOT NULL,
  name TEXT NOT NULL,
  unit TEXT,
  kind TEXT,
  value DOUBLE PRECISION,
  rank BIGINT, device BIGINT, stream BIGINT, step_first BIGINT, step_last BIGINT,
  PRIMARY KEY (run_id, seq));
CREATE TABLE IF NOT EXISTS findings (
  run_id TEXT NOT NULL REFERENCES runs(run_id),
  seq BIGINT NOT NULL,
  plugin TEXT NOT NULL,
  severity BIGINT NOT NULL,
  title TEXT NOT NULL,
  what TEXT,
  suggestion TEXT,
  confidence DOUBLE PRECISION,
  evidence TEXT,
  time_lost_ns DOUBLE PRECISION,
  rank BIGINT, device BIGINT, stream BIGINT, step_first BIGINT, step_last BIGINT,
  PRIMARY KEY (run_id, seq));
CREATE TABLE IF NOT EXISTS steps (
  run_id TEXT NOT NULL REFERENCES runs(run_id),
  rank BIGINT NOT NULL,
  step BIGINT NOT NULL,
  start_ns BIGINT,
  dur_ns BIGINT NOT NULL,
  PRIMARY KEY (run_id, rank, step));
CREATE INDEX IF NOT EXISTS findings_plugin ON findings (plugin, title);
CREATE INDEX IF NOT EXISTS metrics_name ON metrics (plugin, name);
)sql",
      // v2
      R"sql(
CREATE TABLE IF NOT EXISTS phases (
  run_id TEXT NOT NULL REFERENCES runs(run_id),
  seq BIGINT NOT NULL,
  phase TEXT NOT NULL,
  name TEXT,
  seconds DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (run_id, seq));
)sql",
      // v3: fleet identity and provenance. Rows of older scans get their
      // stored location; group_key, signature and job_family stay NULL.
      R"sql(
CREATE TABLE IF NOT EXISTS run_locations (
  run_id TEXT NOT NULL REFERENCES runs(run_id),
  location TEXT NOT NULL,
  name TEXT NOT NULL,
  first_seen TEXT,
  PRIMARY KEY (run_id, location));
CREATE TABLE IF NOT EXISTS pipelines (
  pipeline_hash TEXT PRIMARY KEY,
  yaml TEXT NOT NULL,
  plugin_versions TEXT NOT NULL,
  tracehound_version TEXT NOT NULL);
ALTER TABLE findings ADD COLUMN group_key TEXT;
ALTER TABLE runs ADD COLUMN signature TEXT;
ALTER TABLE runs ADD COLUMN job_family TEXT;
INSERT INTO run_locations (run_id, location, name, first_seen)
  SELECT run_id, location, name, scanned_at FROM runs;
CREATE INDEX IF NOT EXISTS run_locations_location ON run_locations (location);
CREATE INDEX IF NOT EXISTS runs_job_family ON runs (job_family);
CREATE INDEX IF NOT EXISTS findings_group ON findings (plugin, group_key);
CREATE INDEX IF NOT EXISTS steps_run_dur ON steps (run_id, dur_ns);
CREATE INDEX IF NOT EXISTS findings_run_severity ON findings (run_id, severity, seq);
)sql",
      // v4: the rows of `tracehound diff --db`. IF NOT EXISTS: an older
      // tracehound's diff created the same two tables outside the schema.
      R"sql(
CREATE TABLE IF NOT EXISTS diffs (
  id BIGINT PRIMARY KEY, a_inputs TEXT NOT NULL, b_inputs TEXT NOT NULL,
  a_ranks BIGINT NOT NULL, b_ranks BIGINT NOT NULL, a_steps BIGINT NOT NULL,
  b_steps BIGINT NOT NULL, threshold_ns BIGINT NOT NULL, a_step_ns BIGINT,
  b_step_ns BIGINT, delta_ns BIGINT, rows_added BIGINT NOT NULL,
  rows_removed BIGINT NOT NULL, rows_changed BIGINT NOT NULL,
  rows_unchanged BIGINT NOT NULL, rows_unknown BIGINT NOT NULL, warnings TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS diff_rows (
  diff_id BIGINT NOT NULL, kind TEXT NOT NULL, class TEXT NOT NULL, name TEXT NOT NULL,
  status TEXT NOT NULL, a_count BIGINT NOT NULL, a_time_per_step_ns BIGINT NOT NULL,
  b_count BIGINT NOT NULL, b_time_per_step_ns BIGINT NOT NULL, delta_ns BIGINT NOT NULL,
  noise_ns BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS diff_rows_by_diff ON diff_rows (diff_id);
)sql",
  };
  return kMigrations;
}

}  // namespace

const std::vector<std::string>& ResultTables() {
  static const std::vector<std::string> kTables = {"runs",  "traces", "metrics",      "findings",
                                                   "steps", "phases", "run_locations"};
  return kTables;
}

StatusOr<int> ResultsSchemaVersion(Database& db) {
  TH_RETURN_IF_ERROR(db.Exec("CREATE TABLE IF NOT EXISTS th_schema (version BIGINT NOT NULL)"));
  auto rows = db.Query("SELECT MAX(version) FROM th_schema");
  if (!rows.ok()) return rows.status();
  if (rows->rows.empty() || SqlIsNull(rows->rows[0][0])) return 0;
  return static_cast<int>(SqlInt(rows->rows[0][0]));
}

Status MigrateResultsSchema(Database& db, int to_version) {
  const bool sqlite = db.dialect() == SqlDialect::kSqlite;
  // SQLite: take the write lock up front; PostgreSQL: a transaction-scoped
  // advisory lock, so two scanners starting together migrate once.
  TH_RETURN_IF_ERROR(db.Exec(sqlite ? "BEGIN IMMEDIATE" : "BEGIN"));
  auto fail = [&](Status s) {
    (void)db.Rollback();
    return s;
  };
  if (!sqlite) {
    auto locked = db.Query("SELECT pg_advisory_xact_lock(7406321)");
    if (!locked.ok()) return fail(locked.status());
  }
  auto version = ResultsSchemaVersion(db);
  if (!version.ok()) return fail(version.status());
  const auto& migrations = Migrations();
  if (*version > static_cast<int>(migrations.size()))
    return fail(Unsupported("database " + db.name() + " has results schema v" +
                            std::to_string(*version) + ", newer than this tracehound (v" +
                            std::to_string(migrations.size()) + "): upgrade tracehound"));
  const size_t last = std::min(migrations.size(), static_cast<size_t>(std::max(to_version, 0)));
  for (size_t v = *version; v < last; ++v) {
    Status s = db.Exec(migrations[v]);
    if (!s.ok()) return fail(s);
    s = db.Exec("INSERT INTO th_schema (version) VALUES ($1)",
                {SqlValue{static_cast<int64_t>(v + 1)}});
    if (!s.ok()) return fail(s);
  }
  return db.Commit();
}

}  // namespace th::scan
