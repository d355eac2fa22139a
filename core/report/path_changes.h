// The report's changes ranked by the critical path: each cause (a finding
// group) maps to the path time it covers (its plugin's path categories,
// restricted to its scopes' rank, stream and time range, and for compute to
// the kernels its findings name), ranked by its share of the path, with the
// step time if it went away (inferred from the critical-path plugin's
// what-if of its categories). Needs the critical-path plugin's tables.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph/analysis_results.h"
#include "core/graph/trace.h"

namespace th {

struct PathChange {
  const Finding* finding = nullptr;  // the cause's worst scope
  std::string group;                 // "plugin/group-N"
  std::vector<std::string> categories;
  int64_t paths = 0;  // per-rank step paths the cause's scopes reach
  double share_median = 0, share_min = 0, share_max = 0;  // covered / path length
  // The path at the median share: its figures (ns).
  int64_t step = 0, rank = 0;
  int64_t path_ns = 0, covered_ns = 0;
  int64_t what_if_ns = 0;     // the path with all of the cause's first covered category at 0
  int64_t path_after_ns = 0;  // inferred
  int64_t step_ns = 0;        // measured: the path's elapsed time (path + waits)
  int64_t step_after_ns = 0;  // inferred: step_ns - (path_ns - path_after_ns)
  std::string assumption, knob;
  // Every path the cause reaches: (step, rank, covered ns, path ns), by share.
  struct OnPath {
    int64_t step = 0, rank = 0, covered_ns = 0, path_ns = 0;
  };
  std::vector<OnPath> per_path;
};

struct PathChanges {
  bool available = false;           // the critical-path tables (with what-ifs) are in the results
  std::vector<PathChange> changes;  // largest median share first
};

// The path categories a plugin's causes stand for ({} when none).
std::vector<std::string> PathCategoriesOf(const std::string& plugin);

PathChanges RankChangesByPath(const TraceSet& set, const PluginResults& results);

}  // namespace th
