#include "core/import/xla_join.h"

#include <filesystem>
#include <string>

#include "core/import/hlo/hlo_join.h"
#include "core/import/hlo/kernel_attribution.h"
#include "core/import/remote/object_url.h"
#include "core/import/remote/remote_inputs.h"

namespace th {

void JoinXla(Trace* trace, const std::vector<xspace::EmbeddedHloProto>& embedded,
             bool with_side_files) {
  std::string dir;
  std::vector<std::pair<std::string, std::string>> remote_side_files;
  if (with_side_files && remote::IsRemoteInput(trace->info.path)) {
    auto read = remote::ReadRemoteSiblings(trace->info.path, ".hlo_proto.pb");
    if (read.ok()) {
      remote_side_files = std::move(*read);
    } else {
      trace->trust.Add(TrustId::kHloModuleUndecodable, 1, read.status().message());
    }
  } else if (with_side_files) {
    dir = std::filesystem::path(trace->info.path).parent_path().string();
    if (dir.empty()) dir = ".";
  }
  hlo::JoinHloModules(trace, embedded, dir, remote_side_files);
  hlo::AttributeKernels(trace);
}

}  // namespace th
