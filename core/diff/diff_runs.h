// DiffRuns: compares two runs (or sets of runs) A and B on three levels —
// aggregate rows per (class, name), aligned step trees, and the attribution
// of the step-time change — after `steps` and `step-breakdown` ran on each
// side (RunDiffPlugins does that from a plugin registry).
#pragma once

#include "core/diff/diff_profile.h"
#include "core/diff/diff_result.h"
#include "core/graph/status.h"
#include "core/plugin/plugin_loader.h"

namespace th::diff {

StatusOr<DiffResult> DiffRuns(const DiffSide& a, const DiffSide& b, const DiffOptions& options);

// Runs the `steps` and `step-breakdown` plugins of `registry` (options at
// their defaults) on `traces`. NotFound when the registry lacks one; the
// error of `steps` when it fails; a failure of `step-breakdown` leaves its
// tables out (the diff's attribution is then not available).
StatusOr<PluginResults> RunDiffPlugins(const TraceSet& traces, const PluginRegistry& registry);

}  // namespace th::diff
