// Rows of one scanned run and their writing, in one transaction per run
// (results_schema.h has the tables and their columns).
//
// Idempotency: runs.run_id = content_hash:pipeline_hash. When a run with the
// same id is already stored, the row with the smaller location is kept (two
// copies of one run in a fleet end as the same row whatever order they were
// scanned in); a failed row is replaced when retrying failures. An ok run
// also replaces the failed rows of its location under the same pipeline (the
// file was corrupt or unreadable then, and has been fixed since). Every
// location a run was found at is kept in run_locations, whichever row wins.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/graph/analysis_results.h"
#include "core/graph/status.h"
#include "core/pipeline/pipeline_runner.h"
#include "core/scan/database.h"
#include "core/scan/run_discovery.h"

namespace th::scan {

struct TraceRow {
  std::string path;
  std::optional<int64_t> rank;
  std::string host;  // "" = NULL
  std::string file_hash;
  int64_t bytes = 0;
  std::optional<int64_t> events;
  std::string format;  // "" = NULL
};

struct StepRow {
  int64_t rank = 0, step = 0, start_ns = 0, dur_ns = 0;
};

struct PhaseRow {
  std::string phase, name;  // name: the plugin's id for phase "plugin", else ""
  double seconds = 0;
};

// Everything written for one run.
struct RunRecord {
  std::string run_id, content_hash, pipeline_hash, location, name;
  std::string host;  // "" = NULL
  // runs.signature and runs.job_family (run_signature.h); "" = NULL (failed).
  std::string signature, job_family;
  bool failed = false;
  std::string error;  // failed: the message, naming the file
  std::string verdict;
  std::optional<int64_t> exit_code, ranks, events, captured_at_ns;
  int64_t bytes = 0;
  std::vector<TraceRow> traces;
  std::vector<Metric> metrics;
  std::vector<Finding> findings;
  std::vector<StepRow> steps;
  // Bookkeeping (not content).
  std::string scanned_at, worker;
  double scan_seconds = 0;
  std::vector<PhaseRow> phases;
};

// time_lost_ns of a finding: what it states (Finding::TimeLost); for a
// plugin that states none, the value of its FIRST evidence item whose unit is
// a time unit (ns, us, µs, ms, s), converted to ns; nullopt when it has none,
// or that value is negative or not finite.
std::optional<double> FindingTimeLostNs(const Finding& finding);

// The key core/report/finding_groups.h groups a run's findings by (with the
// plugin): the finding's group, else its title. Stored as findings.group_key.
std::string FindingGroupKey(const Finding& finding);

// Fills the content rows of `record` (verdict, counts, signature and job
// family, traces, metrics, findings, steps) and its phases from a pipeline
// run; record->pipeline_hash must be set. `file_hashes` are the run's files'
// hashes in run.files order.
void FillRunRecord(const Run& run, const std::vector<std::string>& file_hashes,
                   const PipelineRun& result, RunRecord* record);

enum class StoredRun { kAbsent, kKeep, kKeepFailed, kReplace };

// What the database holds for `record.run_id`: kAbsent; kKeep (skip this run:
// the stored row is ok and its location is not after ours); kKeepFailed (the
// same, the stored row is failed and !retry_failed; `stored_error`, when
// given, gets its error); kReplace.
StatusOr<StoredRun> CheckStoredRun(Database& db, const RunRecord& record, bool retry_failed,
                                   std::string* stored_error = nullptr);

// Adds (record.run_id, record.location, record.name, first_seen) to
// run_locations unless it is there, in one transaction; nothing when `db`
// holds no row of the run. Returns whether a row was added.
StatusOr<bool> RecordRunLocation(Database& db, const RunRecord& record,
                                 const std::string& first_seen);

// Writes the record in one transaction (re-checking the stored row inside it),
// its location included; returns false when a stored row is kept instead
// (its location is then added to that row's run_locations).
StatusOr<bool> WriteRunRecord(Database& db, const RunRecord& record, bool retry_failed);

}  // namespace th::scan
