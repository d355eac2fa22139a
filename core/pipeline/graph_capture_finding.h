// The host's info finding about a trace that captures CUDA/HIP graphs: what
// the trace is (a capture phase, not steady-state execution, when most of its
// launches never ran), the counts that show it, and the analyses that left it
// out for that reason.
#pragma once

#include <string>
#include <vector>

#include "core/graph/analysis_results.h"
#include "core/graph/graph_capture.h"
#include "core/graph/trace.h"

namespace th {

// Severity info, plugin "host", scoped to the trace's rank. `skipped_by`: ids
// of the plugins that skipped the trace, in run order.
Finding GraphCaptureFinding(const Trace& trace, const GraphCapture& capture,
                            const std::vector<std::string>& skipped_by);

}  // namespace th
