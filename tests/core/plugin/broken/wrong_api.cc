// A plugin built against a future major version of the ABI.
#include <tracehound/plugin_api.h>

static th_plugin_descriptor descriptor;

extern "C" TH_PLUGIN_EXPORT const th_plugin_descriptor* tracehound_plugin_entry_v1(void) {
  descriptor.struct_size = sizeof descriptor;
  descriptor.api_major = TH_PLUGIN_API_MAJOR + 1;
  descriptor.api_minor = 0;
  descriptor.id = "from-the-future";
  descriptor.version = "9.0.0";
  return &descriptor;
}
