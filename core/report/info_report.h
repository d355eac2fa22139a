// The `tracehound info` report: a terminal summary and a JSON document whose
// top-level keys are a fixed contract (other tools read them; add, never rename):
// format, events, events_by_phase, events_by_category, kernels{count,total_ns},
// memcpy{count,total_ns}, memset{count,total_ns}, gpu_streams, steps,
// memory_events, peak_total_allocated, trust[{id,what,severity,count[,example]}], and
// traces[] with the same keys plus path and rank.
#pragma once

#include <ostream>

#include "core/graph/trace.h"
#include "core/report/trace_summary.h"

namespace th {

// What `info` shows beyond the trace summary, computed by plugins.
struct InfoExtras {
  std::vector<KernelTotal> top_kernels;  // from kernel-stats, by total time, at most 10
  std::string top_kernels_note;          // why they are missing, when they are
};

void WriteInfoText(const TraceSet& set, const InfoExtras& extras, std::ostream& out);
void WriteInfoJson(const TraceSet& set, const InfoExtras& extras, std::ostream& out);

}  // namespace th
