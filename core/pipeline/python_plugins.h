// The Python plugins a pipeline names, imported into a registry before the
// pipeline is validated against the registry's catalog.
#pragma once

#include "core/graph/status.h"
#include "core/pipeline/pipeline_loader.h"
#include "core/plugin/plugin_loader.h"

namespace th {

// Loads each `python:` plugin of `document` (none: nothing is loaded, no
// interpreter started). An error names the pipeline file, line and column of
// the `python:` value: the import or declaration failure, or a class whose
// declared id is not the plugin's key.
Status LoadPipelinePythonPlugins(const PipelineDocument& document, PluginRegistry* registry);

}  // namespace th
