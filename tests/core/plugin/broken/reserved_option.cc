// A plugin declaring an option named `severity`: the pipeline reserves that
// key (and `enabled`) for every plugin, so such an option could never be set.
#include <tracehound/plugin_api.h>

#include <cstring>

namespace {

th_status Run(const th_host_api*, const th_run_input*, char*, uint64_t) { return TH_STATUS_OK; }

th_option_decl options[1];
th_plugin_descriptor descriptor;

}  // namespace

extern "C" TH_PLUGIN_EXPORT const th_plugin_descriptor* tracehound_plugin_entry_v1(void) {
  std::memset(options, 0, sizeof options);
  options[0].name = "severity";
  options[0].doc = "severity of the finding";
  options[0].type = TH_TYPE_STRING;
  options[0].default_value.str = "P1";
  std::memset(&descriptor, 0, sizeof descriptor);
  descriptor.struct_size = sizeof descriptor;
  descriptor.api_major = TH_PLUGIN_API_MAJOR;
  descriptor.api_minor = TH_PLUGIN_API_MINOR;
  descriptor.kind = TH_KIND_DETECTOR;
  descriptor.id = "reserved-option";
  descriptor.version = "1.0.0";
  descriptor.summary = "declares an option the pipeline reserves";
  descriptor.options = options;
  descriptor.option_count = 1;
  descriptor.run = &Run;
  return &descriptor;
}
