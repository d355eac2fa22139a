#include "core/import/common/byte_source.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/import/common/gzip_source.h"
#include "core/import/common/regular_file.h"

namespace th {

namespace {

class FileSource final : public ByteSource {
 public:
  FileSource(std::string path, int fd, uint64_t size)
      : path_(std::move(path)), fd_(fd), size_(size) {
#ifdef POSIX_FADV_SEQUENTIAL
    posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  }
  ~FileSource() override {
    if (map_) ::munmap(map_, size_);
    ::close(fd_);
  }
  char* MutableMapping(size_t* size) override {
    if (!map_ && size_ > 0) {
      void* m = ::mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd_, 0);
      if (m == MAP_FAILED) return nullptr;
      ::madvise(m, size_, MADV_SEQUENTIAL);
      map_ = static_cast<char*>(m);
    }
    *size = size_;
    return map_;
  }

  StatusOr<size_t> Read(char* buf, size_t n) override {
    while (true) {
      ssize_t got = ::read(fd_, buf, n);
      if (got >= 0) {
        read_ += static_cast<uint64_t>(got);
        return static_cast<size_t>(got);
      }
      if (errno == EINTR) continue;
      return IoError(path_ + ": read failed at offset " + std::to_string(read_) + ": " +
                     std::strerror(errno));
    }
  }
  const std::string& name() const override { return path_; }
  uint64_t stored_bytes_read() const override { return read_; }
  uint64_t stored_size() const override { return size_; }

 private:
  std::string path_;
  int fd_;
  uint64_t size_;
  uint64_t read_ = 0;
  char* map_ = nullptr;
};

class MemorySource final : public ByteSource {
 public:
  MemorySource(std::string name, std::string bytes)
      : name_(std::move(name)), bytes_(std::move(bytes)) {}
  StatusOr<size_t> Read(char* buf, size_t n) override {
    size_t k = std::min(n, bytes_.size() - pos_);
    std::memcpy(buf, bytes_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  const std::string& name() const override { return name_; }
  uint64_t stored_bytes_read() const override { return pos_; }
  uint64_t stored_size() const override { return bytes_.size(); }

 private:
  std::string name_;
  std::string bytes_;
  size_t pos_ = 0;
};

// Replays a sniffed prefix, then continues with the wrapped source.
class PrefixedSource final : public ByteSource {
 public:
  PrefixedSource(std::string prefix, std::unique_ptr<ByteSource> rest)
      : prefix_(std::move(prefix)), rest_(std::move(rest)) {}
  StatusOr<size_t> Read(char* buf, size_t n) override {
    if (pos_ < prefix_.size()) {
      size_t k = std::min(n, prefix_.size() - pos_);
      std::memcpy(buf, prefix_.data() + pos_, k);
      pos_ += k;
      return k;
    }
    return rest_->Read(buf, n);
  }
  const std::string& name() const override { return rest_->name(); }
  uint64_t stored_bytes_read() const override { return rest_->stored_bytes_read(); }
  uint64_t stored_size() const override { return rest_->stored_size(); }
  std::string truncation() const override { return rest_->truncation(); }
  char* MutableMapping(size_t* size) override {
    return pos_ == 0 ? rest_->MutableMapping(size) : nullptr;
  }

 private:
  std::string prefix_;
  size_t pos_ = 0;
  std::unique_ptr<ByteSource> rest_;
};

}  // namespace

StatusOr<std::unique_ptr<ByteSource>> OpenFileSource(const std::string& path) {
  auto file = OpenRegularFile(path);
  if (!file.ok()) return file.status();
  return std::unique_ptr<ByteSource>(std::make_unique<FileSource>(path, file->fd, file->size));
}

std::unique_ptr<ByteSource> MakeMemorySource(std::string name, std::string bytes) {
  return std::make_unique<MemorySource>(std::move(name), std::move(bytes));
}

std::unique_ptr<ByteSource> MakePrefixedSource(std::string prefix,
                                               std::unique_ptr<ByteSource> rest) {
  return std::make_unique<PrefixedSource>(std::move(prefix), std::move(rest));
}

StatusOr<std::unique_ptr<ByteSource>> OpenDecoded(std::unique_ptr<ByteSource> raw,
                                                  Compression* compression, bool keep_truncated) {
  std::string prefix(2, '\0');
  size_t have = 0;
  while (have < prefix.size()) {
    auto got = raw->Read(prefix.data() + have, prefix.size() - have);
    if (!got.ok()) return got.status();
    if (*got == 0) break;
    have += *got;
  }
  prefix.resize(have);
  bool gzip = have == 2 && static_cast<unsigned char>(prefix[0]) == 0x1f &&
              static_cast<unsigned char>(prefix[1]) == 0x8b;
  if (compression) *compression = gzip ? Compression::kGzip : Compression::kNone;
  auto replay = std::make_unique<PrefixedSource>(std::move(prefix), std::move(raw));
  if (gzip) return MakeGzipSource(std::move(replay), keep_truncated);
  return std::unique_ptr<ByteSource>(std::move(replay));
}

StatusOr<std::string> ReadAll(ByteSource& source) {
  std::string out;
  size_t len = 0;
  while (true) {
    out.resize(len + (1 << 20));
    auto got = source.Read(out.data() + len, out.size() - len);
    if (!got.ok()) return got.status();
    if (*got == 0) break;
    len += *got;
  }
  out.resize(len);
  return out;
}

}  // namespace th
