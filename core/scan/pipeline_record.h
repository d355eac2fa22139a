// The `pipelines` row of a scan: what a pipeline_hash stands for, so the
// pipeline that produced a database's rows can be read back from it.
//
// yaml is EffectivePipelineText (content_hash.h): loaded as a pipeline file
// with the same plugins, it hashes to pipeline_hash again. plugin_versions is
// one line of JSON, {"id": "version", ...}, the enabled plugins in pipeline
// order ("?" for one the registry has not loaded); tracehound_version is the
// version of the tracehound that first wrote the row.
#pragma once

#include <string>

#include "core/graph/status.h"
#include "core/pipeline/pipeline.h"
#include "core/plugin/plugin_loader.h"
#include "core/scan/database.h"

namespace th::scan {

struct PipelineRecord {
  std::string pipeline_hash, yaml, plugin_versions, tracehound_version;
};

PipelineRecord MakePipelineRecord(const Pipeline& pipeline, const PluginRegistry& registry,
                                  const std::string& pipeline_hash);

// Inserts the row unless `db` holds one for its pipeline_hash (the hash
// covers everything but the tracehound version: the first writer's stays).
Status WritePipelineRecord(Database& db, const PipelineRecord& record);

// This build's version (the CMake project version).
const char* TracehoundVersion();

}  // namespace th::scan
