// Whole-trace name search of one run: substring (ASCII case-insensitive) or
// RE2 regex (bounded memory) over the names of the indexed events. Each
// distinct name is matched once; then one pass over the rows (in parallel)
// counts the hits per row and per density bin and keeps the first ones.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/serve/serve_run.h"

namespace th::serve {

inline constexpr int kMaxSearchBins = 10000;
inline constexpr int kMaxSearchLimit = 10000;

struct SearchQuery {
  std::string text;
  bool regex = false;
  int bins = 1000;                                         // 1..kMaxSearchBins
  int limit = 100;                                         // 0..kMaxSearchLimit
  int64_t after_ns = std::numeric_limits<int64_t>::min();  // relative
};

struct SearchHit {
  EventId id = 0;
  uint32_t row = 0;
  int64_t start_ns = 0, dur_ns = 0;  // start relative
};

struct SearchResult {
  uint64_t hits_total = 0;
  std::vector<std::pair<uint32_t, uint64_t>> per_row;  // rows with hits, ascending
  // Bin b counts hits starting in [b, b + 1) · (end_ns + 1) / bins (relative).
  std::vector<uint64_t> density;
  // The first `limit` hits starting at or after after_ns, by (start, id).
  std::vector<SearchHit> hits;
  std::optional<int64_t> next_after_ns;  // start of the next hit after those, if any
};

// An error names the parameter (q: empty or a bad regex).
StatusOr<SearchResult> Search(const ServeRun& run, const SearchQuery& query);

std::string SearchJson(const ServeRun& run, const SearchQuery& query, const SearchResult& r);

}  // namespace th::serve
