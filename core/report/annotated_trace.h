// The annotated trace: the input trace(s) written back as Chrome-trace JSON
// (Perfetto UI, chrome://tracing) with the run's findings as instant events
// and derived counter tracks.
//
// Per trace (rank) one file: every original event of the event graph (ts/dur
// in µs with the exact ns digits, ph, name, cat, pid/tid, process_name /
// thread_name metadata from the tracks, args: correlation, External id, the
// GPU, collective, allocator and counter args the importer keeps); each
// finding as an instant event (`ph:"i"`, cat "tracehound.finding"; scoped to
// the process of the GPU stream its scope names, `s:"p"`, when there is one,
// else global `s:"g"`); counters (`ph:"C"`, cat "tracehound.derived"):
// launches outstanding per GPU stream (+1 at a launch's start, -1 at the end
// of the GPU activity it launched, through launch edges) and GPU memory
// allocated per device (allocator events' Total Allocated), in the process of
// the stream / allocator events. Added events sit on threads of their own
// ("tracehound findings", "tracehound counters"): on the original threads they
// would become slices that flow ends bind to on re-import.
//
// Several ranks: one file per rank, "X.json.gz" -> "X.rank<N>.json.gz" (a
// finding without a rank goes to every file). gzip when the path ends in
// ".gz". Written atomically (core/report/output_file.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph/analysis_results.h"
#include "core/graph/status.h"
#include "core/graph/trace.h"

namespace th {

struct AnnotatedTraceStats {
  std::string path;
  int64_t events = 0;    // original events written
  int64_t skipped = 0;   // importer-derived events (not in the file), not written
  int64_t metadata = 0;  // process/thread name events added for named tracks
  int64_t findings = 0;  // instant events added
  int64_t counters = 0;  // counter events added
};

// The Chrome-trace JSON text of one trace with `findings` (those of its rank
// and those without a rank) added.
std::string AnnotatedTraceJson(const Trace& trace, const std::vector<Finding>& findings,
                               AnnotatedTraceStats* stats = nullptr);

// "annotated.json.gz" -> "annotated.rank3.json.gz" (before ".json", else
// before the last extension, else at the end).
std::string RankedPath(const std::string& path, int64_t rank);

// Writes every trace of `traces`: one file at `path` for a single trace, one
// per rank (RankedPath) for several. gzip when `path` ends in ".gz".
Status WriteAnnotatedTraces(const TraceSet& traces, const std::vector<Finding>& findings,
                            const std::string& path,
                            std::vector<AnnotatedTraceStats>* stats = nullptr);

}  // namespace th
