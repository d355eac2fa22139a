// JSON text without the whitespace outside its strings: equal values written
// with different spacing become equal text (interned once).
#pragma once

#include <string>
#include <string_view>

namespace th::kineto {

// Writes `text` (valid JSON) to *out without the blanks, tabs and line breaks
// that are outside strings. *out is overwritten; its capacity is reused.
inline void CompactJson(std::string_view text, std::string* out) {
  out->resize(text.size());
  char* w = out->data();
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      continue;
    } else if (c == '"') {
      in_string = true;
    }
    *w++ = c;
  }
  out->resize(static_cast<size_t>(w - out->data()));
}

}  // namespace th::kineto
