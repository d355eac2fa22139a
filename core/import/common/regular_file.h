// Inputs are regular files. A FIFO with no writer would block an open or a
// read forever, a device can be endless, a directory or socket cannot be read
// as a trace: each is refused with a message naming the file and its type,
// before anything can wait on it. Symlinks are followed.
#pragma once

#include <string>

#include "core/graph/status.h"

namespace th {

// "FIFO", "character device", "directory", ... for a st_mode.
std::string FileTypeName(unsigned mode);

// Ok when `path` is a regular file (stat only: never blocks).
Status CheckRegularFile(const std::string& path);

// Opens `path` read-only (O_CLOEXEC) when it is a regular file; returns the
// descriptor (the caller closes it) and its size.
struct OpenedFile {
  int fd = -1;
  uint64_t size = 0;
};
StatusOr<OpenedFile> OpenRegularFile(const std::string& path);

}  // namespace th
