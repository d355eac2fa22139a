#include "core/import/remote/remote_source.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace th::remote {

namespace {

class RemoteSource final : public ByteSource {
 public:
  RemoteSource(std::shared_ptr<ObjectStore> store, RemoteObject object, StreamOptions options,
               uint64_t offset)
      : store_(std::move(store)),
        object_(std::move(object)),
        options_(options),
        begin_(std::min(offset, object_.size)),
        pos_(begin_) {
    options_.chunk_bytes = std::max<size_t>(options_.chunk_bytes, 4096);
    options_.streams = std::max(options_.streams, 1);
    chunks_ = (object_.size - begin_ + options_.chunk_bytes - 1) / options_.chunk_bytes;
    int workers = static_cast<int>(std::min<uint64_t>(options_.streams, chunks_));
    for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { Work(); });
  }
  ~RemoteSource() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  StatusOr<size_t> Read(char* buf, size_t n) override {
    if (pos_ >= object_.size || n == 0) return size_t{0};
    uint64_t index = (pos_ - begin_) / options_.chunk_bytes;
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return ready_.count(index) > 0; });
    Chunk& chunk = ready_[index];
    if (!chunk.status.ok()) return chunk.status;
    size_t at = static_cast<size_t>(pos_ - begin_ - index * options_.chunk_bytes);
    size_t k = std::min(n, chunk.size - at);
    std::memcpy(buf, chunk.bytes.get() + at, k);
    pos_ += k;
    if (at + k == chunk.size) {
      // Kept for a fetch still to come; freed once every range is taken,
      // so that the last ranges' memory goes as the import ends.
      if (next_ < chunks_) spare_.push_back(std::move(chunk.bytes));
      ready_.erase(index);
      consumed_ = index + 1;
      lock.unlock();
      cv_.notify_all();
    }
    return k;
  }
  const std::string& name() const override { return object_.url; }
  uint64_t stored_bytes_read() const override { return pos_; }
  uint64_t stored_size() const override { return object_.size; }

 private:
  // A range as fetched: `size` bytes of a buffer of chunk_bytes, not
  // zero-filled first (the fetch writes every byte it reports).
  struct Chunk {
    std::unique_ptr<char[]> bytes;
    size_t size = 0;
    Status status;
  };

  // Takes the next chunk within the window ahead of the reader, fetches it
  // into a spare buffer when there is one.
  void Work() {
    while (true) {
      uint64_t index = 0;
      Chunk chunk;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] {
          return stop_ || next_ >= chunks_ ||
                 next_ < consumed_ + static_cast<uint64_t>(options_.streams);
        });
        if (stop_ || next_ >= chunks_) return;
        index = next_++;
        if (!spare_.empty()) {
          chunk.bytes = std::move(spare_.back());
          spare_.pop_back();
        }
      }
      uint64_t offset = begin_ + index * options_.chunk_bytes;
      if (!chunk.bytes) chunk.bytes.reset(new char[options_.chunk_bytes]);
      chunk.size =
          static_cast<size_t>(std::min<uint64_t>(options_.chunk_bytes, object_.size - offset));
      chunk.status = store_->ReadRange(object_, offset, chunk.size, chunk.bytes.get());
      {
        std::lock_guard<std::mutex> lock(mu_);
        ready_[index] = std::move(chunk);
      }
      cv_.notify_all();
    }
  }

  std::shared_ptr<ObjectStore> store_;
  RemoteObject object_;
  StreamOptions options_;
  uint64_t begin_ = 0;  // the object's offset of the first byte read
  uint64_t chunks_ = 0;
  uint64_t pos_ = 0;  // reader's offset in the object (reader thread only)

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<uint64_t, Chunk> ready_;
  // Buffers of chunks read, for the next fetches: the window's memory is
  // allocated (and its pages faulted in) once, not once per range.
  std::vector<std::unique_ptr<char[]>> spare_;
  uint64_t next_ = 0;      // next chunk a worker takes
  uint64_t consumed_ = 0;  // chunks the reader is done with
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace

std::unique_ptr<ByteSource> MakeRemoteSource(std::shared_ptr<ObjectStore> store,
                                             RemoteObject object, StreamOptions options,
                                             uint64_t offset) {
  return std::make_unique<RemoteSource>(std::move(store), std::move(object), options, offset);
}

}  // namespace th::remote
