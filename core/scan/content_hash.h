// Content hashes of fleet scans: XXH3-128 (libxxhash) over file bytes, as 32
// lowercase hex digits. A run's content hash covers its files' base names and
// bytes (not where they lie: a copied run is the same content); a pipeline's
// hash covers what decides its results (the effective plugin options, the
// plugins' versions, the backend), not its inputs or outputs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/graph/status.h"
#include "core/pipeline/pipeline.h"
#include "core/plugin/plugin_loader.h"

namespace th::scan {

// XXH3-128 of `bytes`.
std::string HashBytes(std::string_view bytes);

// XXH3-128 of a file's bytes, read in blocks (IoError naming the file).
StatusOr<std::string> HashFile(const std::string& path);

// A run file's identity for the results database: HashFile for a local
// file; "etag:" + the object's ETag (as listed, quotes dropped) for a remote
// object (s3://, gs://, ...), so that a rescan of a bucket skips what it has
// without reading it; an object without an ETag is read and hashed.
StatusOr<std::string> HashRunFile(const std::string& path);

// The hash of a run from (base name, file hash) pairs in the run's file order.
std::string CombineFileHashes(const std::vector<std::pair<std::string, std::string>>& files);

// The effective pipeline as YAML: DumpEffectivePipeline with inputs, outputs,
// source path, plugin paths and thread count cleared.
std::string EffectivePipelineText(const Pipeline& pipeline);

// The hash of EffectivePipelineText and of each enabled plugin's id and
// version as loaded in `registry`.
std::string PipelineHash(const Pipeline& pipeline, const PluginRegistry& registry);

}  // namespace th::scan
