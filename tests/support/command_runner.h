// Runs the tracehound binary as a user would, for the CLI tests.
#pragma once

#include <string>

namespace th::testing {

struct CommandResult {
  int status = -1;
  std::string out;  // stdout and stderr together
};

// `env` is prepended to the command line ("VAR=value ...").
CommandResult Tracehound(const std::string& args, const std::string& env = "");

}  // namespace th::testing
