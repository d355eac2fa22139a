// HIP backend of the compute primitives (see primitives.h for the semantics,
// which every backend reproduces exactly): the shared GPU engine
// (kernels/gpu/engine.h) over the HIP runtime and rocPRIM
// (kernels/gpu/hip_runtime_shim.h).
#include "kernels/gpu/hip_runtime_shim.h"
// The shim comes first: the shared engine is written against it.
#include "kernels/gpu/engine.h"
#include "tracehound/kernels/gpu_engines.h"

namespace th::kernels {

bool HipBuilt() { return true; }

std::unique_ptr<Engine> MakeHipEngine(std::string* why_not) { return MakeGpuEngine(why_not); }

std::vector<std::string> HipDevices() { return GpuDevices(); }

}  // namespace th::kernels
