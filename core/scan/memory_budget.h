// Sizing scan concurrency to memory: a run's footprint is predicted from its
// files, and workers take a share of a budget before scanning a run.
//
// Estimate (EstimateRunBytes): events per file from its format
// (ImporterRegistry::EstimatedEvents: Kineto JSON text bytes / 250, the text
// size of gzip content its trailer's ISIZE when plausible, else 8 x the
// stored size; archives 8 x; XSpace stored bytes / 30);
// footprint = 64 MiB + events x 160 B (the importer's measured ~75 B/event
// plus the plugins' derived tables, counted the same again).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "core/scan/run_discovery.h"

namespace th::scan {

inline constexpr uint64_t kScanBytesPerEvent = 160;
inline constexpr uint64_t kScanRunBaseBytes = 64ull << 20;

uint64_t EstimateRunEvents(const Run& run);
uint64_t EstimateRunBytes(const Run& run);

// Half of MemAvailable (/proc/meminfo), at least 256 MiB; 4 GiB when unknown.
uint64_t DefaultMemoryBudget();

// A counting budget of bytes. Acquire(n) waits until n bytes are free; a
// request larger than the whole budget waits until nothing else is held and
// then holds everything (such a run runs alone).
class MemoryBudget {
 public:
  explicit MemoryBudget(uint64_t total) : total_(total), free_(total) {}
  // Returns what was taken (pass it to Release).
  uint64_t Acquire(uint64_t bytes);
  void Release(uint64_t taken);
  uint64_t total() const { return total_; }

 private:
  const uint64_t total_;
  uint64_t free_;
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace th::scan
