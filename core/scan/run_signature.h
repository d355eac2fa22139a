// The trace signature of a run and its job family: runs of one job family
// (the same pipeline over the same kind of job) are the ones whose step times
// are compared with each other.
//
// Signature: ranks (distinct ranks of the run's traces), devices (distinct
// (rank, device) of GPU stream tracks) and top_kernels (the kSignatureKernels
// kernel names launched most often over all ranks, by count, then name).
// Launch counts, not times, pick the kernels: a kernel that became slower
// does not move its run into another family.
// Stored as one line of JSON, e.g.
//   {"ranks": 2, "devices": 2, "top_kernels": ["gemm", "nccl_allreduce"]}
// job_family = XXH3-128 of "<pipeline_hash>\n<signature JSON>".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/graph/trace.h"

namespace th::scan {

inline constexpr size_t kSignatureKernels = 5;

struct RunSignature {
  int64_t ranks = 0, devices = 0;
  std::vector<std::string> top_kernels;  // most launched first
};

RunSignature ComputeRunSignature(const TraceSet& traces);

std::string SignatureJson(const RunSignature& signature);

std::string JobFamily(const std::string& pipeline_hash, const std::string& signature_json);

}  // namespace th::scan
