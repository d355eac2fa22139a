// Choosing the engine for a call: `execution.backend: auto|cpu|cuda|hip`.
//
// `auto` uses a GPU only when its backend is built, a device is present and the
// input has at least GpuMinRows() rows (below that, copying to the device costs
// more than the CPU spends); otherwise the CPU. Asking for a backend that is not
// built, or has no device, is an error saying which and why.
#pragma once

#include <tracehound/kernels/primitives.h>

#include <cstddef>
#include <string>
#include <vector>

namespace th::kernels {

enum class BackendChoice { kAuto, kCpu, kCuda, kHip };

// "auto", "cpu", "cuda", "hip"; false for anything else.
bool ParseBackendChoice(const std::string& text, BackendChoice* out);

// Rows from which `auto` prefers a GPU: TRACEHOUND_GPU_MIN_ROWS, else the
// default measured on the lent GPU machine (benchmarks/RESULTS.md).
size_t GpuMinRows();

struct BackendInfo {
  Backend backend;
  bool built = false;
  bool usable = false;  // built and a device present
  std::string detail;   // devices, or why not usable
};

// What this build can use, for `tracehound info --backends`.
std::vector<BackendInfo> DescribeBackends();

// The engine for `rows` rows; engines live for the whole process.
KernelStatus SelectEngine(BackendChoice choice, size_t rows, Engine** engine);

}  // namespace th::kernels
