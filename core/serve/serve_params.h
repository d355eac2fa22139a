// Query parameters of the HTTP API, checked: a missing or malformed value is
// an error naming the parameter. Numbers are plain decimal (an optional '-'
// then digits, nothing else); no parameter is ever a path.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/status.h"

namespace th::serve {

using QueryParams = std::multimap<std::string, std::string>;

// The decimal int64 in `text`, or nullopt.
std::optional<int64_t> ParseInt64(std::string_view text);

// Parameter `name` as an int64 in [min, max]; `fallback` when absent (an
// error when absent without one).
StatusOr<int64_t> IntParam(const QueryParams& params, const std::string& name, int64_t min,
                           int64_t max, std::optional<int64_t> fallback = std::nullopt);

// `rows`: "all" (every row, in order) or "r1,r2,..." (each < row_count);
// absent means all.
StatusOr<std::vector<uint32_t>> RowsParam(const QueryParams& params, size_t row_count);

}  // namespace th::serve
