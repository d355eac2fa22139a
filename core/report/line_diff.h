// A short account of how two texts differ, line by line: for a golden file
// and the output that should have matched it.
#pragma once

#include <string>
#include <string_view>

namespace th {

// "" when `expected` and `actual` are equal. Otherwise: the first line where
// they differ (its number and both versions), then the lines only one of them
// has (counted as multisets, so moved lines do not count), at most
// `max_lines` of each, each prefixed "- " (expected only) or "+ " (actual only).
std::string LineDiffSummary(std::string_view expected, std::string_view actual,
                            size_t max_lines = 10);

}  // namespace th
