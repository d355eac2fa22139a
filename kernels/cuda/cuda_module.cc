// The gpu-cuda module: the CUDA engine (cuda_engine.cu) and the CUDA runtime,
// loaded by the dispatcher only when a CUDA engine is asked for.
#include "kernels/gpu/engine_module.h"
#include "tracehound/kernels/gpu_engines.h"

extern "C" __attribute__((visibility("default"))) const th::kernels::GpuEngineModule*
th_cuda_engine_module() {
  static const th::kernels::GpuEngineModule module{&th::kernels::MakeCudaEngine,
                                                   &th::kernels::CudaDevices};
  return &module;
}
