// `tracehound merge OUT IN...`: joins results databases (shards of a scheduler
// array, per-rank files of an MPI scan) into OUT (core/scan/database_merge.h).
#pragma once

#include <CLI/CLI.hpp>

namespace th::cli {

void AddMergeCommand(CLI::App& app, int* exit_code);

}  // namespace th::cli
