#include <tracehound/kernels/dispatch.h>
#include <tracehound/kernels/gpu_engines.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

namespace th::kernels {

namespace {

// Default for `auto`: below this many rows the CPU wins once transfers count.
// Provisional until measured on a lent GPU machine (benchmarks/gpu_check.sh).
constexpr size_t kDefaultGpuMinRows = size_t{1} << 22;

// The CPU engine always; a GPU engine (and its module) only once a call may use
// it, so that a process which never does maps no GPU runtime.
class Engines {
 public:
  Engine* cpu() { return cpu_.get(); }
  Engine* cuda(std::string* why_not) { return Gpu(cuda_, MakeCudaEngine, why_not); }
  Engine* hip(std::string* why_not) { return Gpu(hip_, MakeHipEngine, why_not); }

 private:
  struct Lazy {
    std::once_flag once;
    std::unique_ptr<Engine> engine;
    std::string why_not;
  };
  static Engine* Gpu(Lazy& lazy, std::unique_ptr<Engine> (*make)(std::string*),
                     std::string* why_not) {
    std::call_once(lazy.once, [&] { lazy.engine = make(&lazy.why_not); });
    if (!lazy.engine && why_not) *why_not = lazy.why_not;
    return lazy.engine.get();
  }

  std::unique_ptr<Engine> cpu_ = MakeCpuEngine();
  Lazy cuda_, hip_;
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
  std::string cuda_why, hip_why;
  Engine* cuda_engine = e.cuda(&cuda_why);
  BackendInfo cuda{Backend::kCuda, CudaBuilt(), cuda_engine != nullptr, ""};
  if (cuda_engine) {
    for (const std::string& d : CudaDevices()) cuda.detail += (cuda.detail.empty() ? "" : "; ") + d;
  } else {
    cuda.detail = cuda_why;
  }
  out.push_back(cuda);
  Engine* hip_engine = e.hip(&hip_why);
  out.push_back(
      {Backend::kHip, HipBuilt(), hip_engine != nullptr, hip_engine ? "device present" : hip_why});
  return out;
}

KernelStatus SelectEngine(BackendChoice choice, size_t rows, Engine** engine) {
  Engines& e = Instance();
  std::string why;
  switch (choice) {
    case BackendChoice::kCpu:
      *engine = e.cpu();
      return {};
    case BackendChoice::kCuda:
      *engine = e.cuda(&why);
      if (!*engine) return KernelStatus("backend cuda is not available: " + why);
      return {};
    case BackendChoice::kHip:
      *engine = e.hip(&why);
      if (!*engine) return KernelStatus("backend hip is not available: " + why);
      return {};
    case BackendChoice::kAuto:
      break;
  }
  *engine = e.cpu();
  if (rows >= GpuMinRows()) {
    if (Engine* cuda = e.cuda(nullptr))
      *engine = cuda;
    else if (Engine* hip = e.hip(nullptr))
      *engine = hip;
  }
  return {};
}

}  // namespace th::kernels
