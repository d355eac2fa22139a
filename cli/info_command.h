// `tracehound info INPUT...`: what is in a trace (or a set of rank traces).
#pragma once

#include <CLI/CLI.hpp>

namespace th::cli {

void AddInfoCommand(CLI::App& app, int* exit_code);

}  // namespace th::cli
