// What a diff of two runs (A, B) holds: options, the aggregate rows, the
// structural differences per step pair, the attribution of the step-time
// change and the parity warnings. All times are integer nanoseconds. The
// options, aggregate rows, structural rows and attribution are the SDK's
// (<tracehound/diff/diff_types.h>), shared with the trace-diff plugin.
#pragma once

#include <tracehound/diff/diff_types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace th::diff {

struct SideSummary {
  std::string label;                // "A", "B"
  std::vector<std::string> inputs;  // as given
  int64_t ranks = 0, steps = 0;     // steps: (rank, step) rows kept
  int64_t warmup_left_out = 0;      // warm-up (rank, step) rows dropped
  std::string step_source;          // the steps table's source of the first rank
  std::string kind = "measured";    // of every figure: "inferred" when a rank's steps are
  std::string device;               // first device's name, "" when unknown
  int64_t world_size = 0;           // distributedInfo.world_size, 0 when unknown
};

struct DiffResult {
  DiffOptions options;
  SideSummary a, b;
  std::vector<std::string> warnings;    // parity first
  std::vector<AggregateRow> aggregate;  // |Δ| descending, then class, name
  std::vector<ClassTotal> totals;       // classes in EventClass order, those with events
  std::vector<StepPair> structure;
  Attribution attribution;
};

}  // namespace th::diff
