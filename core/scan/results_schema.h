// The results schema of fleet scans: one schema for SQLite and PostgreSQL,
// versioned in table th_schema and migrated forward by MigrateResultsSchema.
//
// Tables (every child row carries its run's run_id; a run's rows are written
// in one transaction, so a run is either wholly present or absent):
//   runs     one row per (content_hash, pipeline_hash): the idempotency key.
//            run_id = the two hashes joined by ':'. status ok | failed (then
//            error holds the message naming the file); verdict, exit_code,
//            counts, the capture's start time (captured_at_ns: the smallest
//            baseTimeNanoseconds of its traces, NULL without one), and
//            bookkeeping of the scan (scanned_at, scan_seconds, worker) that
//            differs between scans of the same content and is left out of
//            content comparisons.
//   traces   one row per trace file of a run (path, rank, host, file hash);
//            an archive member's path is "<archive>:<member>" with the
//            archive's hash. A failed run lists its files (events NULL).
//   metrics  every metric the pipeline's plugins reported, in report order
//            (seq), with unit, kind (measured|read|inferred) and scope.
//   findings every finding: severity 0..3 (P0..P2, 3 info), texts, evidence as JSON
//            ([{name, value, unit, kind}], in the plugin's order), scope, and
//            time_lost_ns: the value of the finding's FIRST evidence item whose
//            unit is a time unit (ns, us, µs, ms, s), converted to ns; NULL when
//            it has none or that value is negative or not finite
//            (FindingTimeLostNs, core/scan/result_writer.h).
//   steps    per rank and step: start and duration in ns (from the steps
//            plugin), for step-time regressions across runs.
//   phases   where the scan of a run spent its time, in wall-clock seconds
//            (bookkeeping, left out of content comparisons like scan_seconds):
//            in seq order, phase import, facts (catalogs and kernel classes),
//            plugins (all of them, running at the same time where they can),
//            then one row per plugin (phase plugin, name = its id).
//   run_locations (v3) every location where the run's content was found,
//            with the location-based name (run_discovery.h) and first_seen
//            (bookkeeping: when a scan first recorded it). runs.location
//            and runs.name are the smallest of them.
//   pipelines (v3, not per run) one row per pipeline_hash: the effective
//            pipeline as YAML (the text the hash covers, plugin versions
//            aside), plugin_versions as one-line JSON {"id": "version", ...}
//            in pipeline order, and the tracehound version that wrote it.
// v3 also adds findings.group_key (the key core/report/finding_groups.h
// groups by: the finding's group, else its title), runs.signature (one-line
// JSON {"ranks": N, "devices": N, "top_kernels": [...]}) and runs.job_family
// (XXH3-128 of the pipeline hash and the signature; run_signature.h).
//   diffs, diff_rows (v4, not per run) the rows of `tracehound diff --db`
//            (core/diff/diff_rows.h): one row per diff, numbered by id, and
//            its aggregate rows and step-time categories by diff_id. `merge`
//            renumbers the diffs it copies and skips one the output holds.
#pragma once

#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/scan/database.h"

namespace th::scan {

inline constexpr int kResultsSchemaVersion = 4;

// Brings `db` to kResultsSchemaVersion (creating it when empty), inside one
// transaction that concurrent scanners serialise on. A database written by a
// newer tracehound (higher version) is refused with a message naming both.
// `to_version` (tests: a database as an older tracehound left it) stops
// there instead.
Status MigrateResultsSchema(Database& db, int to_version = kResultsSchemaVersion);

// The schema version stored in `db` (0 when it has none).
StatusOr<int> ResultsSchemaVersion(Database& db);

// Result tables with a run_id, in dependency order (runs first), e.g. for
// merge and tests; `pipelines` (keyed by pipeline_hash) is not among them.
const std::vector<std::string>& ResultTables();

}  // namespace th::scan
