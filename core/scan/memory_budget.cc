#include "core/scan/memory_budget.h"

#include <algorithm>
#include <fstream>
#include <string>

#include "core/import/importer_registry.h"

namespace th::scan {

uint64_t EstimateRunEvents(const Run& run) {
  uint64_t events = 0;
  for (const RunFile& f : run.files) events += Registry().EstimatedEvents(f.path, f.bytes);
  return events;
}

uint64_t EstimateRunBytes(const Run& run) {
  return kScanRunBaseBytes + EstimateRunEvents(run) * kScanBytesPerEvent;
}

uint64_t DefaultMemoryBudget() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit) {
    if (key == "MemAvailable:") return std::max<uint64_t>(kib * 1024 / 2, 256ull << 20);
  }
  return 4ull << 30;
}

uint64_t MemoryBudget::Acquire(uint64_t bytes) {
  uint64_t want = std::min(bytes, total_);
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return free_ >= want; });
  free_ -= want;
  return want;
}

void MemoryBudget::Release(uint64_t taken) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    free_ += taken;
  }
  cv_.notify_all();
}

}  // namespace th::scan
