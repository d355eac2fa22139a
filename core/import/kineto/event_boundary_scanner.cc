#include "core/import/kineto/event_boundary_scanner.h"

#if defined(__AVX2__) && defined(__PCLMUL__)
#include <immintrin.h>
#define TH_SCANNER_SIMD 1
#endif

namespace th::kineto {

EventBoundaryScanner::Result EventBoundaryScanner::ScanScalar(const char* data, size_t begin,
                                                              size_t end,
                                                              size_t* last_element_end) {
  for (size_t i = begin; i < end; ++i) {
    char c = data[i];
    if (in_string_) {
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == '"') {
        in_string_ = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string_ = true;
        break;
      case '{':
      case '[':
        ++depth_;
        break;
      case '}':
      case ']':
        if (depth_ == 0) return {i, c == ']', c == '}'};
        if (--depth_ == 0) {
          *last_element_end = i + 1;
          ++elements_closed_;
        }
        break;
      default:
        break;
    }
  }
  return {end, false, false};
}

#ifdef TH_SCANNER_SIMD
namespace {
inline uint64_t Mask64(const char* p, char c) {
  __m256i v = _mm256_set1_epi8(c);
  __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
  uint32_t lo = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, v)));
  uint32_t hi = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, v)));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}
// Bit i of the result = XOR of bits 0..i of x.
inline uint64_t PrefixXor(uint64_t x) {
  __m128i r = _mm_clmulepi64_si128(_mm_set_epi64x(0, static_cast<int64_t>(x)),
                                   _mm_set1_epi8(static_cast<char>(0xFF)), 0);
  return static_cast<uint64_t>(_mm_cvtsi128_si64(r));
}
}  // namespace
#endif

EventBoundaryScanner::Result EventBoundaryScanner::Scan(const char* data, size_t begin, size_t end,
                                                        size_t* last_element_end) {
  size_t i = begin;
#ifdef TH_SCANNER_SIMD
  while (i + 64 <= end) {
    const char* p = data + i;
    uint64_t backslash = Mask64(p, '\\');
    if (backslash || escaped_) {
      Result r = ScanScalar(data, i, i + 64, last_element_end);
      if (r.stop != i + 64) return r;
      i += 64;
      continue;
    }
    uint64_t quotes = Mask64(p, '"');
    uint64_t inside = PrefixXor(quotes) ^ (in_string_ ? ~0ULL : 0ULL);
    in_string_ = (inside >> 63) != 0;
    // '{' is 0x7B, '}' 0x7D, '[' 0x5B, ']' 0x5D: clearing bit 0x20 folds braces
    // onto brackets, so two compares find every opener and closer.
    __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
    __m256i fold = _mm256_set1_epi8(static_cast<char>(~0x20));
    __m256i fa = _mm256_and_si256(a, fold), fb = _mm256_and_si256(b, fold);
    auto mm = [](__m256i x, char c) {
      return static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, _mm256_set1_epi8(c))));
    };
    uint64_t open = (static_cast<uint64_t>(mm(fb, '[')) << 32) | mm(fa, '[');
    uint64_t close = (static_cast<uint64_t>(mm(fb, ']')) << 32) | mm(fa, ']');
    uint64_t structural = (open | close) & ~inside;
    while (structural) {
      int bit = __builtin_ctzll(structural);
      structural &= structural - 1;
      if ((open >> bit) & 1) {
        ++depth_;
      } else {
        size_t pos = i + static_cast<size_t>(bit);
        if (depth_ == 0) {
          char c = data[pos];
          // The rest of this block was classified but not consumed; the caller
          // leaves the array here, so string state past `pos` does not matter.
          in_string_ = false;
          return {pos, c == ']', c == '}'};
        }
        if (--depth_ == 0) {
          *last_element_end = pos + 1;
          ++elements_closed_;
        }
      }
    }
    i += 64;
  }
#endif
  return ScanScalar(data, i, end, last_element_end);
}

}  // namespace th::kineto
