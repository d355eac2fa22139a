// EventBoundaryScanner: finds where the elements of a JSON array end, in a
// stream of text fed piecewise, without parsing them.
//
// It tracks string/escape state and bracket depth relative to the array (0 =
// between elements). It is the sequential part of import, so it is SIMD: a
// 64-byte block without backslashes is classified with AVX2 + carry-less
// multiply (prefix XOR of quote bits gives the in-string mask); blocks with a
// backslash, and machines without AVX2, take the exact scalar path.
#pragma once

#include <cstddef>
#include <cstdint>

namespace th::kineto {

class EventBoundaryScanner {
 public:
  struct Result {
    size_t stop = 0;  // where scanning stopped (== end, or at the closing ']')
    bool array_closed = false;
    bool bad_close = false;  // a '}' at depth 0: the text is not a JSON array
  };

  // Scans data[begin, end). `last_element_end` is set to one past the last
  // element that closed in this range (unchanged if none). Elements that are
  // bare scalars have no brackets and are not reported; they stay in the text.
  Result Scan(const char* data, size_t begin, size_t end, size_t* last_element_end);

  bool in_string() const { return in_string_; }
  int depth() const { return depth_; }
  int64_t elements_closed() const { return elements_closed_; }

 private:
  Result ScanScalar(const char* data, size_t begin, size_t end, size_t* last_element_end);
  bool in_string_ = false;
  bool escaped_ = false;
  int depth_ = 0;
  int64_t elements_closed_ = 0;
};

}  // namespace th::kineto
