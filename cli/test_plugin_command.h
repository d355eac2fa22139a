// `tracehound test-plugin LIB.so --trace FILE [--golden G.json] [--update]`:
// runs one plugin library through the real host on a real trace with its
// default options and compares what it reports (core/report/
// plugin_results_json.h) with a golden file.
#pragma once

#include <CLI/CLI.hpp>

namespace th::cli {

// Registers the `test-plugin` subcommand on `app`. Exit codes: 0 when the
// results match the golden file (or were written with --update, or printed
// to stdout without --golden); 1 with a diff summary on stderr when they
// differ, or when the plugin fails; 2 for bad input (a library that does not
// load, a trace that does not import, a golden file that cannot be read,
// --update without --golden).
void AddTestPluginCommand(CLI::App& app, int* exit_code);

}  // namespace th::cli
