// `tracehound serve INPUT...`: the trace viewer's server (docs/serve.md).
#pragma once

#include <CLI/CLI.hpp>

namespace th::cli {

void AddServeCommand(CLI::App& app, int* exit_code);

}  // namespace th::cli
