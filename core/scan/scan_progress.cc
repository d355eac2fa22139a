#include "core/scan/scan_progress.h"

#include <cstdio>

namespace th::scan {

namespace {

std::string Size(uint64_t bytes) {
  char buf[32];
  if (bytes >= 1000000000)
    std::snprintf(buf, sizeof buf, "%.2f GB", static_cast<double>(bytes) / 1e9);
  else if (bytes >= 1000000)
    std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.1f kB", static_cast<double>(bytes) / 1e3);
  return buf;
}

std::string Clock(double seconds) {
  long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

}  // namespace

void ScanProgress::Start(size_t runs, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  total_ = runs;
  total_bytes_ = bytes;
  start_ = last_draw_ = std::chrono::steady_clock::now();
  if (terminal_) Draw(true);
}

void ScanProgress::RunDone(const std::string& location, uint64_t bytes, Outcome outcome,
                           double seconds, const std::string& error) {
  std::lock_guard<std::mutex> lock(mu_);
  ++done_;
  done_bytes_ += bytes;
  if (outcome == Outcome::kScanned || outcome == Outcome::kFailed) scanned_bytes_ += bytes;
  if (outcome == Outcome::kFailed) ++failed_;
  if (outcome == Outcome::kSkipped || outcome == Outcome::kNotTrace) ++skipped_;
  if (terminal_) {
    if (outcome == Outcome::kFailed) {
      out_ << "\r\033[K"
           << "FAILED " << error << "\n";
      Draw(true);
    } else {
      Draw(false);
    }
    return;
  }
  char head[64];
  std::snprintf(head, sizeof head, "[%zu/%zu] ", done_, total_);
  out_ << head;
  switch (outcome) {
    case Outcome::kScanned: {
      char t[32];
      std::snprintf(t, sizeof t, "%.2f s", seconds);
      out_ << "ok " << Size(bytes) << " " << t << "  " << location << "\n";
      break;
    }
    case Outcome::kSkipped:
      out_ << "skipped (already scanned)  " << location << "\n";
      break;
    case Outcome::kNotTrace:
      out_ << "skipped (not a trace: " << error << ")  " << location << "\n";
      break;
    case Outcome::kFailed:
      out_ << "FAILED " << error << "\n";
      break;
  }
  out_.flush();
}

void ScanProgress::Draw(bool force) {
  auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(200) && done_ != total_) return;
  last_draw_ = now;
  double elapsed = std::chrono::duration<double>(now - start_).count();
  constexpr int kWidth = 24;
  int filled = total_ ? static_cast<int>(kWidth * done_ / total_) : kWidth;
  std::string bar(filled, '#');
  bar.append(kWidth - filled, '.');
  double rate = elapsed > 0 ? static_cast<double>(scanned_bytes_) / elapsed / 1e9 : 0;
  std::string eta = "--:--";
  // The bytes left at the rate of the runs actually scanned (runs skipped as
  // already stored take almost no time and would make the ETA too short).
  if (scanned_bytes_ > 0 && elapsed > 0 && total_bytes_ >= done_bytes_) {
    eta = Clock(elapsed * static_cast<double>(total_bytes_ - done_bytes_) /
                static_cast<double>(scanned_bytes_));
  }
  char line[200];
  std::snprintf(line, sizeof line, "\r\033[K[%s] %zu/%zu runs  %.2f GB/s  ETA %s  %zu failed",
                bar.c_str(), done_, total_, rate, eta.c_str(), failed_);
  out_ << line;
  out_.flush();
}

void ScanProgress::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (terminal_) {
    Draw(true);
    out_ << "\n";
  }
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char line[240];
  std::snprintf(line, sizeof line,
                "scan: %zu runs, %zu scanned, %zu skipped, %zu failed; %s in %.1f s (%.2f GB/s, "
                "%.1f runs/s)\n",
                done_, done_ - skipped_ - failed_, skipped_, failed_, Size(scanned_bytes_).c_str(),
                elapsed, elapsed > 0 ? static_cast<double>(scanned_bytes_) / elapsed / 1e9 : 0.0,
                elapsed > 0 ? static_cast<double>(done_ - skipped_) / elapsed : 0.0);
  out_ << line;
  out_.flush();
}

}  // namespace th::scan
