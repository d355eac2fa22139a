// tracehound: the command line. Thin: parses arguments, calls core/.
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <new>

#include "cli/capture_command.h"
#include "cli/diff_command.h"
#include "cli/fleet_command.h"
#include "cli/generate_command.h"
#include "cli/info_command.h"
#include "cli/kernel_classes_command.h"
#include "cli/merge_command.h"
#include "cli/new_plugin_command.h"
#include "cli/pipeline_commands.h"
#include "cli/redact_command.h"
#include "cli/scan_command.h"
#include "cli/serve_command.h"
#include "cli/test_plugin_command.h"

int main(int argc, char** argv) {
  // Columns and chunk buffers above 1 MiB live in their own mappings: freed
  // memory goes back to the system and growth is an mremap, not a copy. (glibc
  // otherwise raises this threshold as blocks are freed and keeps big freed
  // blocks resident in the heap.)
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  CLI::App app{"tracehound: analyse ML profiler traces (PyTorch/Kineto, XProf)"};
  app.set_version_flag("--version", "tracehound 0.1.0");
  app.require_subcommand(1);
  int exit_code = 0;
  th::cli::AddInfoCommand(app, &exit_code);
  th::synth::AddGenerateCommand(app, &exit_code);
  th::cli::AddPipelineCommands(app, &exit_code);
  th::cli::AddPluginsCommand(app, &exit_code);
  th::cli::AddKernelClassesCommand(app, &exit_code);
  th::cli::AddNewPluginCommand(app, &exit_code);
  th::cli::AddTestPluginCommand(app, &exit_code);
  th::cli::AddMergeCommand(app, &exit_code);
  th::cli::AddFleetCommand(app, &exit_code);
  th::cli::AddScanCommand(app, &exit_code);
  th::cli::AddRedactCommand(app, &exit_code);
  th::cli::AddServeCommand(app, &exit_code);
  th::cli::AddDiffCommand(app, &exit_code);
  th::cli::AddCaptureCommand(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  } catch (const std::bad_alloc&) {
    // Outputs are written whole or not at all, so none is half-written here.
    std::fprintf(stderr, "tracehound: out of memory (the system refused an allocation)\n");
    return 2;
  } catch (const std::exception& e) {
    // The system refusing a resource (a thread: oneTBB's "pthread_create has
    // failed" under a tight address-space limit), never a crash.
    std::fprintf(stderr, "tracehound: error: %s\n", e.what());
    return 2;
  }
  return exit_code;
}
