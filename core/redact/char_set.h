// CharSet: a set of bytes, built from a range spec ("A-Za-z0-9_-"), tested in
// one load. The finders of core/redact use it for token alphabets.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace th::redact {

class CharSet {
 public:
  constexpr CharSet() = default;

  // "A-Za-z0-9_-": single bytes and ranges a-b; a '-' first or last is
  // literal. nullopt when a range is reversed or the spec is empty.
  static std::optional<CharSet> Parse(std::string_view spec) {
    if (spec.empty()) return std::nullopt;
    CharSet set;
    for (size_t i = 0; i < spec.size(); ++i) {
      auto lo = static_cast<uint8_t>(spec[i]);
      if (i + 2 < spec.size() && spec[i + 1] == '-') {
        auto hi = static_cast<uint8_t>(spec[i + 2]);
        if (hi < lo) return std::nullopt;
        for (unsigned c = lo; c <= hi; ++c) set.Add(static_cast<uint8_t>(c));
        i += 2;
      } else {
        set.Add(lo);
      }
    }
    return set;
  }

  constexpr void Add(uint8_t c) { bits_[c >> 6] |= uint64_t{1} << (c & 63); }
  constexpr bool Has(char c) const {
    auto u = static_cast<uint8_t>(c);
    return (bits_[u >> 6] >> (u & 63)) & 1;
  }

 private:
  std::array<uint64_t, 4> bits_{};
};

inline bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsAsciiLower(char c) { return c >= 'a' && c <= 'z'; }
inline bool IsAsciiUpper(char c) { return c >= 'A' && c <= 'Z'; }
inline bool IsAsciiAlpha(char c) { return IsAsciiLower(c) || IsAsciiUpper(c); }
inline bool IsAsciiAlnum(char c) { return IsAsciiAlpha(c) || IsAsciiDigit(c); }
inline bool IsHexDigit(char c) {
  return IsAsciiDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
inline char AsciiLower(char c) { return IsAsciiUpper(c) ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace th::redact
