#include "core/scan/mpi_dispatcher.h"

#include <cstdlib>

#include "core/scan/mpi_module.h"
#include "modules/module_loader.h"

namespace th::scan {

bool LaunchedByMpirun(const EnvLookup& env) {
  return env("OMPI_COMM_WORLD_SIZE").has_value() || env("PMIX_RANK").has_value();
}

int MpiWorldSizeFromEnv(const EnvLookup& env) {
  std::optional<std::string> v = env("OMPI_COMM_WORLD_SIZE");
  if (!v) return 1;
  int n = std::atoi(v->c_str());
  return n > 0 ? n : 1;
}

#ifdef TRACEHOUND_MPI_MODULE

bool MpiBuilt() { return true; }

StatusOr<std::unique_ptr<MpiWorld>> MpiWorld::Init() {
  std::string error;
  void* entry = modules::LoadModuleEntry("scan-mpi", TH_MPI_MODULE_ENTRY,
                                         "needed for scans under mpirun", &error);
  if (!entry) return Unsupported(error);
  return reinterpret_cast<const MpiModule* (*)()>(entry)()->init();
}

#else

bool MpiBuilt() { return false; }

StatusOr<std::unique_ptr<MpiWorld>> MpiWorld::Init() {
  return Unsupported(
      "this tracehound was built without MPI (Debian: apt-get install libopenmpi-dev, then "
      "rebuild); use --shard i/N to split a scan instead");
}

#endif

}  // namespace th::scan
