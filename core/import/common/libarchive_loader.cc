#include "core/import/common/libarchive_module.h"
#include "modules/module_loader.h"

namespace th {

const LibArchiveApi* LoadLibArchive(std::string* error) {
  void* entry = modules::LoadModuleEntry("archive", TH_LIBARCHIVE_MODULE_ENTRY,
                                         "needed for .tar, .tar.gz and .zip archives", error);
  return entry ? reinterpret_cast<const LibArchiveApi* (*)()>(entry)() : nullptr;
}

}  // namespace th
