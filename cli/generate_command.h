// `tracehound generate`: writes synthetic multi-rank Kineto traces (th_synth).
#pragma once

#include <CLI/CLI.hpp>

namespace th::synth {

// Registers the `generate` subcommand on `app`. When it runs, the written
// paths go to stdout and *exit_code becomes 0, or 1 with a message on stderr.
void AddGenerateCommand(CLI::App& app, int* exit_code);

}  // namespace th::synth
