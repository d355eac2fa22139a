// Runs the tracehound binary as a user would (and other commands), for the CLI tests.
#pragma once

#include <string>

namespace th::testing {

struct CommandResult {
  int status = -1;
  std::string out;  // stdout and stderr together
};

// Runs `command` with /bin/sh, stderr merged into stdout; status -1 when it
// did not exit normally.
CommandResult Shell(const std::string& command);

// `env` is prepended to the command line ("VAR=value ...").
CommandResult Tracehound(const std::string& args, const std::string& env = "");

}  // namespace th::testing
