// Progress of a fleet scan, to a stream (stderr in the CLI).
//
// On a terminal: one line redrawn at most 5 times a second:
//   [#########.........] 412/1000 runs  1.31 GB/s  ETA 0:42  2 failed
// Elsewhere: one plain line per finished run:
//   [412/1000] ok 1.2 MB 0.31 s  runs/job42/rank*
//   [413/1000] FAILED runs/bad.json.gz: <error>
// and a summary line at the end in both modes. Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>

namespace th::scan {

class ScanProgress {
 public:
  ScanProgress(std::ostream& out, bool terminal) : out_(out), terminal_(terminal) {}

  // `runs` this process will handle (may be an estimate under MPI), `bytes`
  // their size.
  void Start(size_t runs, uint64_t bytes);
  enum class Outcome { kScanned, kSkipped, kFailed, kNotTrace };
  void RunDone(const std::string& location, uint64_t bytes, Outcome outcome, double seconds,
               const std::string& error = "");
  void Finish();

 private:
  void Draw(bool force);
  std::ostream& out_;
  const bool terminal_;
  std::mutex mu_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  size_t total_ = 0, done_ = 0, failed_ = 0, skipped_ = 0;
  uint64_t total_bytes_ = 0, done_bytes_ = 0, scanned_bytes_ = 0;
};

}  // namespace th::scan
