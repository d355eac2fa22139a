// Figures as plugins write them into finding text: fixed decimals, percents,
// durations and byte sizes. Header-only, no locale (a '.' decimal point).
#ifndef TRACEHOUND_FORMAT_H_
#define TRACEHOUND_FORMAT_H_

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace th::sdk {

// `v` with `digits` decimals: Fixed(2.345, 1) == "2.3".
inline std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// `v` with `digits` significant digits, printf's %g: Significant(0.000123, 2) == "0.00012".
inline std::string Significant(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// A percentage with one decimal and no space: Percent(12.34) == "12.3%".
inline std::string Percent(double v) { return Fixed(v, 1) + "%"; }

// Nanoseconds as milliseconds with three decimals: Millis(1234567) == "1.235 ms".
inline std::string Millis(double ns) { return Fixed(ns / 1e6, 3) + " ms"; }

// Nanoseconds as microseconds with one decimal: Micros(1250) == "1.2 us" (`unit`
// names the unit as the plugin spells it, "us" or "µs").
inline std::string Micros(double ns, const char* unit = "us") {
  return Fixed(ns / 1e3, 1) + " " + unit;
}

// A duration for sentences, in the unit that reads best: 850 ns, 12.3 us,
// 4.56 ms, 1.23 s.
inline std::string Duration(int64_t ns) {
  const double v = static_cast<double>(ns);
  if (ns < 1000) return std::to_string(ns) + " ns";
  if (ns < 1000000) return Fixed(v / 1e3, 1) + " us";
  if (ns < 1000000000) return Fixed(v / 1e6, 2) + " ms";
  return Fixed(v / 1e9, 2) + " s";
}

// Bytes in binary units: 512 B, 1.50 KiB, 2.00 GiB (a minus sign for negatives).
inline std::string Bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = std::fabs(b);
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return std::string(b < 0 ? "-" : "") + Fixed(v, u == 0 ? 0 : 2) + " " + units[u];
}

}  // namespace th::sdk

#endif  // TRACEHOUND_FORMAT_H_
