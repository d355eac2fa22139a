#include "core/redact/async_io.h"

#include <cstring>

namespace th::redact {

namespace {
constexpr size_t kBlock = size_t{4} << 20;
constexpr size_t kDepth = 4;
}  // namespace

PrefetchSource::PrefetchSource(ByteSource& in) : in_(in) {
  thread_ = std::thread([this] { Loop(); });
}

PrefetchSource::~PrefetchSource() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void PrefetchSource::Loop() {
  while (true) {
    Block b;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        b.data = std::move(free_.front());
        free_.pop_front();
      }
    }
    b.data.resize(kBlock);
    size_t have = 0;
    while (have < kBlock) {
      auto got = in_.Read(b.data.data() + have, kBlock - have);
      if (!got.ok()) {
        b.status = got.status();
        break;
      }
      if (*got == 0) break;
      have += *got;
    }
    b.data.resize(have);
    const bool last = have == 0 || !b.status.ok();
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return stop_ || ready_.size() < kDepth; });
    if (stop_) return;
    ready_.push_back(std::move(b));
    if (last) done_ = true;
    cv_.notify_all();
    if (last) return;
  }
}

StatusOr<size_t> PrefetchSource::Read(char* buf, size_t n) {
  while (pos_ == current_.data.size()) {
    if (ended_) return size_t{0};
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !ready_.empty(); });
    if (current_.data.capacity() >= kBlock) free_.push_back(std::move(current_.data));
    current_ = std::move(ready_.front());
    ready_.pop_front();
    cv_.notify_all();
    pos_ = 0;
    if (!current_.status.ok()) {
      ended_ = true;
      return current_.status;
    }
    if (current_.data.empty()) {
      ended_ = true;
      return size_t{0};
    }
  }
  size_t k = std::min(n, current_.data.size() - pos_);
  std::memcpy(buf, current_.data.data() + pos_, k);
  pos_ += k;
  return k;
}

// ---------------------------------------------------------------------------

AsyncSink::AsyncSink(ByteSink* next) : next_(next) {
  current_.reserve(kBlock);
  thread_ = std::thread([this] { Loop(); });
}

AsyncSink::~AsyncSink() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void AsyncSink::Loop() {
  while (true) {
    std::string block;
    bool last = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !queue_.empty() || last_queued_; });
      if (queue_.empty()) {
        if (last_queued_ || stop_) {
          exited_ = true;
          cv_.notify_all();
          return;
        }
        continue;
      }
      block = std::move(queue_.front());
      queue_.pop_front();
      last = queue_.empty() && last_queued_;
      cv_.notify_all();
    }
    Status s = block.empty() ? Ok() : next_->Write(block);
    if (s.ok() && last) s = next_->Finish();
    std::lock_guard<std::mutex> lock(mu_);
    block.clear();
    if (block.capacity() >= kBlock) free_.push_back(std::move(block));
    if (!s.ok() && status_.ok()) status_ = s;
    if (!status_.ok() || last) {
      exited_ = true;
      queue_.clear();
      cv_.notify_all();
      return;
    }
  }
}

Status AsyncSink::Push(bool last) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return exited_ || queue_.size() < kDepth; });
  if (!status_.ok()) return status_;
  if (exited_) return Internal("output thread ended early");
  queue_.push_back(std::move(current_));
  current_ = std::string();
  if (!free_.empty()) {
    current_ = std::move(free_.front());
    free_.pop_front();
  } else if (!last) {
    current_.reserve(kBlock);
  }
  if (last) last_queued_ = true;
  cv_.notify_all();
  return Ok();
}

Status AsyncSink::Write(std::string_view bytes) {
  bytes_in_ += bytes.size();
  while (!bytes.empty()) {
    size_t n = std::min(bytes.size(), kBlock - current_.size());
    current_.append(bytes.data(), n);
    bytes.remove_prefix(n);
    if (current_.size() == kBlock) TH_RETURN_IF_ERROR(Push(false));
  }
  return Ok();
}

Status AsyncSink::Finish() {
  TH_RETURN_IF_ERROR(Push(true));
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return exited_; });
  return status_;
}

}  // namespace th::redact
