// `tracehound kernel-classes [--pipeline P] [--json]`: the kernel class table
// (built-in rules, and a pipeline's kernel_classes: first), with the source
// of every rule.
#pragma once

#include <CLI/CLI.hpp>

namespace th::cli {

void AddKernelClassesCommand(CLI::App& app, int* exit_code);

}  // namespace th::cli
