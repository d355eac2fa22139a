// GPU engines that are not compiled into this build: they say so.
#include <tracehound/kernels/gpu_engines.h>

namespace th::kernels {

#ifndef TRACEHOUND_HAVE_CUDA
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

#ifndef TRACEHOUND_HAVE_HIP
bool HipBuilt() { return false; }
std::unique_ptr<Engine> MakeHipEngine(std::string* why_not) {
  if (why_not)
    *why_not = "tracehound was built without HIP (hipcc and rocPRIM not found at configure time)";
  return nullptr;
}
std::vector<std::string> HipDevices() { return {}; }
#endif

}  // namespace th::kernels
