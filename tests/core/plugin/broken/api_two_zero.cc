// A plugin built against ABI 2.0, before input groups: its descriptor ends
// where 2.0's did and the field that is `flags` in 2.1 was `reserved` (set
// here, as an old build could leave it). The 2.1 host must load it, ignore
// that field, and run it with the views it always had.
#include <tracehound/plugin_api.h>

#include <cstring>
#include <string>

namespace {

std::string title;

th_status Run(const th_host_api* host, const th_run_input* in, char*, uint64_t) {
  title = "saw " + std::to_string(in->trace_count) + " trace(s), rank " +
          std::to_string(in->trace_count ? in->traces[0]->rank : -1);
  th_finding f;
  std::memset(&f, 0, sizeof f);
  f.struct_size = sizeof f;
  f.severity = TH_INFO;
  f.title = title.c_str();
  f.scope = {-1, -1, -1, -1, -1};
  return host->add_finding(host->ctx, &f);
}

th_plugin_descriptor descriptor;

}  // namespace

extern "C" TH_PLUGIN_EXPORT const th_plugin_descriptor* tracehound_plugin_entry_v1(void) {
  std::memset(&descriptor, 0, sizeof descriptor);
  descriptor.struct_size = sizeof descriptor;
  descriptor.api_major = 2;
  descriptor.api_minor = 0;
  descriptor.kind = TH_KIND_ANALYZER;
  descriptor.id = "api-two-zero";
  descriptor.version = "2.0.0";
  descriptor.summary = "a plugin of the 2.0 ABI";
  descriptor.flags = 1;  // `reserved` in 2.0: not a request for input groups
  descriptor.run = &Run;
  return &descriptor;
}
