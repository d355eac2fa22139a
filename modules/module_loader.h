// On-demand modules: shared libraries built with tracehound that hold the code
// needing a heavy or optional library (a GPU runtime, libpq, Open MPI,
// libarchive), loaded with dlopen the first time a command needs them, so that
// commands which do not need them never map those libraries.
//
// Contract:
// - A module NAME is the file NAME.so in one of ModuleSearchPath()'s folders;
//   the first folder that holds it wins.
// - A module is loaded once per process and never unloaded: objects it made
//   may live until exit.
// - Failure never throws or exits: LoadModuleEntry returns nullptr and says
//   which module failed, what it is needed for, and why (dlopen's message
//   names the missing library, e.g. "libpq.so.5: cannot open shared object
//   file"), or where it was looked for when no folder holds it.
// - Includes nothing of core/ or kernels/: both use it.
#pragma once

#include <string>
#include <vector>

namespace th::modules {

// Folders searched for modules, in order: each entry of TRACEHOUND_MODULE_PATH
// (colon-separated), <executable's folder>/../lib/tracehound/modules (the
// layout of both the build tree and an installed tracehound), then the build
// tree's module folder (for test programs built elsewhere in the tree).
std::vector<std::string> ModuleSearchPath();

// The address of symbol `entry` in module `name`, loading it on first use;
// nullptr with *error set when it cannot be loaded. `purpose` completes the
// message ("needed for postgresql:// databases").
void* LoadModuleEntry(const std::string& name, const char* entry, const std::string& purpose,
                      std::string* error);

}  // namespace th::modules
