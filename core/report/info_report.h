// The `tracehound info` report: a terminal summary and a JSON document whose
// top-level keys are a fixed contract (other tools read them; add, never rename):
// format, events, events_by_phase, events_by_category, kernels{count,total_ns},
// memcpy{count,total_ns}, memset{count,total_ns}, gpu_streams, steps,
// memory_events, peak_total_allocated, trust[{what,severity,count}], and
// traces[] with the same keys plus path and rank.
#pragma once

#include <ostream>

#include "core/graph/trace.h"

namespace th {

void WriteInfoText(const TraceSet& set, std::ostream& out);
void WriteInfoJson(const TraceSet& set, std::ostream& out);

}  // namespace th
