// The run browser's side of the fleet database that `tracehound scan` fills
// (core/scan/results_schema.h): the runs with what the list shows, and a
// run's findings as scan stored them. Every SQL statement `serve` sends is in
// this file. Reads only the v1 columns of the runs, findings and steps tables;
// writes nothing but two indexes, created at Open when missing (best effort).
// Thread-safe: one connection, used under a mutex.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/graph/analysis_results.h"
#include "core/graph/status.h"
#include "core/scan/database.h"
#include "core/serve/run_list.h"

namespace th::serve {

class DatabaseRuns {
 public:
  // Opens `url` (scan's --db: sqlite:PATH, PATH.db, postgresql://...) and
  // checks that it holds a results schema; an error names the database.
  // Creates the indexes the summaries scan when they are missing and the
  // database can be written.
  static StatusOr<std::unique_ptr<DatabaseRuns>> Open(const std::string& url);
  // `schema_version`: the results schema the database holds (job families
  // from v3 on).
  DatabaseRuns(std::unique_ptr<scan::Database> db, int64_t schema_version)
      : db_(std::move(db)), schema_version_(schema_version) {}

  // One summary per stored run, by location then run_id: the job family, ranks, verdict
  // (FAILED for a failed run), captured_at_ns as the time, the host, the
  // finding count and the most severe finding (lowest severity, then seq),
  // the steps' count, lower median, min and max over all ranks; tags from
  // the locations (PathTags); source "database". Three queries, each one
  // pass over an index.
  StatusOr<std::vector<RunSummary>> Summaries();

  // The findings stored for `run_id`, in seq order, as the pipeline gave them
  // (plugin, severity, texts, confidence, scope, evidence).
  StatusOr<std::vector<Finding>> Findings(const std::string& run_id);

  const std::string& name() const { return db_->name(); }

 private:
  std::mutex mu_;
  std::unique_ptr<scan::Database> db_;
  int64_t schema_version_;
};

}  // namespace th::serve
