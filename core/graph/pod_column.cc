#include "core/graph/pod_column.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <new>

namespace th {

void PopulateForWrite(void* begin, void* end) {
#ifdef MADV_POPULATE_WRITE
  static std::atomic<bool> unsupported{false};
  if (unsupported.load(std::memory_order_relaxed)) return;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t b = (reinterpret_cast<uintptr_t>(begin) + page - 1) & ~(page - 1);
  uintptr_t e = reinterpret_cast<uintptr_t>(end) & ~(page - 1);
  if (e <= b) return;
  if (madvise(reinterpret_cast<void*>(b), e - b, MADV_POPULATE_WRITE) != 0 && errno == EINVAL) {
    unsupported.store(true, std::memory_order_relaxed);
  }
#else
  (void)begin;
  (void)end;
#endif
}

size_t PageRoundUp(size_t bytes) {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) & ~(page - 1);
}

void* MapZeroedBlock(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

void* RemapBlock(void* block, size_t old_bytes, size_t new_bytes) {
  void* p = mremap(block, old_bytes, new_bytes, MREMAP_MAYMOVE);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

void UnmapBlock(void* block, size_t bytes) {
  if (block) munmap(block, bytes);
}

}  // namespace th
