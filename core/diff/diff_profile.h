// One side of a diff (A or B) as its profile (the SDK's Profile,
// <tracehound/diff/diff_profile.h>, which says what it holds): the command
// builds it with the same code as the trace-diff plugin, over the columns of
// each trace's event graph (the catalog tables the plugin reads) and the
// results of `steps` and `step-breakdown`.
#pragma once

#include <tracehound/diff/diff_profile.h>

#include <memory>
#include <string>
#include <vector>

#include "core/diff/diff_result.h"
#include "core/graph/analysis_results.h"
#include "core/graph/status.h"
#include "core/graph/trace.h"

namespace th::diff {

// A side's input: its traces, the results of `steps` and `step-breakdown` run
// on them, and its name in reports.
struct DiffSide {
  const TraceSet* traces = nullptr;
  const PluginResults* results = nullptr;
  std::string label;                // "A", "B"
  std::vector<std::string> inputs;  // as the user gave them (for reports)
};

// ClassOfKind for an event graph's kind.
EventClass ClassOf(EventKind kind, bool all_classes);

// ProfileTraces over a TraceSet's event graphs: its columns in place, the
// track kinds and launch edges (edge order) gathered; valid while both live.
class GraphProfileTraces {
 public:
  explicit GraphProfileTraces(const TraceSet& set);
  ~GraphProfileTraces();
  GraphProfileTraces(const GraphProfileTraces&) = delete;
  GraphProfileTraces& operator=(const GraphProfileTraces&) = delete;
  const std::vector<ProfileTrace>& traces() const { return traces_; }
  struct Storage;  // what the traces point to beyond the graphs' columns

 private:
  std::unique_ptr<Storage> storage_;
  std::vector<ProfileTrace> traces_;
};

// The profile of `side` over `traces` (its GraphProfileTraces).
StatusOr<Profile> BuildProfile(const DiffSide& side, const std::vector<ProfileTrace>& traces,
                               const DiffOptions& options);
StatusOr<Profile> BuildProfile(const DiffSide& side, const DiffOptions& options);

}  // namespace th::diff
