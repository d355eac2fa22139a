// The out-of-tree plugin skeleton written by `tracehound new-plugin ID`: a
// CMake project built against the installed SDK (find_package(tracehound_sdk)),
// a working analyzer or detector, its test written with the SDK's test kit
// (<tracehound/testing.h>), and a README in the shape of
// plugins/kernel-stats/README.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/graph/status.h"

namespace th {

// kebab-case: [a-z][a-z0-9]*(-[a-z0-9]+)*, e.g. "long-kernels".
bool IsKebabCasePluginId(std::string_view id);

// "long-kernels" -> "long_kernels" (file and CMake target names).
std::string PluginIdToSnakeCase(std::string_view id);
// "long-kernels" -> "LongKernels" (the plugin class).
std::string PluginIdToClassName(std::string_view id);

// InvalidInput naming the id and the rule when `id` cannot name a plugin:
// not kebab-case, or a name CMake reserves for its own targets ("test", ...).
Status CheckPluginId(std::string_view id);

// `text` with every placeholder of `vars` (e.g. {"@ID@", "long-kernels"})
// replaced; the first key that matches at a position wins.
std::string ExpandPlaceholders(std::string_view text,
                               const std::vector<std::pair<std::string_view, std::string>>& vars);

struct ScaffoldFile {
  std::string path;  // relative to the plugin's directory
  std::string contents;
};

// What the skeleton's plugin is: an analyzer (a metric per rank and a
// published table) or a detector (findings with time lost, saving, group and
// time range).
enum class ScaffoldKind { kAnalyzer, kDetector };
// "analyzer" or "detector"; nullopt for anything else.
std::optional<ScaffoldKind> ParseScaffoldKind(std::string_view name);

// The skeleton's files for `id` (assumed valid), in the order they are
// written: CMakeLists.txt, <snake>.cc, test_<snake>.cc, README.md.
std::vector<ScaffoldFile> PluginScaffoldFiles(std::string_view id,
                                              ScaffoldKind kind = ScaffoldKind::kAnalyzer);

// Writes the skeleton to `parent_dir`/`id`/ (directories created as needed)
// and returns the paths written. InvalidInput for a bad id or when that
// directory already exists and is not empty (nothing is written then);
// IoError when a file cannot be written.
StatusOr<std::vector<std::string>> WritePluginScaffold(std::string_view id,
                                                       const std::string& parent_dir,
                                                       ScaffoldKind kind = ScaffoldKind::kAnalyzer);

}  // namespace th
