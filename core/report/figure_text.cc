#include "core/report/figure_text.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace th {

std::string NumberText(double v) {
  char buf[64];
  if (v == static_cast<double>(static_cast<int64_t>(v)) && std::abs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  } else {
    std::snprintf(buf, sizeof buf, "%.4g", v);
  }
  return buf;
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
  return NumberText(v) + (unit.empty() || unit == "count" ? "" : " " + unit);
}

}  // namespace th
