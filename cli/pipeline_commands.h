// `tracehound run | validate | analyze` and `tracehound plugins list |
// describe | schema`: pipelines and the plugins they run.
#pragma once

#include <CLI/CLI.hpp>

namespace th::cli {

void AddPipelineCommands(CLI::App& app, int* exit_code);
void AddPluginsCommand(CLI::App& app, int* exit_code);

}  // namespace th::cli
