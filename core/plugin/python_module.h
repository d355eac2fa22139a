// The python-plugins module: the embedded CPython that Python plugins run in,
// handed over as one table so that only a process whose pipeline names a
// Python plugin maps libpython. The module leaves libpython's symbols
// undefined: they resolve against the interpreter already in the process
// (`import tracehound`, Debian's statically linked python3) or the
// libpython the host loads first (python_plugin.cc).
#pragma once

#include <string>

struct th_plugin_descriptor;

namespace th {

struct PythonPluginApi {
  // Imports the plugin class `spec` names ("module:Class" or "file.py:Class";
  // the module's folder `base_dir` is put on sys.path) through
  // tracehound.plugin, found on sys.path or else in `package_dir`. Starts the
  // interpreter if none runs. On success *descriptor is the class's C ABI
  // descriptor and *handle keeps it alive (release it); false with *error,
  // the Python traceback's last lines.
  bool (*load)(const std::string& spec, const std::string& base_dir, const std::string& package_dir,
               const th_plugin_descriptor** descriptor, void** handle, std::string* error);
  void (*release)(void* handle);
};

}  // namespace th

#define TH_PYTHON_MODULE_ENTRY "th_python_module"
