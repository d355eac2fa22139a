#include "tests/sdk/sdk_test_support.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>

namespace th::sdk_test {
namespace {

std::string Quote(const std::string& arg) {
  std::string q = "'";
  for (char c : arg) {
    if (c == '\'')
      q += "'\\''";
    else
      q += c;
  }
  return q + "'";
}

}  // namespace

CommandResult Run(const std::vector<std::string>& argv) {
  std::string cmd;
  for (const std::string& a : argv) cmd += Quote(a) + " ";
  cmd += "2>&1";
  CommandResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    r.out = "popen failed: " + cmd;
    return r;
  }
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

CommandResult Tracehound(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {TRACEHOUND_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return Run(argv);
}

bool HasSubcommand(const std::string& name, std::string* help) {
  CommandResult r = Tracehound({name, "--help"});
  *help = r.out;
  size_t usage = r.out.find("Usage:");
  if (r.status != 0 || usage == std::string::npos) return false;
  std::string line = r.out.substr(usage, r.out.find('\n', usage) - usage);
  return line.find(" " + name + " ") != std::string::npos;
}

CommandResult InstallSdk(const std::string& prefix) {
  return Run({TH_CMAKE_COMMAND, "--install", TRACEHOUND_BUILD_DIR, "--component", "sdk", "--prefix",
              prefix});
}

CommandResult BuildProject(const std::string& source, const std::string& build,
                           const std::string& prefix) {
  CommandResult configure =
      Run({TH_CMAKE_COMMAND, "-G", TH_CMAKE_GENERATOR, "-S", source, "-B", build,
           "-DCMAKE_PREFIX_PATH=" + prefix, "-DCMAKE_CXX_COMPILER=" TH_CXX_COMPILER,
           "-DCMAKE_MAKE_PROGRAM=" TH_MAKE_PROGRAM, "-DCMAKE_CXX_FLAGS=-Wall -Wextra -Werror"});
  if (configure.status != 0) return configure;
  return Run({TH_CMAKE_COMMAND, "--build", build});
}

}  // namespace th::sdk_test
