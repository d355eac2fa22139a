// PipelineJsonSchema: a JSON Schema (draft 2020-12) of pipeline files,
// generated from the plugins' declarations, for editors and `configs/`.
// It describes the file as written: every plugin id with its options (type,
// default, bounds, choices, doc), `enabled` and `severity`. It cannot express
// ${env:...} substitution or include merging; LoadPipeline is the authority.
#pragma once

#include <string>
#include <vector>

#include "core/plugin/plugin_declaration.h"

namespace th {

// Deterministic: plugins sorted by id, options in declaration order.
std::string PipelineJsonSchema(const std::vector<PluginDeclaration>& catalog);

}  // namespace th
