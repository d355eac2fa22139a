#include "core/import/common/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/graph/text_escape.h"

namespace th {

namespace {

Status NotRegular(const std::string& path, unsigned mode) {
  return InvalidInput(PrintableBytes(path) + ": not a regular file (a " + FileTypeName(mode) +
                      "); tracehound reads trace files");
}

}  // namespace

std::string FileTypeName(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return "regular file";
    case S_IFDIR:
      return "directory";
    case S_IFIFO:
      return "FIFO";
    case S_IFCHR:
      return "character device";
    case S_IFBLK:
      return "block device";
    case S_IFSOCK:
      return "socket";
    case S_IFLNK:
      return "symbolic link";
    default:
      return "special file";
  }
}

Status CheckRegularFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return NotFound(PrintableBytes(path) + ": cannot open: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return NotRegular(path, st.st_mode);
  return Ok();
}

StatusOr<OpenedFile> OpenRegularFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO without a writer returns at once instead of
  // waiting; it is then refused by type. It does not affect regular files.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return NotFound(PrintableBytes(path) + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return IoError(PrintableBytes(path) + ": cannot stat: " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return NotRegular(path, st.st_mode);
  }
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return OpenedFile{fd, static_cast<uint64_t>(st.st_size)};
}

}  // namespace th
