// A plugin built against a minor version newer than the host's: refused.
#include <tracehound/plugin_api.h>

#include <cstring>

namespace {

th_status Run(const th_host_api*, const th_run_input*, char*, uint64_t) { return TH_STATUS_ERROR; }

th_plugin_descriptor descriptor;

}  // namespace

extern "C" TH_PLUGIN_EXPORT const th_plugin_descriptor* tracehound_plugin_entry_v1(void) {
  std::memset(&descriptor, 0, sizeof descriptor);
  descriptor.struct_size = sizeof descriptor;
  descriptor.api_major = TH_PLUGIN_API_MAJOR;
  descriptor.api_minor = TH_PLUGIN_API_MINOR + 1;
  descriptor.kind = TH_KIND_ANALYZER;
  descriptor.id = "next-minor";
  descriptor.version = "1.0.0";
  descriptor.summary = "a plugin of a newer minor ABI";
  descriptor.run = &Run;
  return &descriptor;
}
