// PodColumn<T>: a growable array of trivially copyable values backed by
// malloc/realloc. Large blocks grow with mremap (no copy, no doubled resident
// memory), which keeps the event graph's peak close to its final size.
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
  ~PodColumn() { std::free(data_); }

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
  // Replaces the values with n all-zero-bytes values. The memory comes from
  // calloc: a big block is a fresh mapping that is not touched here, so
  // pages that are only ever read cost neither zeroing nor memory.
  void assign_zeros(size_t n) {
    Clear();
    if (n == 0) return;
    void* p = std::calloc(n, sizeof(T));
    if (!p) throw std::bad_alloc();
    data_ = static_cast<T*>(p);
    size_ = capacity_ = populated_ = n;
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
  void clear() { size_ = 0; }
  void Clear() {
    std::free(data_);
    data_ = nullptr;
    size_ = capacity_ = populated_ = 0;
  }

 private:
  void Swap(PodColumn& o) {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
    std::swap(populated_, o.populated_);
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
    void* p = std::realloc(static_cast<void*>(data_), cap * sizeof(T));
    if (!p) throw std::bad_alloc();
    data_ = static_cast<T*>(p);
    capacity_ = cap;
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
  size_t populated_ = 0;  // elements whose pages are known to be mapped
};

}  // namespace th
