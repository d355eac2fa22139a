// The GPU engines as the dispatcher sees them: each backend built lives in its
// module (gpu-cuda.so, gpu-hip.so), loaded the first time it is asked for; a
// backend not built, or whose module cannot load, says why.
#include <tracehound/kernels/gpu_engines.h>

#include "kernels/gpu/engine_module.h"
#include "modules/module_loader.h"

namespace th::kernels {

namespace {

const GpuEngineModule* LoadEngineModule(const char* name, const char* entry, const char* purpose,
                                        std::string* why_not) {
  std::string error;
  void* symbol = modules::LoadModuleEntry(name, entry, purpose, &error);
  if (!symbol) {
    if (why_not) *why_not = error;
    return nullptr;
  }
  return reinterpret_cast<const GpuEngineModule* (*)()>(symbol)();
}

#ifdef TRACEHOUND_CUDA_MODULE
const GpuEngineModule* CudaModule(std::string* why_not) {
  return LoadEngineModule("gpu-cuda", TH_CUDA_ENGINE_MODULE_ENTRY, "the cuda compute backend",
                          why_not);
}
#endif

#ifdef TRACEHOUND_HIP_MODULE
const GpuEngineModule* HipModule(std::string* why_not) {
  return LoadEngineModule("gpu-hip", TH_HIP_ENGINE_MODULE_ENTRY, "the hip compute backend",
                          why_not);
}
#endif

}  // namespace

#ifdef TRACEHOUND_CUDA_MODULE
bool CudaBuilt() { return true; }
std::unique_ptr<Engine> MakeCudaEngine(std::string* why_not) {
  const GpuEngineModule* module = CudaModule(why_not);
  return module ? module->make_engine(why_not) : nullptr;
}
std::vector<std::string> CudaDevices() {
  const GpuEngineModule* module = CudaModule(nullptr);
  return module ? module->devices() : std::vector<std::string>{};
}
#else
bool CudaBuilt() { return false; }
std::unique_ptr<Engine> MakeCudaEngine(std::string* why_not) {
  if (why_not)
    *why_not =
        "tracehound was built without CUDA (TRACEHOUND_CUDA=OFF, or nvcc not found at configure "
        "time)";
  return nullptr;
}
std::vector<std::string> CudaDevices() { return {}; }
#endif

#ifdef TRACEHOUND_HIP_MODULE
bool HipBuilt() { return true; }
std::unique_ptr<Engine> MakeHipEngine(std::string* why_not) {
  const GpuEngineModule* module = HipModule(why_not);
  return module ? module->make_engine(why_not) : nullptr;
}
std::vector<std::string> HipDevices() {
  const GpuEngineModule* module = HipModule(nullptr);
  return module ? module->devices() : std::vector<std::string>{};
}
#else
bool HipBuilt() { return false; }
std::unique_ptr<Engine> MakeHipEngine(std::string* why_not) {
  if (why_not)
    *why_not = "tracehound was built without HIP (hipcc and rocPRIM not found at configure time)";
  return nullptr;
}
std::vector<std::string> HipDevices() { return {}; }
#endif

}  // namespace th::kernels
