#include "core/scan/result_writer.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "core/graph/text_escape.h"
#include "core/import/importer_registry.h"
#include "core/report/finding_json.h"
#include "core/report/report_panels.h"
#include "core/scan/run_signature.h"

namespace th::scan {

namespace {

SqlValue Text(const std::string& s) { return s.empty() ? SqlValue{} : SqlValue{s}; }
SqlValue Int(std::optional<int64_t> v) { return v ? SqlValue{*v} : SqlValue{}; }
SqlValue Real(double v) { return std::isfinite(v) ? SqlValue{v} : SqlValue{}; }
SqlValue Scope(int64_t v) { return v < 0 ? SqlValue{} : SqlValue{v}; }

std::string Unquote(std::string s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
  return s;
}

std::string TraceHost(const TraceInfo& info) {
  for (const char* key : {"hostname", "host_name", "host"}) {
    auto it = info.metadata.find(key);
    if (it != info.metadata.end()) return Unquote(it->second);
  }
  // A capture one file per host names the file after the host.
  const Importer* importer = Registry().FindByFormat(info.format);
  if (importer && importer->DirectoryIsOneCapture())
    return Registry().NameStem(info.format, std::filesystem::path(info.path).filename().string());
  return "";
}

// INSERT of `rows` (each `columns.size()` values) in statements of up to 50
// rows: one round trip per batch on PostgreSQL, one cached statement shape
// per batch size on SQLite.
Status InsertRows(Database& db, const std::string& table, const std::vector<std::string>& columns,
                  const std::vector<SqlValue>& values) {
  const size_t width = columns.size();
  const size_t rows = values.size() / width;
  constexpr size_t kBatch = 50;
  std::string head = "INSERT INTO " + table + " (";
  for (size_t c = 0; c < width; ++c) head += (c ? ", " : "") + columns[c];
  head += ") VALUES ";
  for (size_t first = 0; first < rows; first += kBatch) {
    size_t n = std::min(kBatch, rows - first);
    std::string sql = head;
    int param = 1;
    for (size_t r = 0; r < n; ++r) {
      sql += r ? ", (" : "(";
      for (size_t c = 0; c < width; ++c) sql += (c ? ", $" : "$") + std::to_string(param++);
      sql += ")";
    }
    std::vector<SqlValue> params(values.begin() + first * width,
                                 values.begin() + (first + n) * width);
    TH_RETURN_IF_ERROR(db.Exec(sql, params));
  }
  return Ok();
}

// The findings table's evidence column, one line:
// [{"name": "idle_pct", "value": 12.5, "unit": "%", "kind": "measured"}, ...].
std::string EvidenceJson(const std::vector<Evidence>& evidence) {
  std::ostringstream out;
  {
    JsonWriter w(out, JsonStyle::kOneLine);
    WriteEvidenceJson(w, evidence);
  }
  return out.str();
}

}  // namespace

std::optional<double> FindingTimeLostNs(const Finding& finding) {
  if (finding.time_lost_ns) {
    if (!std::isfinite(*finding.time_lost_ns) || *finding.time_lost_ns < 0) return std::nullopt;
    return finding.time_lost_ns;
  }
  static const std::map<std::string, double, std::less<>> kScale = {
      {"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  for (const Evidence& e : finding.evidence) {
    auto it = kScale.find(e.unit);
    if (it == kScale.end()) continue;
    double ns = e.value * it->second;
    if (!std::isfinite(ns) || ns < 0) return std::nullopt;
    return ns;
  }
  return std::nullopt;
}

std::string FindingGroupKey(const Finding& finding) {
  return finding.group.empty() ? finding.title : finding.group;
}

void FillRunRecord(const Run& run, const std::vector<std::string>& file_hashes,
                   const PipelineRun& result, RunRecord* record) {
  const AnalysisReport& report = result.report;
  record->failed = false;
  record->verdict = std::string(Verdict(report));
  record->exit_code = result.exit_code;
  std::map<std::string, size_t> file_index;
  for (size_t i = 0; i < run.files.size(); ++i) file_index[run.files[i].path] = i;
  std::set<int64_t> ranks;
  int64_t events = 0;
  std::optional<int64_t> captured;
  record->traces.clear();
  for (const auto& trace : result.traces.traces) {
    const TraceInfo& info = trace->info;
    TraceRow row;
    row.path = info.path;
    row.rank = info.rank;
    row.host = TraceHost(info);
    // An archive member "a.tar.gz:member" carries its archive's hash and size.
    std::string file = info.path;
    if (!file_index.count(file)) {
      for (const auto& [p, i] : file_index) {
        if (file.compare(0, p.size() + 1, p + ":") == 0) file = p;
      }
    }
    auto it = file_index.find(file);
    if (it != file_index.end()) {
      row.file_hash = file_hashes[it->second];
      row.bytes = static_cast<int64_t>(run.files[it->second].bytes);
    }
    if (it == file_index.end() || file != info.path)
      row.bytes = static_cast<int64_t>(info.file_bytes);
    row.events = static_cast<int64_t>(trace->graph.events.size());
    row.format = info.format;
    ranks.insert(info.rank);
    events += *row.events;
    if (info.base_time_ns && (!captured || *info.base_time_ns < *captured))
      captured = info.base_time_ns;
    if (record->host.empty()) record->host = row.host;
    record->traces.push_back(std::move(row));
  }
  record->ranks = static_cast<int64_t>(ranks.size());
  record->events = events;
  record->captured_at_ns = captured;
  record->signature = SignatureJson(ComputeRunSignature(result.traces));
  record->job_family = JobFamily(record->pipeline_hash, record->signature);
  record->metrics = report.results.metrics;
  record->findings = report.results.findings;
  const PhaseTimes& t = report.timing;
  record->phases = {{"import", "", t.import_seconds},
                    {"facts", "", t.facts_seconds},
                    {"plugins", "", t.plugins_seconds}};
  for (const PluginOutcome& p : report.plugins)
    record->phases.push_back({"plugin", p.id, p.seconds});
  record->steps.clear();
  if (const DerivedTable* steps = TableForPanel(report.results, "steps")) {
    const DerivedTable& t = *steps;
    const DerivedColumn* rank = t.Find("rank");
    const DerivedColumn* step = t.Find("step");
    const DerivedColumn* ts = t.Find("ts");
    const DerivedColumn* dur = t.Find("dur");
    auto ints = [](const DerivedColumn* c) -> const std::vector<int64_t>* {
      return c ? std::get_if<std::vector<int64_t>>(&c->values) : nullptr;
    };
    if (ints(rank) && ints(step) && ints(ts) && ints(dur)) {
      for (size_t r = 0; r < t.rows; ++r) {
        record->steps.push_back(
            {(*ints(rank))[r], (*ints(step))[r], (*ints(ts))[r], (*ints(dur))[r]});
      }
    }
  }
}

StatusOr<StoredRun> CheckStoredRun(Database& db, const RunRecord& record, bool retry_failed,
                                   std::string* stored_error) {
  auto rows =
      db.Query("SELECT location, status, error FROM runs WHERE run_id = $1", {record.run_id});
  if (!rows.ok()) return rows.status();
  if (rows->rows.empty()) return StoredRun::kAbsent;
  std::string location = SqlText(rows->rows[0][0]);
  bool failed = SqlText(rows->rows[0][1]) == "failed";
  if (failed && retry_failed) return StoredRun::kReplace;
  if (location > record.location) return StoredRun::kReplace;
  if (failed && stored_error) *stored_error = SqlText(rows->rows[0][2]);
  return failed ? StoredRun::kKeepFailed : StoredRun::kKeep;
}

namespace {

Status DeleteRun(Database& db, const std::string& run_id) {
  for (const char* table :
       {"traces", "metrics", "findings", "steps", "phases", "run_locations", "runs"}) {
    TH_RETURN_IF_ERROR(
        db.Exec(std::string("DELETE FROM ") + table + " WHERE run_id = $1", {run_id}));
  }
  return Ok();
}

Status WriteRows(Database& db, const RunRecord& r) {
  const SqlValue id{r.run_id};
  if (!r.failed) {
    // A failure stored for this location and pipeline under other content (the
    // file was unreadable or corrupt then) is superseded by this run.
    const char* kStale =
        "SELECT run_id FROM runs WHERE location = $1 AND pipeline_hash = $2 AND status = "
        "'failed' AND run_id <> $3";
    auto stale = db.Query(kStale, {r.location, r.pipeline_hash, r.run_id});
    if (!stale.ok()) return stale.status();
    for (const SqlRow& row : stale->rows) TH_RETURN_IF_ERROR(DeleteRun(db, SqlText(row[0])));
  }
  TH_RETURN_IF_ERROR(db.Exec(
      "INSERT INTO runs (run_id, content_hash, pipeline_hash, location, name, host, status, "
      "error, verdict, exit_code, traces, ranks, bytes, events, captured_at_ns, scanned_at, "
      "scan_seconds, worker, signature, job_family) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, "
      "$10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)",
      {id,
       r.content_hash,
       r.pipeline_hash,
       r.location,
       r.name,
       Text(r.host),
       std::string(r.failed ? "failed" : "ok"),
       Text(r.error),
       Text(r.verdict),
       Int(r.exit_code),
       static_cast<int64_t>(r.traces.size()),
       Int(r.ranks),
       r.bytes,
       Int(r.events),
       Int(r.captured_at_ns),
       Text(r.scanned_at),
       Real(r.scan_seconds),
       Text(r.worker),
       Text(r.signature),
       Text(r.job_family)}));
  TH_RETURN_IF_ERROR(db.Exec(
      "INSERT INTO run_locations (run_id, location, name, first_seen) VALUES ($1, $2, $3, $4)",
      {id, r.location, r.name, Text(r.scanned_at)}));
  std::vector<SqlValue> v;
  for (const TraceRow& t : r.traces) {
    v.insert(v.end(), {id, t.path, Int(t.rank), Text(t.host), t.file_hash, t.bytes, Int(t.events),
                       Text(t.format)});
  }
  TH_RETURN_IF_ERROR(
      InsertRows(db, "traces",
                 {"run_id", "path", "rank", "host", "file_hash", "bytes", "events", "format"}, v));
  v.clear();
  int64_t seq = 0;
  for (const Metric& m : r.metrics) {
    const ReportScope& s = m.scope;
    v.insert(v.end(), {id, seq++, m.plugin, m.name, Text(m.unit),
                       std::string(NumberKindName(m.kind)), Real(m.value), Scope(s.rank),
                       Scope(s.device), Scope(s.stream), Scope(s.step_first), Scope(s.step_last)});
  }
  TH_RETURN_IF_ERROR(InsertRows(db, "metrics",
                                {"run_id", "seq", "plugin", "name", "unit", "kind", "value", "rank",
                                 "device", "stream", "step_first", "step_last"},
                                v));
  v.clear();
  seq = 0;
  for (const Finding& f : r.findings) {
    const ReportScope& s = f.scope;
    auto lost = FindingTimeLostNs(f);
    v.insert(v.end(),
             {id, seq++, f.plugin, SeverityCode(f.severity), f.title, Text(f.what),
              Text(f.suggestion), Real(f.confidence), EvidenceJson(f.evidence),
              lost ? SqlValue{*lost} : SqlValue{}, Scope(s.rank), Scope(s.device), Scope(s.stream),
              Scope(s.step_first), Scope(s.step_last), FindingGroupKey(f)});
  }
  TH_RETURN_IF_ERROR(InsertRows(db, "findings",
                                {"run_id", "seq", "plugin", "severity", "title", "what",
                                 "suggestion", "confidence", "evidence", "time_lost_ns", "rank",
                                 "device", "stream", "step_first", "step_last", "group_key"},
                                v));
  v.clear();
  // (rank, step) is the key: a step number seen twice on a rank keeps its
  // first window (table order).
  std::set<std::pair<int64_t, int64_t>> seen;
  for (const StepRow& s : r.steps) {
    if (!seen.insert({s.rank, s.step}).second) continue;
    v.insert(v.end(), {id, s.rank, s.step, s.start_ns, s.dur_ns});
  }
  TH_RETURN_IF_ERROR(InsertRows(db, "steps", {"run_id", "rank", "step", "start_ns", "dur_ns"}, v));
  v.clear();
  seq = 0;
  for (const PhaseRow& p : r.phases)
    v.insert(v.end(), {id, seq++, p.phase, Text(p.name), p.seconds});
  return InsertRows(db, "phases", {"run_id", "seq", "phase", "name", "seconds"}, v);
}

// Inserts (run_id, location) into run_locations unless present; the caller
// holds the transaction.
Status AddLocation(Database& db, const std::string& run_id, const std::string& location,
                   const std::string& name, const std::string& first_seen) {
  auto present = db.Query("SELECT 1 FROM run_locations WHERE run_id = $1 AND location = $2",
                          {run_id, location});
  if (!present.ok()) return present.status();
  if (!present->rows.empty()) return Ok();
  return db.Exec(
      "INSERT INTO run_locations (run_id, location, name, first_seen) VALUES ($1, $2, $3, $4)",
      {run_id, location, name, Text(first_seen)});
}

StatusOr<bool> WriteOnce(Database& db, const RunRecord& record, bool retry_failed) {
  // SQLite: take the write lock at BEGIN (a deferred transaction that
  // upgrades later can fail with SQLITE_BUSY without waiting).
  TH_RETURN_IF_ERROR(db.Exec(db.dialect() == SqlDialect::kSqlite ? "BEGIN IMMEDIATE" : "BEGIN"));
  auto fail = [&](Status s) -> StatusOr<bool> {
    (void)db.Rollback();
    return s;
  };
  auto stored = CheckStoredRun(db, record, retry_failed);
  if (!stored.ok()) return fail(stored.status());
  if (*stored == StoredRun::kKeep || *stored == StoredRun::kKeepFailed) {
    Status s = AddLocation(db, record.run_id, record.location, record.name, record.scanned_at);
    if (!s.ok()) return fail(s);
    TH_RETURN_IF_ERROR(db.Commit());
    return false;
  }
  // The locations of a replaced row stay with the run.
  SqlRows kept;
  if (*stored == StoredRun::kReplace) {
    auto rows = db.Query(
        "SELECT location, name, first_seen FROM run_locations WHERE run_id = $1 AND location <> "
        "$2",
        {record.run_id, record.location});
    if (!rows.ok()) return fail(rows.status());
    kept = std::move(*rows);
    Status s = DeleteRun(db, record.run_id);
    if (!s.ok()) return fail(s);
  }
  Status s = WriteRows(db, record);
  if (!s.ok()) return fail(s);
  for (const SqlRow& row : kept.rows) {
    s = db.Exec(
        "INSERT INTO run_locations (run_id, location, name, first_seen) VALUES ($1, $2, $3, $4)",
        {record.run_id, row[0], row[1], row[2]});
    if (!s.ok()) return fail(s);
  }
  TH_RETURN_IF_ERROR(db.Commit());
  return true;
}

}  // namespace

StatusOr<bool> RecordRunLocation(Database& db, const RunRecord& record,
                                 const std::string& first_seen) {
  // Read first, outside a transaction: a rescan finds every location there.
  const char* kPresent =
      "SELECT (SELECT COUNT(*) FROM runs WHERE run_id = $1), (SELECT COUNT(*) FROM run_locations "
      "WHERE run_id = $1 AND location = $2)";
  auto present = db.Query(kPresent, {record.run_id, record.location});
  if (!present.ok()) return present.status();
  if (SqlInt(present->rows[0][0]) == 0 || SqlInt(present->rows[0][1]) > 0) return false;
  TH_RETURN_IF_ERROR(db.Exec(db.dialect() == SqlDialect::kSqlite ? "BEGIN IMMEDIATE" : "BEGIN"));
  // Checked again inside the transaction (another writer may have added it).
  present = db.Query(kPresent, {record.run_id, record.location});
  Status s = present.ok() ? Ok() : present.status();
  if (s.ok() && SqlInt(present->rows[0][0]) > 0 && SqlInt(present->rows[0][1]) == 0)
    s = AddLocation(db, record.run_id, record.location, record.name, first_seen);
  if (!s.ok()) {
    (void)db.Rollback();
    return s;
  }
  TH_RETURN_IF_ERROR(db.Commit());
  return true;
}

StatusOr<bool> WriteRunRecord(Database& db, const RunRecord& record, bool retry_failed) {
  // A concurrent writer (another process) may insert the same run between our
  // check and our insert (PostgreSQL: unique violation once it commits): one
  // retry sees its row.
  auto written = WriteOnce(db, record, retry_failed);
  if (written.ok()) return written;
  auto again = WriteOnce(db, record, retry_failed);
  if (again.ok()) return again;
  return written.status();
}

}  // namespace th::scan
