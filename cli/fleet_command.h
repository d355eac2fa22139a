// `tracehound fleet report --db URL`: what a results database says across
// runs (core/scan/fleet_report.h), as Markdown, JSON or HTML.
#pragma once

#include <CLI/CLI.hpp>

namespace th::cli {

void AddFleetCommand(CLI::App& app, int* exit_code);

}  // namespace th::cli
