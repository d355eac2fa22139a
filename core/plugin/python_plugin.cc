#include "core/plugin/python_plugin.h"

#include <dlfcn.h>

#include <mutex>

#include "core/plugin/python_module.h"
#include "modules/module_loader.h"

namespace th {

namespace {

// The module's table, or nullptr with *error; loaded once per process.
const PythonPluginApi* Api(std::string* error) {
  static std::once_flag once;
  static const PythonPluginApi* api = nullptr;
  static std::string failure;
  std::call_once(once, [] {
#ifdef TRACEHOUND_LIBPYTHON
    // The interpreter's symbols: already global in a Python process, else
    // from libpython, loaded global for the module to bind to.
    if (!dlsym(RTLD_DEFAULT, "Py_IsInitialized") &&
        !dlopen(TRACEHOUND_LIBPYTHON, RTLD_NOW | RTLD_GLOBAL)) {
      const char* why = dlerror();
      failure = std::string("Python plugins need " TRACEHOUND_LIBPYTHON ": ") +
                (why ? why : "cannot be loaded");
      return;
    }
    void* entry = modules::LoadModuleEntry("python-plugins", TH_PYTHON_MODULE_ENTRY,
                                           "needed for Python plugins", &failure);
    if (entry) api = reinterpret_cast<const PythonPluginApi* (*)()>(entry)();
#else
    failure = "this tracehound was built without Python (TRACEHOUND_PYTHON=OFF or no pybind11): "
              "Python plugins cannot run";
#endif
  });
  if (!api) *error = failure;
  return api;
}

}  // namespace

StatusOr<std::shared_ptr<const LoadedPlugin>> LoadPythonPlugin(const std::string& spec,
                                                               const std::string& base_dir) {
  std::string error;
  const PythonPluginApi* api = Api(&error);
  if (!api) return InvalidInput(error);
  const th_plugin_descriptor* descriptor = nullptr;
  void* handle = nullptr;
#ifdef TRACEHOUND_BUILD_PYTHON_DIR
  const std::string package_dir = TRACEHOUND_BUILD_PYTHON_DIR;
#else
  const std::string package_dir;
#endif
  if (!api->load(spec, base_dir, package_dir, &descriptor, &handle, &error))
    return InvalidInput(error);
  std::shared_ptr<void> owner(handle, [api](void* h) { api->release(h); });
  return AdoptPluginDescriptor(descriptor, std::move(owner), "python:" + spec);
}

}  // namespace th
