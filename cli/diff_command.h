// `tracehound diff A B`: compares two runs (each a file, a folder of rank
// files, a glob or an archive) on three levels — aggregate, structure and
// step-time attribution (docs/diff.md).
#pragma once

#include <CLI/CLI.hpp>

namespace th::cli {

void AddDiffCommand(CLI::App& app, int* exit_code);

}  // namespace th::cli
