#include "core/report/line_diff.h"

#include <map>
#include <vector>

namespace th {
namespace {

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

}  // namespace

std::string LineDiffSummary(std::string_view expected, std::string_view actual, size_t max_lines) {
  if (expected == actual) return "";
  const std::vector<std::string_view> a = Lines(expected), b = Lines(actual);
  size_t first = 0;
  while (first < a.size() && first < b.size() && a[first] == b[first]) ++first;
  auto at = [](const std::vector<std::string_view>& lines, size_t i) {
    return i < lines.size() ? std::string(lines[i]) : std::string("(end of text)");
  };
  std::string out = "first difference at line " + std::to_string(first + 1) + ":\n" +
                    "  expected: " + at(a, first) + "\n" + "  actual:   " + at(b, first) + "\n";

  std::map<std::string_view, long> balance;  // > 0: more in expected
  for (std::string_view l : a) ++balance[l];
  for (std::string_view l : b) --balance[l];
  std::vector<std::string_view> only_expected, only_actual;
  for (std::string_view l : a)
    if (balance[l] > 0) {
      --balance[l];
      only_expected.push_back(l);
    }
  for (std::string_view l : b)
    if (balance[l] < 0) {
      ++balance[l];
      only_actual.push_back(l);
    }
  out += std::to_string(only_expected.size()) + " line(s) only expected, " +
         std::to_string(only_actual.size()) + " only actual\n";
  auto list = [&](const std::vector<std::string_view>& lines, const char* prefix) {
    for (size_t i = 0; i < lines.size() && i < max_lines; ++i)
      out += prefix + std::string(lines[i]) + "\n";
    if (lines.size() > max_lines)
      out += std::string(prefix) + "... " + std::to_string(lines.size() - max_lines) + " more\n";
  };
  list(only_expected, "- ");
  list(only_actual, "+ ");
  return out;
}

}  // namespace th
