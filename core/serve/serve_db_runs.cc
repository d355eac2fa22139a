#include "core/serve/serve_db_runs.h"

#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <map>

namespace th::serve {
namespace {

using scan::SqlInt;
using scan::SqlIsNull;
using scan::SqlRow;
using scan::SqlText;
using scan::SqlValue;

// The runs; job_family is a column from results schema v3 on.
std::string RunsSql(int64_t schema_version) {
  return std::string(
             "SELECT run_id, location, name, host, status, verdict, ranks, "
             "captured_at_ns, ") +
         (schema_version >= 3 ? "job_family" : "NULL") + " FROM runs ORDER BY location, run_id";
}

// Per run: the finding count and the first finding of the lowest severity.
constexpr const char* kTopFindingsSql =
    "SELECT run_id, n, severity, plugin, title FROM ("
    "SELECT run_id, severity, plugin, title, "
    "ROW_NUMBER() OVER (PARTITION BY run_id ORDER BY severity, seq) AS pick, "
    "COUNT(*) OVER (PARTITION BY run_id) AS n FROM findings) AS ranked WHERE pick = 1";

// Every step's duration by run, shortest first: the count, lower median, min
// and max of a run are read off its stretch of rows (window functions sort
// slower than this in SQLite). An index on (run_id, dur_ns) makes it a scan.
constexpr const char* kStepsSql = "SELECT run_id, dur_ns FROM steps ORDER BY run_id, dur_ns";

// The indexes the queries above scan: results schema v3 creates them; a
// database of an older scan gets them here when it can be written (without
// them the answers are the same, only slower).
constexpr const char* kIndexesSql =
    "CREATE INDEX IF NOT EXISTS steps_run_dur ON steps (run_id, dur_ns);"
    "CREATE INDEX IF NOT EXISTS findings_run_severity ON findings (run_id, severity, seq)";

constexpr const char* kFindingsSql =
    "SELECT plugin, severity, title, what, suggestion, confidence, evidence, rank, device, "
    "stream, step_first, step_last FROM findings WHERE run_id = $1 ORDER BY seq";

std::optional<int64_t> OptionalInt(const SqlValue& v) {
  return SqlIsNull(v) ? std::nullopt : std::optional<int64_t>(SqlInt(v));
}

int64_t ScopeInt(const SqlValue& v) { return SqlIsNull(v) ? -1 : SqlInt(v); }

NumberKind KindOf(std::string_view name) {
  for (NumberKind k : {NumberKind::kMeasured, NumberKind::kRead, NumberKind::kInferred})
    if (NumberKindName(k) == name) return k;
  return NumberKind::kMeasured;
}

// The evidence column: [{name, value, unit, kind}] as scan writes it.
StatusOr<std::vector<Evidence>> ParseEvidence(const std::string& text, const std::string& where) {
  std::vector<Evidence> out;
  if (text.empty()) return out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(text).get(doc) != simdjson::SUCCESS || !doc.is_array())
    return InvalidInput(where + ": evidence is not a JSON array");
  for (simdjson::dom::element item : doc.get_array()) {
    Evidence e;
    std::string_view s;
    double value = 0;
    if (item["name"].get(s) == simdjson::SUCCESS) e.name = s;
    if (item["value"].get(value) == simdjson::SUCCESS) e.value = value;
    if (item["unit"].get(s) == simdjson::SUCCESS) e.unit = s;
    if (item["kind"].get(s) == simdjson::SUCCESS) e.kind = KindOf(s);
    out.push_back(std::move(e));
  }
  return out;
}

StatusOr<Finding> FindingOf(const SqlRow& row, const std::string& where) {
  Finding f;
  f.plugin = SqlText(row[0]);
  f.severity = static_cast<FindingSeverity>(std::clamp<int64_t>(SqlInt(row[1]), 0, 3));
  f.title = SqlText(row[2]);
  f.what = SqlText(row[3]);
  f.suggestion = SqlText(row[4]);
  f.confidence = SqlIsNull(row[5]) ? 1 : scan::SqlDouble(row[5]);
  auto evidence = ParseEvidence(SqlText(row[6]), where);
  if (!evidence.ok()) return evidence.status();
  f.evidence = std::move(*evidence);
  f.scope = {ScopeInt(row[7]), ScopeInt(row[8]), ScopeInt(row[9]), ScopeInt(row[10]),
             ScopeInt(row[11])};
  return f;
}

}  // namespace

