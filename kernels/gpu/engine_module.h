// What a GPU engine module (gpu-cuda.so, gpu-hip.so) hands the dispatcher:
// its entry symbol returns a pointer to one of these, valid for the process.
// Host and modules are built together, so C++ types cross the boundary.
#pragma once

#include <tracehound/kernels/primitives.h>

#include <memory>
#include <string>
#include <vector>

namespace th::kernels {

struct GpuEngineModule {
  // nullptr with *why_not set when no device or the driver fails.
  std::unique_ptr<Engine> (*make_engine)(std::string* why_not);
  std::vector<std::string> (*devices)();
};

}  // namespace th::kernels

#define TH_CUDA_ENGINE_MODULE_ENTRY "th_cuda_engine_module"
#define TH_HIP_ENGINE_MODULE_ENTRY "th_hip_engine_module"
