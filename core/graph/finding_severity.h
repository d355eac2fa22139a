// How bad a finding is: P0 (most severe) .. P2, or info (what the trace is,
// not a problem; it never makes NEEDS_ATTENTION). Reports, pipelines and
// fail_on write it as "P0", "P1", "P2", "info"; the results database stores
// its code 0..3; the plugin ABI's th_severity has the same codes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace th {

enum class FindingSeverity : uint8_t { kP0 = 0, kP1 = 1, kP2 = 2, kInfo = 3 };

// "P0", "P1", "P2", "info".
constexpr std::string_view SeverityLabel(FindingSeverity s) {
  switch (s) {
    case FindingSeverity::kP0:
      return "P0";
    case FindingSeverity::kP1:
      return "P1";
    case FindingSeverity::kP2:
      return "P2";
    case FindingSeverity::kInfo:
      return "info";
  }
  return "P2";
}

// The severity a label names (exactly as SeverityLabel writes it); nullopt
// for any other text.
std::optional<FindingSeverity> ParseSeverity(std::string_view label);

// 0 (P0) .. 3 (info): the results database's column and th_severity.
constexpr int64_t SeverityCode(FindingSeverity s) { return static_cast<int64_t>(s); }
// The severity of a code; nullopt outside 0..3.
constexpr std::optional<FindingSeverity> SeverityFromCode(int64_t code) {
  if (code < 0 || code > SeverityCode(FindingSeverity::kInfo)) return std::nullopt;
  return static_cast<FindingSeverity>(code);
}

constexpr bool IsProblem(FindingSeverity s) { return s != FindingSeverity::kInfo; }

// Order by how bad: P0 is the most severe, info the least. The relational
// operators are deleted so that no comparison reads the codes backwards.
constexpr bool AtLeastAsSevere(FindingSeverity s, FindingSeverity bar) {
  return static_cast<uint8_t>(s) <= static_cast<uint8_t>(bar);
}
constexpr bool MoreSevere(FindingSeverity a, FindingSeverity b) { return !AtLeastAsSevere(b, a); }
constexpr FindingSeverity MostSevere(FindingSeverity a, FindingSeverity b) {
  return MoreSevere(b, a) ? b : a;
}
bool operator<(FindingSeverity, FindingSeverity) = delete;
bool operator<=(FindingSeverity, FindingSeverity) = delete;
bool operator>(FindingSeverity, FindingSeverity) = delete;
bool operator>=(FindingSeverity, FindingSeverity) = delete;

}  // namespace th