StatusOr<std::unique_ptr<DatabaseRuns>> DatabaseRuns::Open(const std::string& url) {
  const bool postgres = url.starts_with("postgresql://") || url.starts_with("postgres://");
  if (!postgres) {
    const std::string path = url.starts_with("sqlite:") ? url.substr(7) : url;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
      return NotFound(url + ": no such database file");
  }
  auto db = scan::OpenDatabase(url);
  if (!db.ok()) return db.status();
  auto version = (*db)->Query("SELECT MAX(version) FROM th_schema");
  if (!version.ok() || version->rows.empty() || SqlIsNull(version->rows[0][0]))
    return InvalidInput((*db)->name() + ": holds no results of tracehound scan (no th_schema)");
  (void)(*db)->Exec(kIndexesSql);
  return std::make_unique<DatabaseRuns>(std::move(*db), SqlInt(version->rows[0][0]));
}

StatusOr<std::vector<RunSummary>> DatabaseRuns::Summaries() {
  std::lock_guard lock(mu_);
  auto runs = db_->Query(RunsSql(schema_version_));
  if (!runs.ok()) return runs.status();
  auto tops = db_->Query(kTopFindingsSql);
  if (!tops.ok()) return tops.status();
  auto steps = db_->Query(kStepsSql);
  if (!steps.ok()) return steps.status();
  std::vector<RunSummary> out;
  std::map<std::string, size_t> by_id;
  std::vector<std::string> locations;
  for (const SqlRow& row : runs->rows) {
    RunSummary s;
    s.db_run_id = SqlText(row[0]);
    s.location = SqlText(row[1]);
    s.name = SqlText(row[2]);
    s.host = SqlText(row[3]);
    s.verdict = SqlText(row[4]) == "failed" ? "FAILED" : SqlText(row[5]);
    s.ranks = OptionalInt(row[6]);
    s.time_ns = OptionalInt(row[7]);
    s.family = SqlText(row[8]);
    if (s.time_ns) s.time_kind = "captured";
    s.source = "database";
    if (s.verdict != "FAILED") s.findings = 0;
    by_id[s.db_run_id] = out.size();
    locations.push_back(s.location);
    out.push_back(std::move(s));
  }
  for (const SqlRow& row : tops->rows) {
    auto it = by_id.find(SqlText(row[0]));
    if (it == by_id.end()) continue;
    RunSummary& s = out[it->second];
    s.findings = SqlInt(row[1]);
    s.top = TopFinding{SqlInt(row[2]), SqlText(row[3]), SqlText(row[4])};
  }
  const auto& rows = steps->rows;
  for (size_t first = 0, end = 0; first < rows.size(); first = end) {
    const std::string id = SqlText(rows[first][0]);
    end = first + 1;
    while (end < rows.size() && SqlText(rows[end][0]) == id) ++end;
    auto it = by_id.find(id);
    if (it == by_id.end()) continue;
    RunSummary& s = out[it->second];
    const size_t n = end - first;
    s.steps = static_cast<int64_t>(n);
    s.step_min_ns = SqlInt(rows[first][1]);
    s.step_p50_ns = SqlInt(rows[first + (n - 1) / 2][1]);
    s.step_max_ns = SqlInt(rows[end - 1][1]);
  }
  auto tags = PathTags(locations);
  for (size_t k = 0; k < out.size(); ++k) out[k].tags = std::move(tags[k]);
  return out;
}

StatusOr<std::vector<Finding>> DatabaseRuns::Findings(const std::string& run_id) {
  std::lock_guard lock(mu_);
  auto rows = db_->Query(kFindingsSql, {SqlValue{run_id}});
  if (!rows.ok()) return rows.status();
  std::vector<Finding> out;
  for (const SqlRow& row : rows->rows) {
    auto f = FindingOf(row, db_->name() + ": run " + run_id);
    if (!f.ok()) return f.status();
    out.push_back(std::move(*f));
  }
  return out;
}

}  // namespace th::serve
