// FormatUtc: a Unix time as UTC text in a strftime format ("" when the time
// does not convert). Header-only, so on-demand modules link nothing for it.
#pragma once

#include <ctime>
#include <string>

namespace th {

inline std::string FormatUtc(std::time_t t, const char* format) {
  std::tm tm{};
  char buf[64];
  if (!gmtime_r(&t, &tm)) return "";
  return std::string(buf, std::strftime(buf, sizeof buf, format, &tm));
}

inline std::string FormatUtcNow(const char* format) {
  return FormatUtc(std::time(nullptr), format);
}

}  // namespace th
