// Which share of a scan this process does, and where it writes: the one
// entry point by which `tracehound scan` supports scheduler arrays and MPI.
//
//   plain                  every run, into --db
//   --shard i/N|/N|auto    runs with index % N == i (shard_dispatcher.h), into
//                          --db with "{shard}" replaced by i (so an array can
//                          write one SQLite file per task: --db 'res.{shard}.db')
//   under mpirun -np N     runs handed out by rank 0 (mpi_dispatcher.h);
//                          postgresql:// --db: every rank writes to it;
//                          SQLite --db: rank r > 0 writes to a file of its own
//                          (res.db -> res.rank<r>.db) and at Finish rank 0
//                          merges those into --db and removes them, so the
//                          result is one database as from one process; such a
//                          rank also skips the runs --db already holds
//                          (skip_db_url), so a rerun of the job resumes
//
// Use: MakeRunDispatcher after discovery (the run count) and before the
// scanner's threads start; open the database at db_url(); scan with
// dispatcher(); close the database; then Finish(). A process that fails
// before Finish under MPI aborts the whole job (no rank waits forever).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "core/graph/status.h"
#include "core/scan/run_dispatcher.h"
#include "core/scan/shard_dispatcher.h"

namespace th::scan {

struct PartitionOptions {
  std::string shard;                   // value of --shard; "" = not sharded
  std::string db_url;                  // value of --db
  bool mpi_rank0_serves_only = false;  // rank 0 only hands out runs (np > 1)
};

class ScanPartition {
 public:
  virtual ~ScanPartition() = default;
  virtual RunDispatcher& dispatcher() = 0;
  // The database this process writes.
  virtual const std::string& db_url() const = 0;
  // A database this process only reads, to skip the runs it already holds
  // ("" = none): --db for MPI ranks that write a SQLite file of their own.
  virtual std::string skip_db_url() const { return ""; }
  // "" (one process), "shard 1/4 (SLURM_ARRAY_TASK_ID=1 ...)", "MPI rank 2 of 4".
  virtual const std::string& label() const = 0;
  // Whether this process reports on the whole scan (not an MPI rank > 0).
  virtual bool primary() const = 0;
  // Runs this process will scan when known in advance (shards), for progress.
  virtual std::optional<size_t> planned_runs() const = 0;
  // After this process's rows are committed and its database closed. MPI:
  // waits for all ranks, then rank 0 merges the per-rank SQLite files;
  // `summary` gets a line to print ("merged 3 rank databases: ...").
  virtual Status Finish(std::string* summary) = 0;
  // Ends the scan after an error: under MPI aborts every rank with `code`.
  virtual void Fail(int code) = 0;
};

StatusOr<std::unique_ptr<ScanPartition>> MakeRunDispatcher(const PartitionOptions& options,
                                                           size_t run_count,
                                                           const EnvLookup& env = ProcessEnv());

// res.db -> res.rank3.db, sqlite:x/res.db -> sqlite:x/res.rank3.db.
std::string RankDatabaseUrl(const std::string& url, int rank);

}  // namespace th::scan
