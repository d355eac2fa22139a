#include "core/redact/output_sink.h"

#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace th::redact {

namespace {
constexpr size_t kFileBuffer = size_t{1} << 20;
constexpr size_t kGzipChunk = size_t{1} << 20;

std::string Errno() { return std::strerror(errno); }

// Writes all of `bytes` to `fd`; on failure the error says "<cannot_write>: <errno text>".
Status WriteAll(int fd, std::string_view bytes, std::string_view cannot_write) {
  while (!bytes.empty()) {
    ssize_t w = ::write(fd, bytes.data(), bytes.size());
    if (w < 0) {
      if (errno == EINTR) continue;
      return IoError(std::string(cannot_write) + ": " + Errno());
    }
    bytes.remove_prefix(static_cast<size_t>(w));
  }
  return Ok();
}

// Appends `bytes` to the first *used bytes of `buffer`; each time it is full,
// drain() must pass its content on and set *used to 0.
template <class Drain>
Status AppendBuffered(std::string_view bytes, std::vector<char>& buffer, size_t* used,
                      Drain drain) {
  while (!bytes.empty()) {
    size_t n = std::min(bytes.size(), buffer.size() - *used);
    std::memcpy(buffer.data() + *used, bytes.data(), n);
    *used += n;
    bytes.remove_prefix(n);
    if (*used == buffer.size()) TH_RETURN_IF_ERROR(drain());
  }
  return Ok();
}
}  // namespace

// ---------------------------------------------------------------------------

StatusOr<std::unique_ptr<AtomicFileSink>> AtomicFileSink::Create(const std::string& path) {
  std::filesystem::path p(path);
  std::string dir = p.parent_path().string();
  if (dir.empty()) dir = ".";
  std::string tmpl = dir + "/." + p.filename().string() + ".tmp-XXXXXX";
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return IoError(path + ": cannot create a temporary file in " + dir + ": " + Errno());
  (void)::fchmod(fd, 0644);
  return std::unique_ptr<AtomicFileSink>(new AtomicFileSink(path, tmpl, fd));
}

AtomicFileSink::AtomicFileSink(std::string path, std::string tmp, int fd)
    : path_(std::move(path)), tmp_(std::move(tmp)), fd_(fd), buf_(kFileBuffer) {}

AtomicFileSink::~AtomicFileSink() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(tmp_.c_str());
}

Status AtomicFileSink::Flush() {
  TH_RETURN_IF_ERROR(WriteAll(fd_, std::string_view(buf_.data(), used_), path_ + ": cannot write"));
  written_ += used_;
  used_ = 0;
  return Ok();
}

Status AtomicFileSink::Write(std::string_view bytes) {
  bytes_in_ += bytes.size();
  return AppendBuffered(bytes, buf_, &used_, [this] { return Flush(); });
}

Status AtomicFileSink::Finish() {
  if (finished_) return Ok();
  TH_RETURN_IF_ERROR(Flush());
  if (::fsync(fd_) != 0 && errno != EINVAL) return IoError(path_ + ": cannot sync: " + Errno());
  finished_ = true;
  return Ok();
}

Status AtomicFileSink::Commit() {
  TH_RETURN_IF_ERROR(Finish());
  if (::close(fd_) != 0) {
    fd_ = -1;
    return IoError(path_ + ": cannot close: " + Errno());
  }
  fd_ = -1;
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0)
    return IoError(path_ + ": cannot rename the finished file into place: " + Errno());
  committed_ = true;
  return Ok();
}

// ---------------------------------------------------------------------------

StatusOr<std::unique_ptr<TempFileSink>> TempFileSink::Create(const std::string& dir) {
  std::string tmpl = dir + "/.tracehound-redact-member-XXXXXX";
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return IoError(dir + ": cannot create a temporary file: " + Errno());
  ::unlink(tmpl.c_str());
  return std::unique_ptr<TempFileSink>(new TempFileSink(fd));
}

TempFileSink::~TempFileSink() {
  if (fd_ >= 0) ::close(fd_);
}

Status TempFileSink::Flush() {
  TH_RETURN_IF_ERROR(
      WriteAll(fd_, std::string_view(buf_.data(), used_), "cannot write a temporary file"));
  used_ = 0;
  return Ok();
}

Status TempFileSink::Write(std::string_view bytes) {
  bytes_in_ += bytes.size();
  return AppendBuffered(bytes, buf_, &used_, [this] { return Flush(); });
}

Status TempFileSink::Finish() { return Flush(); }

Status TempFileSink::ReadBack(const std::function<Status(std::string_view)>& piece) {
  if (::lseek(fd_, 0, SEEK_SET) != 0) return IoError("cannot rewind a temporary file: " + Errno());
  while (true) {
    ssize_t got = ::read(fd_, buf_.data(), buf_.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      return IoError("cannot read a temporary file: " + Errno());
    }
    if (got == 0) return Ok();
    TH_RETURN_IF_ERROR(piece(std::string_view(buf_.data(), static_cast<size_t>(got))));
  }
}

// ---------------------------------------------------------------------------

struct GzipSink::State {
  isal_zstream stream;
  std::vector<uint8_t> level_buf;
};

GzipSink::GzipSink(ByteSink* next)
    : state_(std::make_unique<State>()), next_(next), in_(kGzipChunk), out_(kGzipChunk + 4096) {
  isal_deflate_init(&state_->stream);
  state_->stream.gzip_flag = IGZIP_GZIP;
  state_->stream.level = 1;
  state_->level_buf.resize(ISAL_DEF_LVL1_DEFAULT);
  state_->stream.level_buf = state_->level_buf.data();
  state_->stream.level_buf_size = static_cast<uint32_t>(state_->level_buf.size());
}

GzipSink::~GzipSink() = default;

Status GzipSink::Deflate(const char* data, size_t n, bool last) {
  isal_zstream& z = state_->stream;
  z.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(data));
  z.avail_in = static_cast<uint32_t>(n);
  z.end_of_stream = last ? 1 : 0;
  z.flush = NO_FLUSH;
  do {
    z.next_out = reinterpret_cast<uint8_t*>(out_.data());
    z.avail_out = static_cast<uint32_t>(out_.size());
    int ret = isal_deflate(&z);
    if (ret != COMP_OK)
      return Internal("gzip compression failed (isa-l error " + std::to_string(ret) + ")");
    size_t produced = out_.size() - z.avail_out;
    if (produced) TH_RETURN_IF_ERROR(next_->Write(std::string_view(out_.data(), produced)));
  } while (z.avail_in > 0 || (last && z.internal_state.state != ZSTATE_END));
  return Ok();
}

Status GzipSink::Write(std::string_view bytes) {
  bytes_in_ += bytes.size();
  return AppendBuffered(bytes, in_, &in_used_, [this] {
    TH_RETURN_IF_ERROR(Deflate(in_.data(), in_used_, false));
    in_used_ = 0;
    return Ok();
  });
}

Status GzipSink::Finish() {
  if (finished_) return Ok();
  TH_RETURN_IF_ERROR(Deflate(in_.data(), in_used_, true));
  in_used_ = 0;
  finished_ = true;
  return next_->Finish();
}

}  // namespace th::redact
