// tracehound: the command line. Thin: parses arguments, calls core/.
#include <CLI/CLI.hpp>

#include "cli/generate_command.h"
#include "cli/info_command.h"

int main(int argc, char** argv) {
  CLI::App app{"tracehound: analyse ML profiler traces (PyTorch/Kineto, XProf)"};
  app.set_version_flag("--version", "tracehound 0.1.0");
  app.require_subcommand(1);
  int exit_code = 0;
  th::cli::AddInfoCommand(app, &exit_code);
  th::synth::AddGenerateCommand(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return exit_code;
}
