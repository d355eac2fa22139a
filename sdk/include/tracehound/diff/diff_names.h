// Name normalisation for diffs: the same operation in two runs gets the same
// name although ids and addresses in it differ. Header-only.
#ifndef TRACEHOUND_DIFF_DIFF_NAMES_H_
#define TRACEHOUND_DIFF_DIFF_NAMES_H_

#include <string>
#include <string_view>

namespace th::diff {

namespace names_internal {
inline bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
inline bool IsAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
}  // namespace names_internal

// `name` with every id-like token masked: "0x" followed by hex digits becomes
// "0x*"; a maximal run of [0-9a-fA-F] of 8 or more characters that holds at
// least one decimal digit, not glued to other letters or digits, becomes "*".
// Everything else is kept byte for byte.
inline std::string NormaliseName(std::string_view name) {
  using names_internal::IsAlnum;
  using names_internal::IsHex;
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

#endif  // TRACEHOUND_DIFF_DIFF_NAMES_H_
