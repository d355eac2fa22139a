#include "core/report/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "core/graph/text_escape.h"

namespace th {

namespace {

// Writes all of `text` to an already open descriptor.
bool WriteAll(int fd, std::string_view text) {
  while (!text.empty()) {
    ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// A device, FIFO or socket (or a link to one) is written where it is: renaming
// a temporary file over it would replace the node (as root, /dev/null itself).
Status WriteInPlace(const std::string& path, std::string_view text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return IoError(PrintableBytes(path) + ": cannot open: " + std::strerror(errno));
  bool ok = WriteAll(fd, text);
  int err = errno;
  ok = (::close(fd) == 0) && ok;
  if (!ok) return IoError(PrintableBytes(path) + ": cannot write: " + std::strerror(err));
  return Ok();
}

// A new path or a regular file: a temporary name beside it, then a rename.
Status WriteReplacing(const std::string& path, std::string_view text) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f)
    return IoError(PrintableBytes(path) + ": cannot create " + PrintableBytes(tmp) + ": " +
                   std::strerror(errno));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = (std::fflush(f) == 0) && ok;
  ok = (::fsync(fileno(f)) == 0 || errno == EINVAL) && ok;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    return IoError(PrintableBytes(path) + ": cannot write: " + std::strerror(err));
  }
  return Ok();
}

}  // namespace

Status WriteOutput(const std::string& path, std::string_view text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    return std::cout ? Ok() : IoError("cannot write to standard output");
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return WriteReplacing(path, text);  // a new path
  if (S_ISDIR(st.st_mode)) return IoError(PrintableBytes(path) + ": is a directory");
  if (!S_ISREG(st.st_mode)) return WriteInPlace(path, text);
  // A regular file, or a link to one: replace the file the link points to,
  // keeping the link.
  std::error_code ec;
  std::filesystem::path target = std::filesystem::canonical(path, ec);
  return WriteReplacing(ec ? path : target.string(), text);
}

}  // namespace th
