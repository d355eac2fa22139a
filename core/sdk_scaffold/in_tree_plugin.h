// The built-in plugin written by `tracehound new-plugin ID --in-tree`: the
// plugin's folder under plugins/ (source, CMakeLists.txt, README.md), its test
// under tests/plugins/, and its row in plugins/README.md's index, inserted in
// sorted order (tests/plugins/plugin_folders_test.cc checks all three).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/graph/status.h"

namespace th {

enum class InTreePluginKind { kAnalyzer, kDetector };

// The written sources are clang-format clean for ids up to about 25
// characters. Writes the plugin `id` into the source tree at `source_dir` and returns the
// paths written or changed. InvalidInput for a bad id, a source_dir without
// plugins/README.md's index, or when plugins/ID or tests/plugins/ID exists
// (nothing is written then); IoError when a file cannot be written.
StatusOr<std::vector<std::string>> WriteInTreePlugin(std::string_view id, InTreePluginKind kind,
                                                     const std::string& source_dir);

// `index` (plugins/README.md) with the row of `id` inserted among the index
// rows in sorted order; InvalidInput when it has no index table or already
// lists `id`.
StatusOr<std::string> InsertIndexRow(const std::string& index, std::string_view id,
                                     InTreePluginKind kind, std::string_view what);

}  // namespace th
