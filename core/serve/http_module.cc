#include "core/serve/http_module.h"

#include "modules/module_loader.h"

namespace th::serve {

const HttpModuleApi* LoadHttpModule(std::string* error) {
  static std::string load_error;
  static const HttpModuleApi* const api = [] {
    void* entry = modules::LoadModuleEntry("serve-http", TH_SERVE_HTTP_MODULE_ENTRY,
                                           "needed for `tracehound serve`", &load_error);
    return entry ? reinterpret_cast<const HttpModuleApi* (*)()>(entry)() : nullptr;
  }();
  if (!api && error) *error = load_error;
  return api;
}

}  // namespace th::serve
