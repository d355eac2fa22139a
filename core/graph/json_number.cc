#include "core/graph/json_number.h"

#include <charconv>
#include <cmath>

namespace th {

std::string ShortestNumber(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";  // also -0
  char buf[64];
  constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
  bool integral = std::abs(v) <= kExactIntegers && v == std::trunc(v);
  auto r = integral ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed)
                    : std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string JsonNumber(double v) { return std::isfinite(v) ? ShortestNumber(v) : "null"; }

}  // namespace th
