// The gpu-hip module: the HIP engine (hip_engine.hip) and libamdhip64, loaded
// by the dispatcher only when a HIP engine is asked for.
#include "kernels/gpu/engine_module.h"
#include "tracehound/kernels/gpu_engines.h"

extern "C" __attribute__((visibility("default"))) const th::kernels::GpuEngineModule*
th_hip_engine_module() {
  static const th::kernels::GpuEngineModule module{&th::kernels::MakeHipEngine,
                                                   &th::kernels::HipDevices};
  return &module;
}
