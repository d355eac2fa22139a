#include "core/diff/diff_names.h"

namespace th::diff {
namespace {

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool IsAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

}  // namespace

std::string NormaliseName(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  size_t i = 0;
  const size_t n = name.size();
  while (i < n) {
    const bool at_token_start = i == 0 || !IsAlnum(name[i - 1]);
    if (at_token_start && name[i] == '0' && i + 2 < n &&
        (name[i + 1] == 'x' || name[i + 1] == 'X') && IsHex(name[i + 2])) {
      size_t j = i + 2;
      while (j < n && IsHex(name[j])) ++j;
      out += "0x*";
      i = j;
      continue;
    }
    if (at_token_start && IsHex(name[i])) {
      size_t j = i;
      bool digit = false;
      while (j < n && IsHex(name[j])) digit |= name[j++] <= '9';
      if (j - i >= 8 && digit && (j == n || !IsAlnum(name[j]))) {
        out += '*';
        i = j;
        continue;
      }
      out.append(name.substr(i, j - i));
      i = j;
      continue;
    }
    out += name[i++];
  }
  return out;
}

}  // namespace th::diff
