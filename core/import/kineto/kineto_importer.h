// Kineto / Chrome-trace JSON importer: text → one Trace (one rank's file).
// XProf / JAX `trace.json.gz` goes the same way with its own mapping
// (xprof_json.h; TraceInfo::format "xprof_json").
//
// Phase 1 (serial): TopLevelReader cuts the decompressed stream into chunks.
// Phase 2 (parallel, oneTBB): ChunkParser parses chunks with simdjson On-Demand.
// Phase 3 (serial, in order): GraphBuilder appends chunks; then derives nesting,
// edges and steps. At most `max_chunks_in_flight` chunks exist at once, so peak
// memory is the graph plus a bounded text window.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/graph/trace.h"
#include "core/import/common/byte_source.h"

namespace th::kineto {

struct ImportOptions {
  size_t chunk_bytes = size_t{1} << 20;
  size_t max_chunks_in_flight = 0;  // 0 = 2 × worker threads
  // A truncated file (a profiler that died while writing) yields the complete
  // events it holds and an error-severity trust entry instead of failing.
  bool keep_truncated = false;
};

// Reads one Kineto/Chrome trace from `text` (already decompressed).
// Fails with a message naming the source and text offset when the JSON is
// malformed or truncated, or when it is not a trace (no traceEvents).
StatusOr<std::unique_ptr<Trace>> ImportKinetoJson(ByteSource& text, const ImportOptions& options);

// The same, but a file that holds several ranks (a TraceLens-merged trace,
// merged_ranks.h) becomes one trace per rank, ascending; TraceInfo::rank and
// rank_source say which rank and by which rule. Any other file: one trace.
StatusOr<std::vector<std::unique_ptr<Trace>>> ImportKinetoJsonRanks(ByteSource& text,
                                                                    const ImportOptions& options);

}  // namespace th::kineto
