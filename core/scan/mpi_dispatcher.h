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
// Threads: every MPI call of the process is made under one mutex (MPI is
// initialised with MPI_THREAD_SERIALIZED), so scanner threads may call Next()
// concurrently. Waits poll with short sleeps instead of spinning, so an
// oversubscribed node (more ranks than cores) keeps its cores for scanning.
//
// MPI is initialised only when the process was launched by mpirun (see
// LaunchedByMpirun); a plain `tracehound scan` never touches MPI.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

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

// The MPI world of this process. Init once; the destructor finalises (or
// aborts the whole job when Abort() was asked for: a rank that fails must not
// leave the others waiting).
class MpiWorld {
 public:
  static StatusOr<std::unique_ptr<MpiWorld>> Init();
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Waits until every rank has called it.
  Status Barrier();
  // Ends every rank of the job with `code` (MPI_Abort); does not return.
  [[noreturn]] void Abort(int code);
  // Held around every MPI call.
  std::mutex& mutex() { return mutex_; }

 private:
  MpiWorld() = default;
  int rank_ = 0, size_ = 1;
  std::mutex mutex_;
};

class MpiRunDispatcher final : public RunDispatcher {
 public:
  // `rank0_scans`: rank 0 takes runs too (always when the world has 1 rank).
  MpiRunDispatcher(MpiWorld& world, size_t run_count, bool rank0_scans = true);
  ~MpiRunDispatcher() override;
  std::optional<size_t> Next() override;
  // Call once this rank's scan is over: rank 0 waits until every other rank
  // has been told the list is empty, then all ranks meet at a barrier (after
  // it every rank's rows are committed). Error when a rank's run list differed.
  Status Finish();
  // Runs this rank scanned (took from Next()).
  size_t taken() const { return taken_.load(); }

 private:
  void Serve();  // rank 0's service thread
  std::optional<size_t> TakeLocal();

  MpiWorld& world_;
  const int64_t run_count_;
  const bool rank0_scans_;
  std::atomic<int64_t> next_{0};  // rank 0: next index to hand out
  std::atomic<size_t> taken_{0};
  bool exhausted_ = false;  // worker: rank 0 said there are no more (under world mutex)
  std::string error_;       // under world mutex
  std::thread server_;
};

}  // namespace th::scan
