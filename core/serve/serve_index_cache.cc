#include "core/serve/serve_index_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>

#include "core/graph/file_hash.h"
#include "core/graph/xxh128_hex.h"
#include "core/import/remote/object_url.h"
#include "core/import/remote/remote_inputs.h"
#include "core/import/trace_loader.h"
#include "core/serve/lod_index_io.h"

namespace th::serve {
namespace {

// A remote object's URL, ETag and size: its version, without reading it.
Status HashRemoteInto(const std::string& url, XXH3_state_t* state) {
  auto object = remote::LookUpRemoteObject(url);
  if (!object.ok()) return object.status();
  for (const std::string& part : {object->url, object->etag}) {
    const uint64_t n = part.size();
    XXH3_128bits_update(state, &n, sizeof n);
    XXH3_128bits_update(state, part.data(), part.size());
  }
  XXH3_128bits_update(state, &object->size, sizeof object->size);
  return Ok();
}

// Adds the bytes of `path` and then their count to `state`.
Status HashFileInto(const std::string& path, XXH3_state_t* state) {
  if (remote::IsRemoteInput(path)) return HashRemoteInto(path, state);
  uint64_t size = 0;
  TH_RETURN_IF_ERROR(UpdateHashWithFile(path, state, &size));
  XXH3_128bits_update(state, &size, sizeof size);
  return Ok();
}

// Adds what the fast key takes of `path` to `state`.
Status FastHashFileInto(const std::string& path, XXH3_state_t* state) {
  if (remote::IsRemoteInput(path)) return HashRemoteInto(path, state);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError(path + ": cannot open: " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return IoError(path + ": cannot stat: " + std::strerror(errno));
  }
  const int64_t facts[] = {
      static_cast<int64_t>(st.st_size),
      static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
      static_cast<int64_t>(st.st_dev), static_cast<int64_t>(st.st_ino)};
  XXH3_128bits_update(state, facts, sizeof facts);
  constexpr int64_t kMiB = 1 << 20;
  std::unique_ptr<char[]> buffer(new char[kMiB]);
  for (int64_t at : {int64_t{0}, std::max<int64_t>(0, st.st_size - kMiB)}) {
    ssize_t n;
    do n = ::pread(fd, buffer.get(), static_cast<size_t>(kMiB), at);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      return IoError(path + ": cannot read: " + why);
    }
    const XXH64_hash_t part = XXH3_64bits(buffer.get(), static_cast<size_t>(n));
    XXH3_128bits_update(state, &part, sizeof part);
  }
  ::close(fd);
  return Ok();
}

}  // namespace

std::string DefaultIndexCacheDir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/tracehound";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/tracehound";
  return "";
}

namespace {

// XXH3-128 over the index format version and, per file of `input` in the
// order ExpandInputs lists them, what `hash_file` adds.
StatusOr<std::string> KeyOfInput(const std::string& input,
                                 Status (*hash_file)(const std::string&, XXH3_state_t*)) {
  auto files = ExpandInputs({input}, nullptr);
  if (!files.ok()) return files.status();
  Xxh3State state = NewXxh3State();
  const uint32_t version = kLodFormatVersion;
  XXH3_128bits_update(state.get(), &version, sizeof version);
  for (const InputFile& f : *files) TH_RETURN_IF_ERROR(hash_file(f.path, state.get()));
  return Xxh128Hex(XXH3_128bits_digest(state.get()));
}

}  // namespace

StatusOr<std::string> InputContentKey(const std::string& input) {
  return KeyOfInput(input, HashFileInto);
}

StatusOr<std::string> InputFastKey(const std::string& input) {
  return KeyOfInput(input, FastHashFileInto);
}

std::string IndexCachePath(const std::string& dir, const std::string& key) {
  return dir + "/lod-" + key + ".v" + std::to_string(kLodFormatVersion) + ".thidx";
}

StatusOr<LodIndex> ReadCachedIndex(const std::string& dir, const std::string& key,
                                   const EventGraph& graph) {
  // Mapped, not read: the index's arrays are copied out of the file once.
  const std::string path = IndexCachePath(dir, key);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return NotFound(path + ": no cached index");
    return IoError(path + ": cannot open: " + std::strerror(errno));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return IoError(path + ": not a regular file");
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return DeserializeLodIndex({}, graph, path);
  }
  void* bytes = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (bytes == MAP_FAILED) return IoError(path + ": cannot map: " + std::strerror(errno));
  ::madvise(bytes, size, MADV_SEQUENTIAL);
  auto index = DeserializeLodIndex({static_cast<const char*>(bytes), size}, graph, path);
  ::munmap(bytes, size);
  return index;
}

Status WriteFileAtomically(const std::string& dir, const std::string& path,
                           const std::string& bytes) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return IoError(dir + ": cannot create the cache folder: " + ec.message());
  const std::string temp = path + ".tmp" + std::to_string(std::random_device{}());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(temp, ec);
      return IoError(temp + ": cannot write");
    }
  }
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    return IoError(path + ": cannot store");
  }
  return Ok();
}

Status WriteCachedIndex(const std::string& dir, const std::string& key, const LodIndex& index) {
  return WriteFileAtomically(dir, IndexCachePath(dir, key), SerializeLodIndex(index));
}

}  // namespace th::serve
