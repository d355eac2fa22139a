// ZeroedArray<T>: n values of a trivial type, all zero, for per-event scratch
// (memos, marks) that a pass writes only here and there. Its memory comes
// zeroed from the system (calloc hands a big block out as fresh pages): pages
// no one writes are never faulted in nor resident. A std::vector<T>(n, v)
// writes every page first: for a 37 M-event trace, 150 MB of page faults
// before the first useful write.
#ifndef TRACEHOUND_ZEROED_ARRAY_H_
#define TRACEHOUND_ZEROED_ARRAY_H_

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

namespace th::sdk {

template <typename T>
class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_default_constructible_v<T>,
                "ZeroedArray holds plain values whose all-zero bytes are a value");

 public:
  ZeroedArray() = default;
  explicit ZeroedArray(size_t n)
      : data_(static_cast<T*>(n ? std::calloc(n, sizeof(T)) : nullptr)), size_(n) {
    if (n && !data_) throw std::bad_alloc();
  }
  T& operator[](size_t i) { return data_.get()[i]; }
  const T& operator[](size_t i) const { return data_.get()[i]; }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T, Free> data_;
  size_t size_ = 0;
};

}  // namespace th::sdk

#endif  // TRACEHOUND_ZEROED_ARRAY_H_
