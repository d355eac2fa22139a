// A plugin built against ABI 1.3, when a trace view was one flat struct of
// columns: the 2.x host must refuse it before calling anything but the entry.
#include <tracehound/plugin_api.h>

#include <cstring>

namespace {

th_status Run(const th_host_api*, const th_run_input*, char*, uint64_t) { return TH_STATUS_ERROR; }

th_plugin_descriptor descriptor;

}  // namespace

extern "C" TH_PLUGIN_EXPORT const th_plugin_descriptor* tracehound_plugin_entry_v1(void) {
  std::memset(&descriptor, 0, sizeof descriptor);
  descriptor.struct_size = sizeof descriptor;
  descriptor.api_major = 1;
  descriptor.api_minor = 3;
  descriptor.kind = TH_KIND_ANALYZER;
  descriptor.id = "api-one";
  descriptor.version = "1.3.0";
  descriptor.summary = "a plugin of the 1.x ABI";
  descriptor.run = &Run;
  return &descriptor;
}
