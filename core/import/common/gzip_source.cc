#include "core/import/common/gzip_source.h"

#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace th {

namespace {

class GzipSource final : public ByteSource {
 public:
  GzipSource(std::unique_ptr<ByteSource> in, bool keep_truncated)
      : in_(std::move(in)), buf_(new uint8_t[kBufferBytes]), keep_truncated_(keep_truncated) {
    isal_inflate_init(&state_);
    state_.crc_flag = ISAL_GZIP;
  }

  StatusOr<size_t> Read(char* out, size_t n) override {
    if (!whole_error_.ok()) return whole_error_;
    if (whole_read_ < whole_size_) {  // decoded by MutableMapping, not mapped
      const size_t k = std::min(n, whole_size_ - whole_read_);
      std::memcpy(out, whole_.get() + whole_read_, k);
      whole_read_ += k;
      if (whole_read_ == whole_size_) whole_.reset();  // read out: the stream goes on
      return k;
    }
    return Inflate(out, n);
  }

  // A small stream is decoded whole into memory on the first call, before any
  // read, and handed out as a mapping (the reader then parses in place instead
  // of copying every chunk). A stream that decodes to more than kWholeLimit
  // stays a stream: what was decoded is read first, then the rest.
  char* MutableMapping(size_t* size) override {
    if (total_out_ != 0 || whole_tried_) return whole_mapped_ ? Mapping(size) : nullptr;
    whole_tried_ = true;
    // Compressed JSON is 5-20x smaller than its text: a stream stored in more
    // than a quarter of the limit would decode past it.
    if (in_->stored_size() == 0 || in_->stored_size() > kWholeLimit / 4) return nullptr;
    size_t capacity = std::clamp<size_t>(in_->stored_size() * 16, size_t{1} << 16, kWholeLimit);
    whole_.reset(static_cast<char*>(std::malloc(capacity)));
    while (whole_) {
      auto got = Inflate(whole_.get() + whole_size_, capacity - whole_size_);
      if (!got.ok()) {
        whole_error_ = got.status();
        return nullptr;
      }
      whole_size_ += *got;
      if (*got == 0 || done_) break;
      if (whole_size_ < capacity) continue;
      if (capacity == kWholeLimit) return nullptr;  // too big: read as a stream
      capacity = std::min(capacity * 2, kWholeLimit);
      char* grown = static_cast<char*>(std::realloc(whole_.get(), capacity));
      if (!grown) return nullptr;
      (void)whole_.release();
      whole_.reset(grown);
    }
    if (!whole_ || whole_size_ == 0) return nullptr;
    whole_mapped_ = true;
    whole_read_ = whole_size_;
    return Mapping(size);
  }

 private:
  char* Mapping(size_t* size) {
    *size = whole_size_;
    return whole_.get();
  }

  StatusOr<size_t> Inflate(char* out, size_t n) {
    if (done_ || n == 0) return size_t{0};
    state_.next_out = reinterpret_cast<uint8_t*>(out);
    state_.avail_out = static_cast<uint32_t>(std::min<size_t>(n, 1u << 30));
    while (state_.avail_out > 0) {
      if (state_.block_state == ISAL_BLOCK_FINISH) {
        // One member ended. Another may follow (multi-member gzip); trailing
        // zero padding is tolerated, anything else must be a gzip header.
        if (!SkipPaddingAndCheckMore()) {
          done_ = true;
          break;
        }
        uint8_t* next_in = state_.next_in;
        uint32_t avail_in = state_.avail_in;
        isal_inflate_reset(&state_);
        state_.crc_flag = ISAL_GZIP;
        state_.next_in = next_in;
        state_.avail_in = avail_in;
      }
      if (state_.avail_in == 0) {
        auto got = Refill();
        if (!got.ok()) return got.status();
        if (*got == 0) {
          std::string what = "truncated gzip stream: input ends at compressed offset " +
                             std::to_string(in_->stored_bytes_read()) +
                             " before the end of the compressed data (" +
                             std::to_string(total_out_ + Produced(out)) + " bytes decompressed)";
          if (!keep_truncated_) return InvalidInput(name() + ": " + what);
          truncation_ = what;
          done_ = true;
          break;
        }
      }
      int ret = isal_inflate(&state_);
      if (ret != ISAL_DECOMP_OK) {
        return InvalidInput(name() + ": corrupt gzip data near compressed offset " +
                            std::to_string(in_->stored_bytes_read() - state_.avail_in) + " (" +
                            ErrorName(ret) + ")");
      }
    }
    size_t produced = Produced(out);
    total_out_ += produced;
    return produced;
  }

 public:
  const std::string& name() const override { return in_->name(); }
  uint64_t stored_bytes_read() const override { return in_->stored_bytes_read(); }
  uint64_t stored_size() const override { return in_->stored_size(); }
  std::string truncation() const override { return truncation_; }

 private:
  size_t Produced(char* out) const { return reinterpret_cast<char*>(state_.next_out) - out; }

  StatusOr<size_t> Refill() {
    auto got = in_->Read(reinterpret_cast<char*>(buf_.get()), refill_bytes_);
    if (!got.ok()) return got.status();
    refill_bytes_ = std::min(kBufferBytes, refill_bytes_ * 4);
    state_.next_in = buf_.get();
    state_.avail_in = static_cast<uint32_t>(*got);
    return *got;
  }

  bool SkipPaddingAndCheckMore() {
    while (true) {
      while (state_.avail_in > 0 && *state_.next_in == 0) {
        ++state_.next_in;
        --state_.avail_in;
      }
      if (state_.avail_in > 0) return true;
      auto got = Refill();
      if (!got.ok() || *got == 0) return false;
    }
  }

  static std::string ErrorName(int ret) {
    switch (ret) {
      case ISAL_END_INPUT:
        return "end of input";
      case ISAL_INVALID_BLOCK:
        return "invalid deflate block";
      case ISAL_INVALID_SYMBOL:
        return "invalid deflate symbol";
      case ISAL_INVALID_LOOKBACK:
        return "invalid lookback distance";
      case ISAL_INVALID_WRAPPER:
        return "invalid gzip header";
      case ISAL_UNSUPPORTED_METHOD:
        return "unsupported compression method";
      case ISAL_INCORRECT_CHECKSUM:
        return "CRC mismatch";
      default:
        return "isa-l error " + std::to_string(ret);
    }
  }

  // Compressed input, not zero-filled: only the bytes read are touched (a
  // zeroed MiB per source cost a memset and 256 page faults, twice per file).
  static constexpr size_t kBufferBytes = size_t{1} << 20;
  // Reads start small and grow to the buffer: a sniff of the decoded head
  // (4 KiB) reads 64 KiB of the file, not a whole MiB.
  size_t refill_bytes_ = size_t{64} << 10;
  // Decoded content held whole (MutableMapping), up to 64 MiB.
  static constexpr size_t kWholeLimit = size_t{64} << 20;
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> whole_;
  size_t whole_size_ = 0, whole_read_ = 0;
  bool whole_tried_ = false, whole_mapped_ = false;
  Status whole_error_;
  std::unique_ptr<ByteSource> in_;
  std::unique_ptr<uint8_t[]> buf_;
  inflate_state state_{};
  bool done_ = false;
  uint64_t total_out_ = 0;
  bool keep_truncated_;
  std::string truncation_;
};

}  // namespace

std::unique_ptr<ByteSource> MakeGzipSource(std::unique_ptr<ByteSource> compressed,
                                           bool keep_truncated) {
  return std::make_unique<GzipSource>(std::move(compressed), keep_truncated);
}

}  // namespace th
