// A test helper: merges the rank traces of a job into one Chrome trace the
// way TraceLens' TraceFusion does (TraceFuse.merge with a filter that keeps
// every event), so that tracehound's split of such a file can be checked
// against the rank files themselves.
//
// As TraceFuse: the linking key is "correlation" when rank 0's first CUDA
// launch carries one, else "External id"; "id", "pid" and the linking key are
// offset by rank × 10^(digits of rank 0's largest value + 1), the old value
// kept as args["<field>_raw"]; "rank" is added to every event's args; the
// ranks' process_name / process_sort_index / process_labels metadata is
// dropped and every integer pid named "RANK <n> - GPU" (it holds kernels,
// memcpy or memset) or "RANK <n> - CPU". Unlike TraceFuse (Python floats),
// numbers are copied as written, so times stay exact, and rank 0's top-level
// keys (deviceProperties, distributedInfo, ...) are kept, where TraceFuse
// drops them: the devices are the job's, and without them device figures
// (capacity, peak throughput) could not be compared with the rank files.
#pragma once

#include <string>
#include <vector>

namespace th::testing {

// `ranks[r]` is the JSON text of rank r's trace. Returns the merged JSON.
std::string MergeLikeTraceLens(const std::vector<std::string>& ranks);

}  // namespace th::testing
