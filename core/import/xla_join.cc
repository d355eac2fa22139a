#include "core/import/xla_join.h"

#include <filesystem>
#include <string>

#include "core/import/hlo/hlo_join.h"
#include "core/import/hlo/kernel_attribution.h"

namespace th {

void JoinXla(Trace* trace, const std::vector<xspace::EmbeddedHloProto>& embedded,
             bool with_side_files) {
  std::string dir;
  if (with_side_files) {
    dir = std::filesystem::path(trace->info.path).parent_path().string();
    if (dir.empty()) dir = ".";
  }
  hlo::JoinHloModules(trace, embedded, dir);
  hlo::AttributeKernels(trace);
}

}  // namespace th
