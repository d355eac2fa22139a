#include "core/graph/file_hash.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace th {

Xxh3State NewXxh3State() {
  Xxh3State state(XXH3_createState());
  XXH3_128bits_reset(state.get());
  return state;
}

Status UpdateHashWithFile(const std::string& path, XXH3_state_t* state, uint64_t* size) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError(path + ": cannot open: " + std::strerror(errno));
  constexpr size_t kBlock = 1 << 20;
  std::unique_ptr<char[]> buffer(new char[kBlock]);
  uint64_t total = 0;
  for (;;) {
    ssize_t n = ::read(fd, buffer.get(), kBlock);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      return IoError(path + ": cannot read: " + why);
    }
    if (n == 0) break;
    XXH3_128bits_update(state, buffer.get(), static_cast<size_t>(n));
    total += static_cast<uint64_t>(n);
  }
  ::close(fd);
  if (size) *size = total;
  return Ok();
}

}  // namespace th
