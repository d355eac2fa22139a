// The GPU engines as the dispatcher sees them. Each returns nullptr and says
// why when it cannot be used (not built, no device, driver error).
#pragma once

#include <tracehound/kernels/primitives.h>

#include <memory>
#include <string>
#include <vector>

namespace th::kernels {

bool CudaBuilt();
bool HipBuilt();
std::unique_ptr<Engine> MakeCudaEngine(std::string* why_not);
std::unique_ptr<Engine> MakeHipEngine(std::string* why_not);
std::vector<std::string> CudaDevices();
std::vector<std::string> HipDevices();

}  // namespace th::kernels
