#include "core/import/remote/object_store.h"
#include "modules/module_loader.h"

namespace th::remote {

const RemoteModuleApi* LoadRemoteModule(std::string* error) {
  void* entry =
      modules::LoadModuleEntry("remote", TH_REMOTE_MODULE_ENTRY,
                               "needed for s3://, gs://, az:// and https:// inputs", error);
  return entry ? reinterpret_cast<const RemoteModuleApi* (*)()>(entry)() : nullptr;
}

}  // namespace th::remote
