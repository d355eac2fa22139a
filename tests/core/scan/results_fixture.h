// Writes runs into a results database through the Database interface, rows
// following the schema contract of core/scan/results_schema.h, for tests of
// merge, the fleet report and the MPI/shard dispatchers without a scanner.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/scan/database.h"

namespace th::testing {

struct FixtureFinding {
  std::string plugin;
  int64_t severity = 1;
  std::string title;
  std::optional<double> time_lost_ns;
  std::optional<int64_t> rank;
};

struct FixtureStep {
  int64_t rank = 0, step = 0, dur_ns = 0;
};

struct FixtureTrace {
  int64_t rank = 0;
  std::string host;
};

struct FixtureRun {
  std::string run_id;  // "<content>:<pipeline>"
  std::string name;
  std::string host;
  std::string status = "ok";
  std::string error;
  std::optional<int64_t> captured_at_ns;
  std::vector<FixtureTrace> traces;
  std::vector<FixtureFinding> findings;
  std::vector<FixtureStep> steps;
  std::string worker = "fixture";  // bookkeeping: differs between scans
};

// Migrates `db` to the results schema (when needed) and writes `run` in one
// transaction: runs (location "/fleet/<name>"), its run_locations row,
// traces, one metric per trace, findings, steps.
// `job_family`: runs.job_family ("" = NULL).
Status WriteFixtureRun(scan::Database& db, const FixtureRun& run,
                       const std::string& job_family = "");

// A deterministic run for index i of a synthetic fleet (for MPI/shard tests).
FixtureRun SyntheticRun(size_t i);

}  // namespace th::testing
