// The scan-mpi module: MpiWorld and MpiRunDispatcher over Open MPI, linked
// here and nowhere else in tracehound, so that only a scan launched by mpirun
// maps libmpi.
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "core/scan/mpi_dispatcher.h"
#include "core/scan/mpi_module.h"

namespace th::scan {

namespace {

constexpr int kTagRequest = 17, kTagReply = 18;
constexpr int64_t kNoMore = -1, kMismatch = -2;

void Nap(int us) { std::this_thread::sleep_for(std::chrono::microseconds(us)); }

// Every MPI call of the process is made under mutex() (MPI is initialised
// with MPI_THREAD_SERIALIZED).
class OpenMpiWorld final : public MpiWorld {
 public:
  // MPI is initialised; the world finalises it.
  OpenMpiWorld(int rank, int size) : rank_(rank), size_(size) {}
  ~OpenMpiWorld() override;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Status Barrier() override;
  [[noreturn]] void Abort(int code) override;
  std::unique_ptr<MpiRunDispatcher> MakeDispatcher(size_t run_count, bool rank0_scans) override;
  std::mutex& mutex() { return mutex_; }

 private:
  const int rank_, size_;
  std::mutex mutex_;
};

class OpenMpiRunDispatcher final : public MpiRunDispatcher {
 public:
  OpenMpiRunDispatcher(OpenMpiWorld& world, size_t run_count, bool rank0_scans);
  ~OpenMpiRunDispatcher() override;
  std::optional<size_t> Next() override;
  Status Finish() override;
  size_t taken() const override { return taken_.load(); }

 private:
  void Serve();  // rank 0's service thread
  std::optional<size_t> TakeLocal();

  OpenMpiWorld& world_;
  const int64_t run_count_;
  const bool rank0_scans_;
  std::atomic<int64_t> next_{0};  // rank 0: next index to hand out
  std::atomic<size_t> taken_{0};
  bool exhausted_ = false;  // worker: rank 0 said there are no more (under world mutex)
  std::string error_;       // under world mutex
  std::thread server_;
};

StatusOr<std::unique_ptr<MpiWorld>> InitOpenMpiWorld() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return Internal("MPI is already initialised in this process");
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
    return Internal("MPI_Init_thread failed");
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    return Unsupported("the MPI library provides thread level " + std::to_string(provided) +
                       ", below MPI_THREAD_SERIALIZED");
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return std::unique_ptr<MpiWorld>(std::make_unique<OpenMpiWorld>(rank, size));
}

OpenMpiWorld::~OpenMpiWorld() { MPI_Finalize(); }

void OpenMpiWorld::Abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

Status OpenMpiWorld::Barrier() {
  MPI_Request request;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (MPI_Ibarrier(MPI_COMM_WORLD, &request) != MPI_SUCCESS)
      return Internal("MPI_Ibarrier failed");
  }
  for (int done = 0;;) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    }
    if (done) return Ok();
    Nap(500);
  }
}

OpenMpiRunDispatcher::OpenMpiRunDispatcher(OpenMpiWorld& world, size_t run_count, bool rank0_scans)
    : world_(world),
      run_count_(static_cast<int64_t>(run_count)),
      rank0_scans_(rank0_scans || world.size() == 1) {
  if (world_.rank() == 0 && world_.size() > 1) server_ = std::thread([this] { Serve(); });
}

OpenMpiRunDispatcher::~OpenMpiRunDispatcher() {
  if (server_.joinable()) server_.join();
}

std::optional<size_t> OpenMpiRunDispatcher::TakeLocal() {
  int64_t i = next_.fetch_add(1);
  if (i >= run_count_) return std::nullopt;
  return static_cast<size_t>(i);
}

void OpenMpiRunDispatcher::Serve() {
  int finished = 0;  // workers told kNoMore (or refused)
  while (finished < world_.size() - 1) {
    int flag = 0;
    {
      std::lock_guard<std::mutex> lock(world_.mutex());
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, kTagRequest, MPI_COMM_WORLD, &flag, &status);
      if (flag) {
        int64_t their_count = 0;
        MPI_Recv(&their_count, 1, MPI_INT64_T, status.MPI_SOURCE, kTagRequest, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        int64_t reply = kNoMore;
        if (their_count != run_count_) {
          reply = kMismatch;
          if (error_.empty())
            error_ = "MPI rank " + std::to_string(status.MPI_SOURCE) + " discovered " +
                     std::to_string(their_count) + " runs, rank 0 " + std::to_string(run_count_) +
                     ": every rank must see the same inputs (a shared file system)";
        } else if (std::optional<size_t> i = TakeLocal()) {
          reply = static_cast<int64_t>(*i);
        }
        MPI_Send(&reply, 1, MPI_INT64_T, status.MPI_SOURCE, kTagReply, MPI_COMM_WORLD);
        if (reply < 0) ++finished;
      }
    }
    if (!flag) Nap(200);
  }
}

std::optional<size_t> OpenMpiRunDispatcher::Next() {
  if (world_.rank() == 0) {
    if (!rank0_scans_) return std::nullopt;
    std::optional<size_t> i = TakeLocal();
    if (i) ++taken_;
    return i;
  }
  std::lock_guard<std::mutex> lock(world_.mutex());
  if (exhausted_) return std::nullopt;
  int64_t request = run_count_, reply = kNoMore;
  MPI_Send(&request, 1, MPI_INT64_T, 0, kTagRequest, MPI_COMM_WORLD);
  MPI_Request pending;
  MPI_Irecv(&reply, 1, MPI_INT64_T, 0, kTagReply, MPI_COMM_WORLD, &pending);
  for (int done = 0;;) {
    MPI_Test(&pending, &done, MPI_STATUS_IGNORE);
    if (done) break;
    Nap(50);
  }
  if (reply < 0) {
    exhausted_ = true;
    if (reply == kMismatch)
      error_ = "rank 0 refused this rank's run list: it discovered " + std::to_string(run_count_) +
               " runs and rank 0 a different number; every rank must see the same inputs";
    return std::nullopt;
  }
  ++taken_;
  return static_cast<size_t>(reply);
}

Status OpenMpiRunDispatcher::Finish() {
  if (world_.rank() != 0) {
    std::lock_guard<std::mutex> lock(world_.mutex());
    // Runs handed out are this rank's to scan: a scan that stopped asking
    // before the list ran out would leave rank 0 waiting (the caller aborts).
    if (!exhausted_)
      return Internal("MPI rank " + std::to_string(world_.rank()) +
                      " stopped before the run list was exhausted");
  }
  if (server_.joinable()) server_.join();
  TH_RETURN_IF_ERROR(world_.Barrier());
  std::lock_guard<std::mutex> lock(world_.mutex());
  if (!error_.empty()) return Internal(error_);
  return Ok();
}

std::unique_ptr<MpiRunDispatcher> OpenMpiWorld::MakeDispatcher(size_t run_count, bool rank0_scans) {
  return std::make_unique<OpenMpiRunDispatcher>(*this, run_count, rank0_scans);
}

}  // namespace

}  // namespace th::scan

extern "C" __attribute__((visibility("default"))) const th::scan::MpiModule* th_mpi_module() {
  static const th::scan::MpiModule module{&th::scan::InitOpenMpiWorld};
  return &module;
}
