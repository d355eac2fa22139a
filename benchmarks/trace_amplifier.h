// Trace amplifier: makes a big Kineto trace out of a real one, for ingest
// benchmarks. The source's top-level metadata is kept byte for byte; its
// events (all but `M` metadata, which are written once, and the final
// `Record Window End`, written once at the end) are repeated K times. Copy k
// has every `ts` shifted by k * (span + gap) and every correlation /
// `External id` / flow `id` (also cuda_sync `wait_on_cuda_event_record_corr_id`
// and `Python id` / `Python parent id`; ids <= 0 mean "none" and are kept)
// offset by k * (max id + 1), so links stay unique; `ProfilerStep#N` names
// are renumbered by k * (step count) so steps stay distinct. Event text is copied verbatim apart
// from those numbers, so bytes/event match the source; ts arithmetic is exact integer ns. The
// output is streamed (never held in memory); `.gz` output is one gzip member (ISA-L).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/graph/status.h"

namespace th::bench {

struct AmplifyOptions {
  int64_t target_bytes = 0;  // repeat until the uncompressed output reaches this (>= 1 copy)
  int64_t repetitions = 0;   // > 0: exactly this many copies; target_bytes is ignored
  int64_t gap_ns = 1000000;  // idle time between copies (>= 0)
  int gzip_level = 1;        // ISA-L level 0..3 for .gz output
};

struct AmplifyStats {
  int64_t source_bytes = 0;     // uncompressed source JSON
  int64_t source_events = 0;    // traceEvents elements in the source
  int64_t metadata_events = 0;  // written once (M + Record Window End)
  int64_t repetitions = 0;
  int64_t events_written = 0;
  int64_t bytes_written = 0;          // uncompressed output JSON
  int64_t file_bytes = 0;             // output file size (compressed for .gz)
  int64_t period_ns = 0;              // ts shift between consecutive copies
  int64_t id_stride = 0;              // id offset between consecutive copies
  int64_t step_stride = 0;            // ProfilerStep#N offset between copies (steps stay distinct)
  double source_bytes_per_event = 0;  // traceEvents bytes / events (no header/footer)
  double output_bytes_per_event = 0;
  // Same, over the repeated (non-metadata) events only: the like-for-like
  // shape check when a source is metadata-heavy.
  double source_repeated_bytes_per_event = 0, output_repeated_bytes_per_event = 0;
  double load_seconds = 0, write_seconds = 0;
};

// input: .json or .json.gz (detected by the gzip magic), at most 2 GiB of JSON.
// output: .json, or gzip when the name ends in ".gz".
th::StatusOr<AmplifyStats> AmplifyKinetoTrace(const std::string& input, const std::string& output,
                                              const AmplifyOptions& options);
th::StatusOr<AmplifyStats> AmplifyKinetoTrace(const std::string& input, const std::string& output,
                                              int64_t target_bytes);

// "1G" / "512M" / "64K" / "1T" (powers of 1024, optional trailing "B" or "iB")
// or plain bytes -> bytes.
th::StatusOr<int64_t> ParseByteSize(std::string_view text);

}  // namespace th::bench
