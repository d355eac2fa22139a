// What the scan-mpi module (mpi_world.cc) hands MpiWorld::Init: its entry
// symbol returns a pointer to one of these, valid for the process.
#pragma once

#include <memory>

#include "core/graph/status.h"
#include "core/scan/mpi_dispatcher.h"

namespace th::scan {

struct MpiModule {
  // MPI_Init_thread and the world's rank and size; an error when MPI is
  // already initialised or does not provide MPI_THREAD_SERIALIZED.
  StatusOr<std::unique_ptr<MpiWorld>> (*init)();
};

}  // namespace th::scan

#define TH_MPI_MODULE_ENTRY "th_mpi_module"
