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

// `cmake --install <this build> --component sdk --prefix prefix`.
CommandResult InstallSdk(const std::string& prefix);

// Configures (Ninja, -Wall -Wextra -Werror, CMAKE_PREFIX_PATH=prefix) and
// builds the CMake project in `source` into `build`. The first failing step.
CommandResult BuildProject(const std::string& source, const std::string& build,
                           const std::string& prefix);

}  // namespace th::sdk_test
