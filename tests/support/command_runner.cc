#include "tests/support/command_runner.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>

namespace th::testing {

CommandResult Shell(const std::string& command) {
  std::string cmd = command + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  CommandResult r;
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

CommandResult Tracehound(const std::string& args, const std::string& env) {
  return Shell(env + " " + std::string(TRACEHOUND_BINARY) + " " + args);
}

}  // namespace th::testing
