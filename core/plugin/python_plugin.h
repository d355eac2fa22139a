// Python plugins on the host side: a plugin class named by a pipeline
// (`python: module:Class` or `python: file.py:Class`) loaded through the
// python-plugins module (python_module.h) into a LoadedPlugin that runs
// through the C ABI as a library's does.
#pragma once

#include <memory>
#include <string>

#include "core/graph/status.h"
#include "core/plugin/plugin_loader.h"

namespace th {

// Loads the module (and, when no interpreter is in the process, libpython)
// on first use. Errors say why: no Python in this build, libpython missing,
// or the import / declaration failure with the Python traceback's last lines.
StatusOr<std::shared_ptr<const LoadedPlugin>> LoadPythonPlugin(const std::string& spec,
                                                               const std::string& base_dir);

}  // namespace th
