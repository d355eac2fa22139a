// The fleet report: what a results database says across many runs.
//
//   top findings      grouped by (plugin, title pattern): the title with every
//                     number replaced by '#', so "rank 5 is a straggler: last
//                     at 93% of collectives" and "rank 2 ... 71% ..." are one
//                     problem; ranked by count and by time lost (the sum of
//                     the findings' time_lost_ns, an inferred figure)
//   stragglers        ranks and hosts named by a `stragglers` finding (rank
//                     scope) in at least `min_straggler_runs` runs, with the
//                     share of the runs they took part in (from `traces`)
//   step regressions  each ok run's median step time (over every rank's rows
//                     in `steps`) against the baseline of its job family
//                     (runs.job_family: same pipeline and trace signature,
//                     run_signature.h): one run (--baseline, compared with
//                     its family only), or per family the median of the
//                     per-run medians of its runs captured in a time window
//                     (--since/--until, on captured_at_ns); ratio >= 1 +
//                     threshold is a regression. Runs of a family without a
//                     baseline are counted (runs_other_family), not compared.
//   failures          runs whose scan failed, with the error
// One pipeline per report (runs.pipeline_hash): the one asked for, else the
// one with the most runs (ties: the smallest hash); the summary says when the
// database holds others. Only results columns are read (never the scan's
// bookkeeping), so the report of a merged database equals that of one scan.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/finding_severity.h"
#include "core/graph/status.h"
#include "core/scan/database.h"

namespace th::scan {

struct FleetReportOptions {
  std::string pipeline;  // pipeline_hash prefix; "" = the pipeline with the most runs
  // run_id; a location the run was found at or its folder; a run name; or a
  // run_id prefix (the first kind that matches must match one run).
  std::string baseline_run;
  std::optional<int64_t> since_ns, until_ns;  // baseline window [since, until), epoch ns
  double regression_threshold = 0.10;         // regression when ratio >= 1 + threshold
  size_t top = 10;                            // rows per table (findings, regressions)
  size_t min_straggler_runs = 2;              // "repeatedly": flagged in at least this many runs
};

// "2026-11-29", "2026-11-29T18:15", "2026-11-29T18:15:00Z" (UTC) or epoch
// seconds ("1764440100"), as epoch nanoseconds; InvalidInput naming the text.
StatusOr<int64_t> ParseTimePoint(const std::string& text);

struct FindingGroup {
  std::string plugin, pattern, example_title;
  FindingSeverity worst_severity = FindingSeverity::kP2;
  int64_t findings = 0, runs = 0;
  int64_t with_time_lost = 0;  // findings that report time lost (the rest: not reported)
  double time_lost_ns = 0;
};

struct StragglerEntry {
  std::string key;           // "rank 3" or the host name
  int64_t runs_flagged = 0;  // runs with a stragglers finding naming it
  int64_t runs_seen = 0;     // ok runs it took part in
  double time_lost_ns = 0;
  std::vector<std::string> where;  // ranks: hosts it ran on when flagged; hosts: ranks flagged
  std::string last_run;            // last flagged run (by capture time, then run_id)
};

struct RunStepTime {
  std::string run_id, name;
  std::optional<int64_t> captured_at_ns;
  int64_t steps = 0;
  double median_step_ns = 0;
  double ratio = 0;               // median / baseline_median_ns
  std::string job_family;         // "" = none stored (schema v2 rows)
  double baseline_median_ns = 0;  // the baseline of its job family
};

struct FailedRun {
  std::string run_id, name, location, error;
};

struct FleetReport {
  std::string database;
  std::string pipeline_hash;  // the pipeline whose runs the report covers
  int64_t pipelines = 0;      // distinct pipeline hashes in the database
  int64_t runs = 0, runs_ok = 0, runs_failed = 0, traces = 0, hosts = 0, findings = 0;
  std::optional<int64_t> first_capture_ns, last_capture_ns;
  std::vector<FindingGroup> by_count, by_time_lost;
  int64_t finding_groups = 0;
  std::vector<StragglerEntry> straggler_ranks, straggler_hosts;
  int64_t min_straggler_runs = 2;
  // Step-time regressions; baseline_kind empty when no baseline was asked for.
  std::string baseline_kind;  // "run" | "window"
  std::string baseline_label;
  int64_t baseline_runs = 0;
  int64_t baseline_families = 0;  // job families the baseline runs belong to
  double baseline_median_ns = 0;  // over every baseline run, whatever its family
  double threshold = 0;
  int64_t runs_compared = 0, runs_without_steps = 0;
  int64_t runs_other_family = 0;         // ok runs with steps of a family the baseline lacks
  int64_t regressions_total = 0;         // runs with ratio >= 1 + threshold
  std::vector<RunStepTime> regressions;  // the worst `top` of them, worst first
  std::vector<FailedRun> failures;
};

StatusOr<FleetReport> BuildFleetReport(Database& db, const FleetReportOptions& options);

// The title with each number (digits, with a decimal part) replaced by '#'.
std::string TitlePattern(const std::string& title);

std::string FleetReportMarkdown(const FleetReport& report);
std::string FleetReportJson(const FleetReport& report);
// One self-contained HTML file: inline CSS, no script, no network.
std::string FleetReportHtml(const FleetReport& report);

}  // namespace th::scan
