// PodColumn<T>: a growable array of trivially copyable values. Small blocks
// live on the malloc heap; blocks of kMappedBlockBytes or more are anonymous
// mappings of their own, grown with mremap (no copy, no doubled resident
// memory), which keeps the event graph's peak close to its final size. A
// mapping's pages that were never written are zero and cost no memory, which
// grow_zeroed relies on: a column of mostly-zero values costs only the pages
// that hold a non-zero one.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

namespace th {

// Fills the page tables for [begin, end) ahead of writing, in one call
// (MADV_POPULATE_WRITE) instead of a fault per 4 KiB page; a no-op where the
// kernel lacks it. Only whole pages inside the range are touched.
void PopulateForWrite(void* begin, void* end);

// Blocks at least this big are mappings of their own (see PodColumn).
inline constexpr size_t kMappedBlockBytes = size_t{1} << 20;
// A fresh zero-filled mapping of `bytes` (a multiple of the page size); throws
// std::bad_alloc when the kernel refuses.
void* MapZeroedBlock(size_t bytes);
// Grows or shrinks a mapping from MapZeroedBlock, maybe moving it; bytes past
// the old size are zero. Throws std::bad_alloc.
void* RemapBlock(void* block, size_t old_bytes, size_t new_bytes);
void UnmapBlock(void* block, size_t bytes);
// `bytes` rounded up to whole pages.
size_t PageRoundUp(size_t bytes);

template <typename T>
class PodColumn {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  PodColumn() = default;
  PodColumn(const PodColumn&) = delete;
  PodColumn& operator=(const PodColumn&) = delete;
  PodColumn(PodColumn&& o) noexcept { Swap(o); }
  PodColumn& operator=(PodColumn&& o) noexcept {
    if (this != &o) {
      Clear();
      Swap(o);
    }
    return *this;
  }
  ~PodColumn() { Release(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  std::span<const T> view() const { return {data_, size_}; }
  // Bytes of the values held. Capacity beyond size is reserved address space
  // that was never written, so it is not resident.
  size_t bytes() const { return size_ * sizeof(T); }

  void push_back(const T& v) {
    if (size_ == capacity_) Grow(size_ + 1);
    if (size_ >= populated_) PopulateAhead(size_ + 1);
    data_[size_++] = v;
  }
  void reserve(size_t n) {
    if (n > capacity_) Reallocate(n);
  }
  void resize(size_t n, const T& fill = T()) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = fill;
    Shrinking(n);
    size_ = n;
  }
  // Grows to n values leaving the new ones unwritten (the caller fills them).
  T* grow_uninitialized(size_t n) {
    size_t old = size_;
    if (size_ + n > capacity_) Grow(size_ + n);
    if (size_ + n > populated_) PopulateAhead(size_ + n);
    size_ += n;
    return data_ + old;
  }
  // Grows by n all-zero-bytes values. In a mapped block the part never
  // written before is left untouched (it reads as zero at no cost), so a
  // caller that then writes only its non-zero values pays only for the pages
  // that hold one.
  T* grow_zeroed(size_t n) {
    const size_t old = size_;
    if (size_ + n > capacity_) Grow(size_ + n);
    const size_t dirty_end = mapped_ ? std::min(zero_from_, old + n) : old + n;
    if (dirty_end > old)
      std::memset(static_cast<void*>(data_ + old), 0, (dirty_end - old) * sizeof(T));
    size_ += n;
    populated_ = std::max(populated_, size_);  // nothing to fill ahead for these
    return data_ + old;
  }
  // Cuts back to n values when the caller has left the values past n as
  // grow_zeroed made them (all zero): they stay known-zero for the next
  // grow_zeroed. Precondition: n <= size() and values [n, size()) are zero.
  void shrink_zeroed(size_t n) {
    if (zero_from_ <= size_) zero_from_ = n;
    size_ = n;
  }
  // Replaces the values with n all-zero-bytes values (grow_zeroed on an
  // empty column: a big one is a fresh mapping, untouched here).
  void assign_zeros(size_t n) {
    Clear();
    reserve(n);
    grow_zeroed(n);
  }
  // Appends n values copied from src.
  void append(const T* src, size_t n) {
    if (size_ + n > capacity_) Grow(size_ + n);
    if (size_ + n > populated_) PopulateAhead(size_ + n);
    if (n) std::memcpy(static_cast<void*>(data_ + size_), src, n * sizeof(T));
    size_ += n;
  }
  void shrink_to_fit() {
    if (capacity_ > size_) Reallocate(size_);
  }
  // Drops the values, keeps the memory (for buffers reused across chunks).
  void clear() {
    Shrinking(0);
    size_ = 0;
  }
  void Clear() {
    Release();
    data_ = nullptr;
    size_ = capacity_ = populated_ = zero_from_ = map_bytes_ = 0;
    mapped_ = false;
  }

 private:
  void Swap(PodColumn& o) {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
    std::swap(populated_, o.populated_);
    std::swap(zero_from_, o.zero_from_);
    std::swap(map_bytes_, o.map_bytes_);
    std::swap(mapped_, o.mapped_);
  }
  void Release() {
    if (mapped_) {
      UnmapBlock(data_, map_bytes_);
    } else {
      std::free(data_);
    }
  }
  // Values [0, size_) may have been written through data(): remembered when
  // the size goes down to n (growing needs no bookkeeping, see zero_from_).
  void Shrinking(size_t n) {
    if (n < size_) zero_from_ = std::max(zero_from_, size_);
  }
  // Keeps the page tables of big columns filled a step ahead of the writes.
  void PopulateAhead(size_t need) {
    constexpr size_t kStep = (size_t{1} << 20) / sizeof(T);
    if (capacity_ * sizeof(T) < (size_t{4} << 20)) {
      populated_ = need;  // small: ordinary faults are fine
      return;
    }
    size_t upto = std::min(capacity_, need + kStep);
    PopulateForWrite(data_ + populated_, data_ + upto);
    populated_ = upto;
  }
  void Grow(size_t need) {
    size_t cap = capacity_ ? capacity_ * 2 : 256;
    while (cap < need) cap *= 2;
    Reallocate(cap);
  }
  void Reallocate(size_t cap) {
    if (cap == 0) {
      Clear();
      return;
    }
    if (cap * sizeof(T) >= kMappedBlockBytes) {
      const size_t bytes = PageRoundUp(cap * sizeof(T));
      if (mapped_) {
        data_ = static_cast<T*>(RemapBlock(data_, map_bytes_, bytes));
      } else {
        void* p = MapZeroedBlock(bytes);
        if (size_) std::memcpy(p, static_cast<const void*>(data_), size_ * sizeof(T));
        std::free(data_);
        data_ = static_cast<T*>(p);
        zero_from_ = size_;
        populated_ = size_;
        mapped_ = true;
      }
      map_bytes_ = bytes;
      capacity_ = bytes / sizeof(T);
      populated_ = std::min(populated_, capacity_);
      zero_from_ = std::min(zero_from_, capacity_);
      return;
    }
    void* p;
    if (mapped_) {
      p = std::malloc(cap * sizeof(T));
      if (!p) throw std::bad_alloc();
      std::memcpy(p, static_cast<const void*>(data_), std::min(size_, cap) * sizeof(T));
      UnmapBlock(data_, map_bytes_);
      mapped_ = false;
      map_bytes_ = 0;
    } else {
      p = std::realloc(static_cast<void*>(data_), cap * sizeof(T));
      if (!p) throw std::bad_alloc();
    }
    data_ = static_cast<T*>(p);
    capacity_ = cap;
    size_ = std::min(size_, cap);
    populated_ = std::min(populated_, cap);
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  size_t populated_ = 0;  // elements whose pages are known to be mapped
  // Mapped blocks: values at or past max(zero_from_, size_) have never been
  // written (or were left zero, see shrink_zeroed), so they are zero.
  size_t zero_from_ = 0;
  size_t map_bytes_ = 0;  // length of the mapping when mapped_
  bool mapped_ = false;
};

}  // namespace th
