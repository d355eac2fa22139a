// `tracehound new-plugin ID [--dir D] [--kind analyzer|detector]`: writes an
// out-of-tree plugin skeleton (core/sdk_scaffold/plugin_scaffold.h) to D/ID/.
#pragma once

#include <CLI/CLI.hpp>

namespace th::cli {

// Registers the `new-plugin` subcommand on `app`. When it runs, the written
// paths go to stdout and *exit_code becomes 0; 2 with a message on stderr for
// an id that is not kebab-case, a kind that is neither analyzer nor detector,
// or a target directory that exists and is not empty; 1 when a file cannot be
// written.
void AddNewPluginCommand(CLI::App& app, int* exit_code);

}  // namespace th::cli
