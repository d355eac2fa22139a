// A three-stage pipeline around the JSON rewriter: one thread reads (and
// inflates) ahead, one compresses and writes behind, so the rewriter's thread
// only rewrites. Bounded: a few blocks of 4 MiB in flight each way.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/import/common/byte_source.h"
#include "core/redact/output_sink.h"

namespace th::redact {

// Reads `in` on a thread of its own, a block ahead of the caller.
class PrefetchSource final : public ByteSource {
 public:
  explicit PrefetchSource(ByteSource& in);
  ~PrefetchSource() override;
  StatusOr<size_t> Read(char* buf, size_t n) override;
  const std::string& name() const override { return in_.name(); }
  uint64_t stored_bytes_read() const override { return in_.stored_bytes_read(); }

 private:
  struct Block {
    std::string data;
    Status status;  // an error ends the stream
  };
  void Loop();
  ByteSource& in_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Block> ready_;
  std::deque<std::string> free_;  // buffers to reuse (no page faults per block)
  bool done_ = false, stop_ = false;
  Block current_;
  size_t pos_ = 0;
  bool ended_ = false;
  std::thread thread_;
};

// Hands what is written to `next` on a thread of its own. Finish() drains the
// queue and finishes `next` there; the first error of `next` is returned by
// the Write or Finish after it.
class AsyncSink final : public ByteSink {
 public:
  explicit AsyncSink(ByteSink* next);
  ~AsyncSink() override;
  Status Write(std::string_view bytes) override;
  Status Finish() override;

 private:
  void Loop();
  Status Push(bool last);
  ByteSink* next_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::deque<std::string> free_;
  bool last_queued_ = false, stop_ = false, exited_ = false;
  Status status_;
  std::string current_;
  std::thread thread_;
};

}  // namespace th::redact
