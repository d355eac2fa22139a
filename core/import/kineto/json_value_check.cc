#include "core/import/kineto/json_value_check.h"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/graph/text_escape.h"

namespace th::kineto {

namespace ondemand = simdjson::ondemand;

namespace {

inline bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string_view TrimRight(std::string_view t) {
  size_t n = t.size();
  while (n > 0 && IsJsonSpace(t[n - 1])) --n;
  return t.substr(0, n);
}

// RFC 8259 number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool IsJsonNumber(std::string_view t) {
  size_t i = 0, n = t.size();
  if (i < n && t[i] == '-') ++i;
  if (i >= n) return false;
  if (t[i] == '0') {
    ++i;
  } else if (IsDigit(t[i])) {
    while (i < n && IsDigit(t[i])) ++i;
  } else {
    return false;
  }
  if (i < n && t[i] == '.') {
    ++i;
    if (i >= n || !IsDigit(t[i])) return false;
    while (i < n && IsDigit(t[i])) ++i;
  }
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
    if (i >= n || !IsDigit(t[i])) return false;
    while (i < n && IsDigit(t[i])) ++i;
  }
  return i == n;
}

bool IsNonFinite(std::string_view t) {
  return t == "NaN" || t == "Infinity" || t == "-Infinity" || t == "nan" || t == "-nan" ||
         t == "inf" || t == "-inf";
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The code unit of "\uXXXX" at p (p at the backslash), or -1.
int32_t Utf16Escape(const char* p) {
  if (p[0] != '\\' || p[1] != 'u') return -1;
  int32_t v = 0;
  for (int i = 2; i < 6; ++i) {
    int h = HexValue(p[i]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

// The token as a message shows it: clipped, non-printable bytes as \xNN.
std::string Shown(std::string_view token) {
  std::string_view t = TrimRight(token);
  bool clipped = t.size() > 24;
  return "'" + PrintableBytes(t.substr(0, 24)) + (clipped ? "...'" : "'");
}

}  // namespace

TokenClass ClassifyScalarToken(std::string_view token) {
  std::string_view t = TrimRight(token);
  if (t.empty()) return TokenClass::kMalformed;
  switch (t[0]) {
    case '"':
      return t.size() >= 2 && t.back() == '"' ? TokenClass::kValid : TokenClass::kMalformed;
    case 't':
      return t == "true" ? TokenClass::kValid : TokenClass::kMalformed;
    case 'f':
      return t == "false" ? TokenClass::kValid : TokenClass::kMalformed;
    case 'n':
      if (t == "null") return TokenClass::kValid;
      return t == "nan" ? TokenClass::kNonFinite : TokenClass::kMalformed;
    default:
      if (IsJsonNumber(t)) return TokenClass::kValid;
      return IsNonFinite(t) ? TokenClass::kNonFinite : TokenClass::kMalformed;
  }
}

bool ValidEscapes(const char* p) {
  while (*p != '"') {
    if (*p != '\\') {
      ++p;
      continue;
    }
    switch (p[1]) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        p += 2;
        break;
      case 'u': {
        int32_t unit = Utf16Escape(p);
        if (unit < 0) return false;
        if (unit >= 0xDC00 && unit <= 0xDFFF) return false;  // a low surrogate first
        if (unit >= 0xD800 && unit <= 0xDBFF) {
          int32_t low = Utf16Escape(p + 6);
          if (low < 0xDC00 || low > 0xDFFF) return false;  // a high one alone
          p += 12;
        } else {
          p += 6;
        }
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

simdjson::error_code ValueCheck::Malformed(const char* at, std::string what) {
  if (!bad_at) {
    bad_at = at;
    bad_what = std::move(what);
  }
  return simdjson::NUMBER_ERROR;  // any error: the parse stops; bad_at says where and why
}

simdjson::error_code CheckScalar(std::string_view token, ValueCheck* check) {
  switch (ClassifyScalarToken(token)) {
    case TokenClass::kMalformed:
      return check->Malformed(token.data(), "malformed value " + Shown(token));
    case TokenClass::kNonFinite:
      if (check->non_finite++ == 0) check->first_non_finite = std::string(TrimRight(token));
      return simdjson::SUCCESS;
    case TokenClass::kValid:
      if (token[0] == '"' && std::memchr(token.data(), '\\', token.size()) &&
          !ValidEscapes(token.data() + 1))
        return check->Malformed(token.data(), "invalid escape in string " + Shown(token));
      return simdjson::SUCCESS;
  }
  return simdjson::SUCCESS;
}

namespace {

// Recursive descent over JSON text (RFC 8259), bounded by `end_` and by
// simdjson's own nesting limit. Each Parse* returns the position after what
// it read, or null after recording the error.
class TextValidator {
 public:
  TextValidator(const char* end, ValueCheck* check) : end_(end), check_(check) {}

  const char* Value(const char* p, int depth) {
    p = Space(p);
    if (p >= end_) return Fail(p, "the text ends inside a value");
    switch (*p) {
      case '{':
        return Object(p, depth + 1);
      case '[':
        return Array(p, depth + 1);
      case '"':
        return String(p);
      default:
        return Scalar(p);
    }
  }

 private:
  static constexpr int kMaxDepth = 1024;  // simdjson's default

  // Pretty-printed traces indent every nested value: runs of blanks are
  // skipped 16 bytes at a time.
  const char* Space(const char* p) const {
    if (p >= end_ || !IsJsonSpace(*p)) return p;
#if defined(__SSE2__)
    const __m128i blank = _mm_set1_epi8(' '), newline = _mm_set1_epi8('\n'),
                  ret = _mm_set1_epi8('\r'), tab = _mm_set1_epi8('\t');
    while (end_ - p >= 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      const __m128i space =
          _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, blank), _mm_cmpeq_epi8(v, newline)),
                       _mm_or_si128(_mm_cmpeq_epi8(v, ret), _mm_cmpeq_epi8(v, tab)));
      const unsigned other = ~static_cast<unsigned>(_mm_movemask_epi8(space)) & 0xffffu;
      if (other != 0) return p + __builtin_ctz(other);
      p += 16;
    }
#endif
    while (p < end_ && IsJsonSpace(*p)) ++p;
    return p;
  }
  const char* Fail(const char* at, const char* what) {
    check_->Malformed(at, what);
    return nullptr;
  }
  const char* Object(const char* p, int depth) {
    if (depth > kMaxDepth) return Fail(p, "nesting deeper than 1024");
    const char* open = p;
    p = Space(p + 1);
    if (p < end_ && *p == '}') return p + 1;
    while (true) {
      if (p >= end_ || *p != '"') return Fail(p < end_ ? p : open, "expected a key");
      if (!(p = String(p))) return nullptr;
      p = Space(p);
      if (p >= end_ || *p != ':') return Fail(p < end_ ? p : open, "expected ':' after a key");
      if (!(p = Value(p + 1, depth))) return nullptr;
      p = Space(p);
      if (p < end_ && *p == ',') {
        p = Space(p + 1);
        continue;
      }
      if (p < end_ && *p == '}') return p + 1;
      return Fail(p < end_ ? p : open, "expected ',' or '}' in an object");
    }
  }
  const char* Array(const char* p, int depth) {
    if (depth > kMaxDepth) return Fail(p, "nesting deeper than 1024");
    const char* open = p;
    p = Space(p + 1);
    if (p < end_ && *p == ']') return p + 1;
    while (true) {
      if (!(p = Value(p, depth))) return nullptr;
      p = Space(p);
      if (p < end_ && *p == ',') {
        ++p;
        continue;
      }
      if (p < end_ && *p == ']') return p + 1;
      return Fail(p < end_ ? p : open, "expected ',' or ']' in an array");
    }
  }
  const char* String(const char* p) {
    const char* q = p + 1;
    while (q < end_ && *q != '"') {
      auto c = static_cast<unsigned char>(*q);
      if (c < 0x20) return Fail(q, "control character in a string");
      if (c == '\\') {
        if (q + 1 >= end_) break;
        q += 2;
        if (q[-1] == 'u') q += 4;
        continue;
      }
      ++q;
    }
    if (q >= end_) return Fail(p, "unterminated string");
    if (std::memchr(p, '\\', static_cast<size_t>(q - p)) && !ValidEscapes(p + 1)) {
      return Fail(p, ("invalid escape in string " +
                      Shown(std::string_view(p, static_cast<size_t>(q + 1 - p))))
                         .c_str());
    }
    return q + 1;
  }
  const char* Scalar(const char* p) {
    const char* q = p;
    while (q < end_ && !IsJsonSpace(*q) && *q != ',' && *q != ']' && *q != '}' && *q != ':' &&
           *q != '[' && *q != '{' && *q != '"')
      ++q;
    std::string_view token(p, static_cast<size_t>(q - p));
    if (CheckScalar(token, check_)) return nullptr;
    return q;
  }

  const char* end_;
  ValueCheck* check_;
};

}  // namespace

simdjson::error_code CheckContainerText(const char* p, const char* end, ValueCheck* check) {
  TextValidator v(end, check);
  if (v.Value(p, 0)) return simdjson::SUCCESS;
  return simdjson::TAPE_ERROR;
}

const char* CheckContainerEnd(const char* p, const char* end, ValueCheck* check) {
  TextValidator v(end, check);
  return v.Value(p, 0);
}

}  // namespace th::kineto
