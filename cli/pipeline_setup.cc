#include "cli/pipeline_setup.h"

#include <boost/dll/runtime_symbol_info.hpp>
#include <filesystem>

#include "core/pipeline/python_plugins.h"

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

namespace {

Status LoadPlugins(std::vector<std::string> pipeline_paths,
                   const std::vector<std::string>& plugin_paths, PluginRegistry* registry) {
  pipeline_paths.insert(pipeline_paths.end(), plugin_paths.begin(), plugin_paths.end());
  return registry->LoadDirectories(PluginSearchPath(pipeline_paths));
}

}  // namespace

Status LoadRegistry(const std::vector<std::string>& plugin_paths, PluginRegistry* registry) {
  return LoadPlugins({}, plugin_paths, registry);
}

StatusOr<Pipeline> LoadPipelineAndPlugins(const std::string& pipeline,
                                          const std::vector<std::string>& plugin_paths,
                                          const LoadPipelineOptions& load,
                                          PluginRegistry* registry) {
  auto document = PipelineDocument::Read(pipeline, load);
  if (!document.ok()) return document.status();
  auto paths = document->PluginPaths();
  if (!paths.ok()) return paths.status();
  TH_RETURN_IF_ERROR(LoadPlugins(std::move(*paths), plugin_paths, registry));
  TH_RETURN_IF_ERROR(LoadPipelinePythonPlugins(*document, registry));
  return document->Validate(registry->Declarations());
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
