// The run manifest tracehound.capture writes beside each rank's trace:
// "<dir>/rank<R>.trace.json" has "<dir>/rank<R>.tracehound-manifest.json", a
// JSON object {"tracehound_manifest": 1, "trace", "rank", "world_size",
// "host", "pid", "start_time_ns", "framework", "framework_version",
// "profiler", "mode", "steps", "first_step", "tags": {..}, ...}. It holds the
// facts a bare autograd-profiler trace lacks: the rank, the host and the
// wall-clock time its ts count from. Manifests are tracehound's own output,
// never a trace: directory walks skip them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/graph/status.h"

namespace th {

inline constexpr std::string_view kManifestSuffix = ".tracehound-manifest.json";

struct RunManifest {
  std::string path;  // the manifest file
  int64_t version = 0;
  std::optional<int64_t> rank, world_size, start_time_ns, steps, first_step;
  std::string host, framework, framework_version, profiler, mode;
  std::vector<std::pair<std::string, std::string>> tags;  // sorted by key
};

bool IsManifestFile(std::string_view path);

// "<stem>.trace.json[.gz]" → "<stem>.tracehound-manifest.json"; "" for any
// other name.
std::string ManifestPathFor(std::string_view trace_path);

// InvalidInput naming the file (and the offset simdjson stopped at) for text
// that is not a manifest object; a field of the wrong type is an error too.
StatusOr<RunManifest> ReadRunManifest(const std::string& path);

// The manifest beside a trace: nullopt when there is none; its error when it
// is there but unreadable.
StatusOr<std::optional<RunManifest>> ManifestForTrace(std::string_view trace_path);

}  // namespace th
