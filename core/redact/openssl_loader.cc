#include "core/redact/openssl_module.h"
#include "modules/module_loader.h"

namespace th::redact {

const OpenSslApi* LoadOpenSsl(std::string* error) {
  static std::string load_error;
  static const OpenSslApi* const api = [] {
    void* entry = modules::LoadModuleEntry("openssl", TH_OPENSSL_MODULE_ENTRY,
                                           "needed for pseudonyms (HMAC-SHA256)", &load_error);
    return entry ? reinterpret_cast<const OpenSslApi* (*)()>(entry)() : nullptr;
  }();
  if (!api && error) *error = load_error;
  return api;
}

}  // namespace th::redact
