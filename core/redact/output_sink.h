// Where redacted bytes go: a file that appears only when complete (written
// under a temporary name beside it, then renamed), optionally through a gzip
// compressor. Nothing half-written is ever left under the target's name.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/status.h"

namespace th::redact {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual Status Write(std::string_view bytes) = 0;
  // Writes out what is buffered (a gzip trailer); nothing may be written after.
  virtual Status Finish() = 0;
  // Bytes given to Write so far.
  uint64_t bytes_in() const { return bytes_in_; }

 protected:
  uint64_t bytes_in_ = 0;
};

// Keeps everything in memory (tests, small archive members).
class StringSink final : public ByteSink {
 public:
  Status Write(std::string_view bytes) override {
    bytes_in_ += bytes.size();
    data_.append(bytes);
    return Ok();
  }
  Status Finish() override { return Ok(); }
  const std::string& data() const { return data_; }
  std::string& data() { return data_; }

 private:
  std::string data_;
};

// Discards what it is given (a pass that only reads).
class NullSink final : public ByteSink {
 public:
  Status Write(std::string_view bytes) override {
    bytes_in_ += bytes.size();
    return Ok();
  }
  Status Finish() override { return Ok(); }
};

// `path` written atomically: the bytes go to ".<name>.tmp-XXXXXX" in the same
// folder; Commit() flushes, syncs and renames it over `path`. Destroyed
// without Commit(), it removes the temporary file.
class AtomicFileSink final : public ByteSink {
 public:
  static StatusOr<std::unique_ptr<AtomicFileSink>> Create(const std::string& path);
  ~AtomicFileSink() override;
  Status Write(std::string_view bytes) override;
  Status Finish() override;
  Status Commit();
  const std::string& path() const { return path_; }
  uint64_t bytes_written() const { return written_; }

 private:
  AtomicFileSink(std::string path, std::string tmp, int fd);
  Status Flush();
  std::string path_, tmp_;
  int fd_;
  std::vector<char> buf_;
  size_t used_ = 0;
  uint64_t written_ = 0;
  bool finished_ = false, committed_ = false;
};

// An unnamed temporary file (created in `dir` and unlinked at once): a
// redacted archive member waiting to be added to its archive.
class TempFileSink final : public ByteSink {
 public:
  static StatusOr<std::unique_ptr<TempFileSink>> Create(const std::string& dir);
  ~TempFileSink() override;
  Status Write(std::string_view bytes) override;
  Status Finish() override;
  // Reads the whole content back in pieces (after Finish).
  Status ReadBack(const std::function<Status(std::string_view)>& piece);

 private:
  explicit TempFileSink(int fd) : fd_(fd), buf_(size_t{1} << 20) {}
  Status Flush();
  int fd_;
  std::vector<char> buf_;
  size_t used_ = 0;
};

// One gzip member (isa-l igzip, level 1: fast, ~1.3x the size of gzip -9),
// written to `next`. Finish() writes the trailer and finishes `next`.
class GzipSink final : public ByteSink {
 public:
  explicit GzipSink(ByteSink* next);
  ~GzipSink() override;
  Status Write(std::string_view bytes) override;
  Status Finish() override;

 private:
  Status Deflate(const char* data, size_t n, bool last);
  struct State;
  std::unique_ptr<State> state_;
  ByteSink* next_;
  std::vector<char> in_, out_;
  size_t in_used_ = 0;
  bool finished_ = false;
};

}  // namespace th::redact
