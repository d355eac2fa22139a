// What the pipeline commands share: where the shipped configs are, and the
// plugins a pipeline can see.
#pragma once

#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/pipeline/pipeline_loader.h"
#include "core/plugin/plugin_loader.h"

namespace th::cli {

// A shipped config by file name: <exe>/../share/tracehound/configs when
// installed, else the source tree's configs/.
std::string ConfigPath(const std::string& name);

// Loads the plugins on the search path: `plugin_paths` (--plugin-path),
// TRACEHOUND_PLUGIN_PATH and the installed/build-tree plugin folder.
Status LoadRegistry(const std::vector<std::string>& plugin_paths, PluginRegistry* registry);

// Reads the pipeline file (once), loads the plugins it can see (its
// plugin_paths first, then those of LoadRegistry) and validates it against
// them.
StatusOr<Pipeline> LoadPipelineAndPlugins(const std::string& pipeline,
                                          const std::vector<std::string>& plugin_paths,
                                          const LoadPipelineOptions& load,
                                          PluginRegistry* registry);

// `pipeline` as a file, or, when no such file exists and it names a shipped
// config ("fleet-scan" or "fleet-scan.yaml"), that config.
std::string ResolvePipelinePath(const std::string& pipeline);

}  // namespace th::cli
