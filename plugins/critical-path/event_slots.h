// Per event of a trace, a uint32 entry that is kNone until set: the scratch
// index a window's graph and its summary keep by event. Its memory costs
// nothing until written (calloc: the pages an entry is never written to are
// never faulted in; a worker touches the rows of its own windows only): an
// entry holds value + 1, so kNone (0xFFFFFFFF) is stored as 0.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

#include "cp_graph.h"

namespace th::critical_path {

class EventSlots {
 public:
  // An entry, read and written as its value.
  class Ref {
   public:
    explicit Ref(uint32_t* p) : p_(p) {}
    operator uint32_t() const { return *p_ - 1u; }  // NOLINT: reads as the value
    Ref& operator=(uint32_t v) {
      *p_ = v + 1u;
      return *this;
    }

   private:
    uint32_t* p_;
  };

  EventSlots() = default;
  explicit EventSlots(size_t n)
      : data_(static_cast<uint32_t*>(std::calloc(n == 0 ? 1 : n, sizeof(uint32_t)))), size_(n) {
    if (!data_) throw std::bad_alloc();
  }
  size_t size() const { return size_; }
  uint32_t operator[](size_t i) const { return data_.get()[i] - 1u; }
  Ref operator[](size_t i) { return Ref(data_.get() + i); }

 private:
  struct Free {
    void operator()(uint32_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint32_t[], Free> data_;
  size_t size_ = 0;
};

}  // namespace th::critical_path
