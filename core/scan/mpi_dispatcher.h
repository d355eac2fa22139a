// Runs handed out on demand across the ranks of an Open MPI job:
//   mpirun -np N tracehound scan ...
// Rank 0 serves run indices from a service thread (request/reply messages,
// one 8-byte integer each way) and scans too; ranks 1..N-1 ask for a run
// whenever one of their scanner threads is free, so fast and slow ranks stay
// busy until the list is empty (dynamic, not a static split). A request
// carries the asker's run count: every rank discovers the runs itself, and a
// rank that found a different list is refused rather than scanning the wrong
// runs.
//
// Waits poll with short sleeps instead of spinning, so an
// oversubscribed node (more ranks than cores) keeps its cores for scanning.
//
// MPI is initialised only when the process was launched by mpirun (see
// LaunchedByMpirun); a plain `tracehound scan` never touches MPI.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "core/graph/status.h"
#include "core/scan/run_dispatcher.h"
#include "core/scan/shard_dispatcher.h"

namespace th::scan {

// Whether this tracehound was built with MPI (find_package(MPI) found it).
bool MpiBuilt();

// Whether mpirun started this process: Open MPI's OMPI_COMM_WORLD_SIZE or
// PMIx's PMIX_RANK is set. The world size from the environment (1 if unset).
bool LaunchedByMpirun(const EnvLookup& env = ProcessEnv());
int MpiWorldSizeFromEnv(const EnvLookup& env = ProcessEnv());

class MpiRunDispatcher;

// The MPI world of this process. Init once (it loads the scan-mpi module, so
// that only a process launched by mpirun maps libmpi); destruction finalises.
// Every MPI call is made under one mutex (MPI is initialised with
// MPI_THREAD_SERIALIZED), so scanner threads may call a dispatcher's Next()
// concurrently.
class MpiWorld {
 public:
  static StatusOr<std::unique_ptr<MpiWorld>> Init();
  virtual ~MpiWorld() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Waits until every rank has called it.
  virtual Status Barrier() = 0;
  // Ends every rank of the job with `code` (MPI_Abort); does not return. A
  // rank that fails must not leave the others waiting.
  [[noreturn]] virtual void Abort(int code) = 0;
  // `rank0_scans`: rank 0 takes runs too (always when the world has 1 rank).
  virtual std::unique_ptr<MpiRunDispatcher> MakeDispatcher(size_t run_count,
                                                           bool rank0_scans = true) = 0;
};

class MpiRunDispatcher : public RunDispatcher {
 public:
  // Call once this rank's scan is over: rank 0 waits until every other rank
  // has been told the list is empty, then all ranks meet at a barrier (after
  // it every rank's rows are committed). Error when a rank's run list differed.
  virtual Status Finish() = 0;
  // Runs this rank scanned (took from Next()).
  virtual size_t taken() const = 0;
};

}  // namespace th::scan
