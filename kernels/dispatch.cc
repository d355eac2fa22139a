#include <tracehound/kernels/dispatch.h>
#include <tracehound/kernels/gpu_engines.h>

#include <cstdlib>
#include <memory>
#include <mutex>

namespace th::kernels {

namespace {

// Default for `auto`: below this many rows the CPU wins once transfers count.
// Provisional until measured on a lent GPU machine (benchmarks/gpu_check.sh).
constexpr size_t kDefaultGpuMinRows = size_t{1} << 22;

struct Engines {
  std::unique_ptr<Engine> cpu = MakeCpuEngine();
  std::unique_ptr<Engine> cuda;
  std::unique_ptr<Engine> hip;
  std::string cuda_why, hip_why;
  Engines() {
    cuda = MakeCudaEngine(&cuda_why);
    hip = MakeHipEngine(&hip_why);
  }
};

Engines& Instance() {
  static Engines engines;
  return engines;
}

}  // namespace

bool ParseBackendChoice(const std::string& text, BackendChoice* out) {
  if (text == "auto")
    *out = BackendChoice::kAuto;
  else if (text == "cpu")
    *out = BackendChoice::kCpu;
  else if (text == "cuda")
    *out = BackendChoice::kCuda;
  else if (text == "hip")
    *out = BackendChoice::kHip;
  else
    return false;
  return true;
}

size_t GpuMinRows() {
  if (const char* env = std::getenv("TRACEHOUND_GPU_MIN_ROWS")) {
    char* end = nullptr;
    unsigned long long v = std::strtoull(env, &end, 10);
    if (end && *end == '\0' && end != env) return static_cast<size_t>(v);
  }
  return kDefaultGpuMinRows;
}

std::vector<BackendInfo> DescribeBackends() {
  Engines& e = Instance();
  std::vector<BackendInfo> out;
  out.push_back({Backend::kCpu, true, true, "oneTBB"});
  BackendInfo cuda{Backend::kCuda, CudaBuilt(), e.cuda != nullptr, ""};
  if (e.cuda) {
    for (const std::string& d : CudaDevices()) cuda.detail += (cuda.detail.empty() ? "" : "; ") + d;
  } else {
    cuda.detail = e.cuda_why;
  }
  out.push_back(cuda);
  out.push_back(
      {Backend::kHip, HipBuilt(), e.hip != nullptr, e.hip ? "device present" : e.hip_why});
  return out;
}

KernelStatus SelectEngine(BackendChoice choice, size_t rows, Engine** engine) {
  Engines& e = Instance();
  switch (choice) {
    case BackendChoice::kCpu:
      *engine = e.cpu.get();
      return {};
    case BackendChoice::kCuda:
      if (!e.cuda) return KernelStatus("backend cuda is not available: " + e.cuda_why);
      *engine = e.cuda.get();
      return {};
    case BackendChoice::kHip:
      if (!e.hip) return KernelStatus("backend hip is not available: " + e.hip_why);
      *engine = e.hip.get();
      return {};
    case BackendChoice::kAuto:
      break;
  }
  if (rows >= GpuMinRows()) {
    if (e.cuda) {
      *engine = e.cuda.get();
      return {};
    }
    if (e.hip) {
      *engine = e.hip.get();
      return {};
    }
  }
  *engine = e.cpu.get();
  return {};
}

}  // namespace th::kernels
