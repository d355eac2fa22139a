#include "core/serve/serve_params.h"

#include <charconv>
#include <numeric>

namespace th::serve {

std::optional<int64_t> ParseInt64(std::string_view text) {
  if (text.empty() || (text[0] == '-' && text.size() == 1)) return std::nullopt;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

StatusOr<int64_t> IntParam(const QueryParams& params, const std::string& name, int64_t min,
                           int64_t max, std::optional<int64_t> fallback) {
  auto it = params.find(name);
  if (it == params.end()) {
    if (fallback) return *fallback;
    return InvalidInput(name + ": missing");
  }
  const auto v = ParseInt64(it->second);
  if (!v) return InvalidInput(name + ": not a decimal integer");
  if (*v < min || *v > max)
    return InvalidInput(name + ": must be in " + std::to_string(min) + ".." + std::to_string(max));
  return *v;
}

StatusOr<std::vector<uint32_t>> RowsParam(const QueryParams& params, size_t row_count) {
  std::vector<uint32_t> rows;
  auto it = params.find("rows");
  if (it == params.end() || it->second == "all") {
    rows.resize(row_count);
    std::iota(rows.begin(), rows.end(), 0u);
    return rows;
  }
  std::string_view text = it->second;
  while (true) {
    const size_t comma = text.find(',');
    const auto r = ParseInt64(text.substr(0, comma));
    if (!r || *r < 0) return InvalidInput("rows: \"all\" or row numbers separated by commas");
    if (static_cast<uint64_t>(*r) >= row_count)
      return InvalidInput("rows: no row " + std::to_string(*r) + " (the run has " +
                          std::to_string(row_count) + ")");
    rows.push_back(static_cast<uint32_t>(*r));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return rows;
}

}  // namespace th::serve
