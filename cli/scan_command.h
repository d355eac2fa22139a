// `tracehound scan INPUT... --pipeline P [--db URL]`: a pipeline over a fleet
// of runs, rows into a results database (core/scan/scanner.h).
#pragma once

#include <CLI/CLI.hpp>

namespace th::cli {

void AddScanCommand(CLI::App& app, int* exit_code);

}  // namespace th::cli
