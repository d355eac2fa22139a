// CUDA backend of the compute primitives (see primitives.h for the semantics,
// which every backend reproduces exactly): the shared GPU engine
// (kernels/gpu/engine.h) over the CUDA runtime, Thrust and CUB
// (kernels/gpu/cuda_runtime_shim.h).
#include "kernels/gpu/cuda_runtime_shim.h"
// The shim comes first: the shared engine is written against it.
#include "kernels/gpu/engine.h"
#include "tracehound/kernels/gpu_engines.h"

namespace th::kernels {

bool CudaBuilt() { return true; }

std::unique_ptr<Engine> MakeCudaEngine(std::string* why_not) { return MakeGpuEngine(why_not); }

std::vector<std::string> CudaDevices() { return GpuDevices(); }

}  // namespace th::kernels
