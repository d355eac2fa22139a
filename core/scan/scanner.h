// RunScan: a pipeline over the runs of a fleet, rows into a results database.
//
// Per run (worker threads take run indices from the RunDispatcher):
//   1. hash its files (content_hash.h); run_id = content_hash:pipeline_hash;
//   2. skip it when the database already holds that run (result_writer.h),
//      recording its location there (run_locations);
//   3. take its predicted footprint from the memory budget (memory_budget.h),
//      load and run the pipeline, give the memory back;
//   4. write its rows in one transaction, then tell the dispatcher.
// A run that cannot be read or imported is written as a failed row whose
// error names the file, and the scan goes on. A run whose files are not
// traces (the importer says Unsupported: no traceEvents, not JSON) is counted
// as not a trace and writes nothing; in a run of several files, a file that
// is not a trace is left out and the others scanned (no traces row for it). A database error stops
// the scan (the runs committed so far stay; a rerun resumes after them).
//
// The rows depend only on the runs' bytes and the pipeline, not on the number
// of jobs, the dispatcher or the order (bookkeeping columns aside).
// The pipeline's outputs are not written (the database is the output); the
// pipeline itself is, once, in `pipelines` (pipeline_record.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/import/trace_loader.h"
#include "core/pipeline/pipeline.h"
#include "core/plugin/plugin_loader.h"
#include "core/scan/database.h"
#include "core/scan/run_discovery.h"
#include "core/scan/run_dispatcher.h"
#include "core/scan/scan_progress.h"

namespace th::scan {

struct ScanOptions {
  const Pipeline* pipeline = nullptr;        // required
  const PluginRegistry* registry = nullptr;  // required
  std::string pipeline_hash;                 // "" = PipelineHash(*pipeline, *registry)
  int jobs = 0;                              // runs scanned at once; 0 = hardware threads
  uint64_t memory_bytes = 0;                 // memory budget; 0 = DefaultMemoryBudget()
  bool retry_failed = false;                 // rescan runs stored as failed
  // Also consulted (never written) in step 2: a run it holds is skipped too.
  // Used by one thread at a time (the scanner serialises its lookups).
  Database* skip_db = nullptr;
  std::string worker;        // runs.worker; "" = "<hostname>:<pid>"
  size_t expected_runs = 0;  // for the progress total; 0 = runs.size()
  LoadOptions load;
  // When set and it becomes true (e.g. from a SIGINT handler), no further run
  // is started; runs in flight finish and commit (ScanSummary.interrupted).
  const std::atomic<bool>* interrupt = nullptr;
};

// A run the database already holds as failed (and --retry-failed not given)
// is not scanned again but counts as failed (in `failed` and `failed_stored`,
// its stored error in `failures`), so a rescan's exit status still says so;
// `skipped` counts the ok runs already stored.
struct ScanSummary {
  size_t handled = 0;  // runs this process took from the dispatcher
  size_t scanned = 0, skipped = 0, failed = 0, not_traces = 0;
  size_t failed_stored = 0;  // of `failed`: stored by an earlier scan
  uint64_t bytes_scanned = 0;
  double seconds = 0;
  std::vector<std::string> failures;  // "<location>: <error>", in run order
  bool interrupted = false;           // stopped by ScanOptions.interrupt
};

// `db` must already hold the results schema (MigrateResultsSchema).
// `progress` may be null.
StatusOr<ScanSummary> RunScan(const ScanOptions& options, const std::vector<Run>& runs,
                              RunDispatcher& dispatcher, Database& db, ScanProgress* progress);

// The CLI's exit status for a summary: 0 when no run failed, else
// 10 + min(failed, 100) (11..110; 110 = 100 or more).
int ScanExitCode(const ScanSummary& summary);

}  // namespace th::scan
