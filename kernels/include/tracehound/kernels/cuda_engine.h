// The CUDA backend of the compute primitives (CUB, compiled by nvcc when
// -DTRACEHOUND_WITH_CUDA=ON; TRACEHOUND_HAVE_CUDA is defined for its users).
//
// Host spans in, device copies, host results out: every Engine method copies
// its inputs to device 0, computes there and copies the results back, with the
// exact semantics documented in primitives.h. Any CUDA failure (out of device
// memory, a sticky launch error) comes back as a KernelStatus error carrying the
// CUDA error text; nothing aborts.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tracehound/kernels/primitives.h"

namespace th::kernels {

// The CUDA engine on device 0, or nullptr when it cannot run here; then
// *why_not (when why_not is not null) says why: "no CUDA device: <CUDA error
// text>", "tracehound was built without CUDA", or which device check failed.
std::unique_ptr<Engine> MakeCudaEngine(std::string* why_not);

// One line per visible CUDA device, e.g. "NVIDIA H200 (sm_90, 140 GiB)";
// empty without a device or without CUDA.
std::vector<std::string> CudaDevices();

}  // namespace th::kernels
