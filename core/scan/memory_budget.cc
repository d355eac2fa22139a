#include "core/scan/memory_budget.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace th::scan {

namespace {

// The uncompressed size a gzip file declares in its trailer (mod 2^32), when
// it is at least the compressed size and at most 64 x it.
uint64_t GzipTextBytes(const RunFile& f) {
  uint64_t guess = f.bytes * 8;
  std::FILE* file = std::fopen(f.path.c_str(), "rb");
  if (!file) return guess;
  unsigned char tail[4];
  bool ok =
      f.bytes >= 18 && std::fseek(file, -4, SEEK_END) == 0 && std::fread(tail, 1, 4, file) == 4;
  std::fclose(file);
  if (!ok) return guess;
  uint64_t isize = uint64_t{tail[0]} | uint64_t{tail[1]} << 8 | uint64_t{tail[2]} << 16 |
                   uint64_t{tail[3]} << 24;
  if (isize < f.bytes || isize > f.bytes * 64) return guess;
  return isize;
}

}  // namespace

uint64_t EstimateRunEvents(const Run& run) {
  uint64_t events = 0;
  for (const RunFile& f : run.files) {
    if (f.path.ends_with(".xplane.pb")) {
      events += f.bytes / 30;
    } else if (f.path.ends_with(".gz") && !f.path.ends_with(".tar.gz")) {
      events += GzipTextBytes(f) / 250;
    } else if (f.path.ends_with(".json")) {
      events += f.bytes / 250;
    } else {
      events += f.bytes * 8 / 250;  // archives
    }
  }
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
