// Synthetic PyTorch/Kineto Chrome-trace generator.
//
// Writes traces shaped like the ones torch.profiler + Kineto write (newest
// layout: metadata first, `ts`/`dur` in µs with exactly 3 decimals, optionally
// relative to `baseTimeNanoseconds`), for a simulated data-parallel training
// job: ProfilerStep#N annotations, nested aten:: ops, CUDA runtime launches,
// kernels / memcpy / memset on per-device streams, NCCL collectives on a
// communication stream, ac2g flows and [memory] instants. All ranks are
// simulated together, so collectives end at the same time on every rank and a
// straggler rank makes the others wait. Output is a pure function of the
// Scenario (deterministic per seed); nothing is read from real traces.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "core/graph/status.h"

namespace th::synth {

// One simulated job. Every field has a realistic default.
struct Scenario {
  int ranks = 2;                    // ranks simulated, one trace each
  int steps = 4;                    // ProfilerStep#N per rank
  int streams = 2;                  // compute streams per GPU (stream 7 first)
  int kernels_per_step = 120;       // compute kernels per step (NCCL excluded)
  int collectives_per_step = 4;     // NCCL kernels per step, on their own comm stream
  int memcpy_per_step = 6;          // 1 DtoH (loss.item()), up to 2 HtoD, rest DtoD
  int memset_per_step = 2;          // cuBLAS-workspace style memsets inside ops
  bool memory_events = true;        // [memory] instants (profile_memory=True)
  bool relative_timestamps = true;  // baseTimeNanoseconds + relative ts, else epoch µs
  uint64_t seed = 1;
  std::string gpu_name = "NVIDIA H100 80GB HBM3";  // "A100" in the name selects A100 properties
  int world_size = 0;                // 0 = ranks; may exceed ranks (only `ranks` are written)
  int straggler_rank = -1;           // rank with slower GPU compute, -1 = none
  double straggler_slowdown = 1.35;  // GPU compute duration factor of the straggler
  int gpus_per_node = 8;             // deviceProperties entries; device = rank % gpus_per_node
  int first_step = 10;               // N of the first ProfilerStep#N
  int pre_capture_kernels = 2;       // kernels launched before the window: no runtime event
  std::string trace_name;            // "traceName" value; empty = "rank<r>.pt.trace.json"
};

// Exact facts about one written trace, counted while writing (for tests).
struct Manifest {
  int64_t events = 0;                                 // elements of traceEvents
  std::map<std::string, int64_t> events_by_phase;     // by "ph"
  std::map<std::string, int64_t> events_by_category;  // by "cat"; events without cat not counted
  int64_t kernels = 0, kernel_total_ns = 0;           // cat kernel (NCCL included)
  int64_t memcpy = 0, memcpy_total_ns = 0;            // cat gpu_memcpy
  int64_t memset = 0, memset_total_ns = 0;            // cat gpu_memset
  int64_t gpu_streams = 0;  // distinct (pid, tid) with kernel/memcpy/memset
  int64_t steps = 0;        // ProfilerStep#N annotations
  int64_t memory_events = 0, peak_total_allocated = 0;  // [memory] instants, max "Total Allocated"
  int64_t launches = 0;             // cuda_runtime events (launches, syncs, event calls)
  int64_t kernels_with_launch = 0;  // kernels whose correlation has a cuda_runtime event
  int64_t nccl_kernels = 0, nccl_total_ns = 0;  // kernels carrying "Collective name"
  int64_t flows = 0;                            // ac2g s + f events
  int64_t cpu_ops = 0;                          // cat cpu_op
};

// Writes the trace of `rank` (0 <= rank < s.ranks) to `out`. All ranks are
// simulated (collectives couple them), only `rank` is written. `manifest` may
// be null. InvalidInput for a bad Scenario, IoError when `out` fails.
th::Status WriteKinetoTrace(const Scenario& s, int rank, std::ostream& out, Manifest* manifest);

// Writes <dir>/rank<r>.pt.trace.json (or .json.gz when gzip) for every rank in
// one simulation pass; creates dir. Returns the paths in rank order and, when
// `manifests` is non-null, one Manifest per rank. With gzip each trace is held
// in memory once before compression (libdeflate, single gzip member).
th::StatusOr<std::vector<std::string>> WriteKinetoTraces(const Scenario& s, const std::string& dir,
                                                         bool gzip,
                                                         std::vector<Manifest>* manifests);

}  // namespace th::synth
