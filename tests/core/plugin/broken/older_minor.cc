// A plugin built against ABI 1.2, before kernel classes, graph capture, info
// findings and skips: plain C ABI, reading only what 1.2 had. A 1.3 host must
// load and run it.
#include <tracehound/plugin_api.h>

#include <cstring>

namespace {

th_status Run(const th_host_api* host, const th_run_input* input, char*, uint64_t) {
  for (uint32_t t = 0; t < input->trace_count; ++t) {
    const th_trace_view* v = input->traces[t];
    const auto* kind = static_cast<const uint8_t*>(v->kind.data);
    double kernels = 0;
    for (uint64_t i = 0; i < v->event_count; ++i) kernels += kind[i] == TH_EVENT_KERNEL;
    th_metric m{};
    m.struct_size = sizeof m;
    m.name = "kernels";
    m.value = kernels;
    m.unit = "count";
    m.scope = {v->rank, -1, -1, -1, -1};
    if (host->publish_metric(host->ctx, &m) != TH_STATUS_OK) return TH_STATUS_ERROR;
  }
  return TH_STATUS_OK;
}

th_plugin_descriptor descriptor;

}  // namespace

extern "C" TH_PLUGIN_EXPORT const th_plugin_descriptor* tracehound_plugin_entry_v1(void) {
  std::memset(&descriptor, 0, sizeof descriptor);
  descriptor.struct_size = sizeof descriptor;
  descriptor.api_major = 1;
  descriptor.api_minor = 2;
  descriptor.kind = TH_KIND_ANALYZER;
  descriptor.id = "older-minor";
  descriptor.version = "1.2.0";
  descriptor.summary = "counts kernels through the ABI 1.2 view";
  descriptor.run = &Run;
  return &descriptor;
}
