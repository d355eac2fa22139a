#include "cli/pipeline_setup.h"

#include <boost/dll/runtime_symbol_info.hpp>
#include <filesystem>

namespace th::cli {

namespace fs = std::filesystem;

std::string ConfigPath(const std::string& name) {
  fs::path exe = boost::dll::program_location().string();
  for (const fs::path& dir : {exe.parent_path().parent_path() / "share" / "tracehound" / "configs",
                              fs::path(TRACEHOUND_SOURCE_CONFIG_DIR)}) {
    std::error_code ec;
    if (fs::exists(dir / name, ec)) return (dir / name).string();
  }
  return (fs::path(TRACEHOUND_SOURCE_CONFIG_DIR) / name).string();
}

Status LoadRegistry(const std::string& pipeline, const std::vector<std::string>& plugin_paths,
                    const LoadPipelineOptions& load, PluginRegistry* registry) {
  std::vector<std::string> extra = plugin_paths;
  if (!pipeline.empty()) {
    auto paths = ReadPipelinePluginPaths(pipeline, load);
    if (!paths.ok()) return paths.status();
    extra.insert(extra.begin(), paths->begin(), paths->end());
  }
  return registry->LoadDirectories(PluginSearchPath(extra));
}

std::string ResolvePipelinePath(const std::string& pipeline) {
  std::error_code ec;
  if (fs::exists(pipeline, ec) || pipeline.find('/') != std::string::npos) return pipeline;
  std::string name = pipeline;
  if (fs::path(name).extension() != ".yaml") name += ".yaml";
  std::string shipped = ConfigPath(name);
  return fs::exists(shipped, ec) ? shipped : pipeline;
}

}  // namespace th::cli
