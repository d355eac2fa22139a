// The trace formats shipped with tracehound, in the order their sniffers are
// asked. A new format: its folder under core/import/ and one line here.
#include "core/import/importer_registry.h"
#include "core/import/kineto/chrome_json_format.h"
#include "core/import/xspace/xspace_format.h"

namespace th {

void RegisterBuiltinFormats(ImporterRegistry* registry) {
  (void)registry->Register(kineto::MakeChromeJsonImporter());
  (void)registry->Register(xspace::MakeXSpaceImporter());
}

}  // namespace th
