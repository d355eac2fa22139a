// For the SDK tests: running commands, installing the SDK component of this
// build to a temporary prefix, and building a CMake project against it.
#pragma once

#include <string>
#include <vector>

namespace th::sdk_test {

struct CommandResult {
  int status = -1;  // exit status, -1 when killed by a signal
  std::string out;  // stdout and stderr together
};

// Runs argv (each argument shell-quoted) with stdout and stderr captured.
CommandResult Run(const std::vector<std::string>& argv);
// The tracehound binary of this build with `args`.
CommandResult Tracehound(const std::vector<std::string>& args);

// Whether this build's tracehound has subcommand `name`: `name --help` exits 0
// with that subcommand's usage (an unknown one prints the top-level help).
// `help` receives the output.
bool HasSubcommand(const std::string& name, std::string* help);

// `cmake --install <this build> --component sdk --prefix prefix`.
CommandResult InstallSdk(const std::string& prefix);

// Configures the CMake project in `source` into `build` with this build's
// generator, make program and compiler (CMAKE_PREFIX_PATH=prefix, warnings as
// errors), then builds it. The result of the first step that fails, or of the
// build.
CommandResult BuildProject(const std::string& source, const std::string& build,
                           const std::string& prefix);

}  // namespace th::sdk_test
