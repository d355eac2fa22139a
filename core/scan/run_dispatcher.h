// RunDispatcher: which runs of a scan this process takes, in which order.
//
// Every process of a scan discovers the same sorted list of runs (same inputs
// → same list), so runs are named by their index in it. A dispatcher hands
// out indices to the scanner's worker threads (Next is thread-safe) and hears
// back when each one's rows are committed (Done). Implementations:
//   LocalRunDispatcher   every run, in order (one process)
//   shard i/N            the runs with index % N == i (scheduler arrays)
//   MPI                  rank 0 hands out runs on demand to the other ranks
#pragma once

#include <atomic>
#include <cstddef>
#include <optional>

namespace th::scan {

class RunDispatcher {
 public:
  virtual ~RunDispatcher() = default;
  // The next run this process should scan, or nullopt when it has none left.
  virtual std::optional<size_t> Next() = 0;
  // The run's rows are committed (or its failure recorded).
  virtual void Done(size_t /*run*/, bool /*failed*/) {}
};

// All `count` runs, each once, in index order.
class LocalRunDispatcher final : public RunDispatcher {
 public:
  explicit LocalRunDispatcher(size_t count) : count_(count) {}
  std::optional<size_t> Next() override {
    size_t i = next_.fetch_add(1, std::memory_order_relaxed);
    if (i >= count_) return std::nullopt;
    return i;
  }

 private:
  size_t count_;
  std::atomic<size_t> next_{0};
};

}  // namespace th::scan
