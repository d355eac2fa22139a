#include "core/report/figure_text.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string_view>

namespace th {
namespace {

// `v` with `decimals` digits after the point, trailing zeros (and a bare
// point) removed: what %g prints in its fixed range, never an exponent.
std::string Fixed(double v, int decimals) {
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

// 4 significant digits without an exponent.
std::string Significant4(double v) {
  const int magnitude = static_cast<int>(std::floor(std::log10(std::abs(v))));
  return Fixed(v, std::clamp(3 - magnitude, 0, 330));
}

// Units read with SI prefixes when large: rates and amounts of work or data.
bool TakesSiPrefix(std::string_view unit) {
  return unit == "FLOP/s" || unit == "B/s" || unit == "FLOP" || unit == "B";
}

}  // namespace

std::string NumberText(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  if (v == std::trunc(v) && std::abs(v) < 1e18) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    return buf;
  }
  if (std::abs(v) >= 1e4) return Fixed(v, 0);  // its digits: no exponent
  return Significant4(v);
}

std::string FigureText(double v, const std::string& unit) {
  char buf[64];
  if (unit == "ns") {
    double a = std::abs(v);
    if (a >= 1e9)
      std::snprintf(buf, sizeof buf, "%.3f s", v / 1e9);
    else if (a >= 1e6)
      std::snprintf(buf, sizeof buf, "%.3f ms", v / 1e6);
    else if (a >= 1e3)
      std::snprintf(buf, sizeof buf, "%.3f us", v / 1e3);
    else
      std::snprintf(buf, sizeof buf, "%.0f ns", v);
    return buf;
  }
  // A large rate or amount: 4 significant digits under a prefix ("47.67
  // TFLOP/s"); an integral one only when that is exact ("989.4 TFLOP/s"),
  // else every digit ("2475914428416 FLOP").
  if (TakesSiPrefix(unit) && std::isfinite(v) && std::abs(v) >= 1e4) {
    static constexpr std::array<const char*, 6> kPrefixes = {"k", "M", "G", "T", "P", "E"};
    double scaled = v / 1e3;
    size_t p = 0;
    while (std::abs(scaled) >= 1e3 && p + 1 < kPrefixes.size()) {
      scaled /= 1e3;
      ++p;
    }
    if (v == std::trunc(v)) {
      if (std::abs(v) >= 1e18) return NumberText(v) + " " + unit;
      const int magnitude = static_cast<int>(std::floor(std::log10(std::abs(scaled))));
      int64_t last_digit = 1;  // the value of the last digit the prefix form shows
      for (int k = 3 * static_cast<int>(p + 1) - std::clamp(3 - magnitude, 0, 3); k > 0; --k)
        last_digit *= 10;
      if (static_cast<int64_t>(v) % last_digit != 0) return NumberText(v) + " " + unit;
    }
    std::string digits = Significant4(scaled);
    if (digits == "1000" && p + 1 < kPrefixes.size()) {  // rounded up to the next prefix
      digits = "1";
      ++p;
    }
    return digits + " " + kPrefixes[p] + unit;
  }
  return NumberText(v) + (unit.empty() || unit == "count" ? "" : " " + unit);
}

}  // namespace th
