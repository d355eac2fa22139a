#include "core/import/kineto/autograd_profiler.h"

#include <string_view>
#include <vector>

namespace th::kineto {

bool MapAutogradProfilerEvents(EventGraph* graph) {
  EventGraph& g = *graph;
  std::vector<bool> cpu_track(g.tracks.size(), false);
  bool found = false;
  for (size_t t = 0; t < g.tracks.size(); ++t) {
    if (g.tracks[t].pid_str == kEmptyString) continue;
    std::string_view pid = g.strings.Get(g.tracks[t].pid_str);
    cpu_track[t] = pid == "CPU functions";
    found |= cpu_track[t] || pid == "CUDA functions";
  }
  if (!found) return false;
  EventColumns& e = g.events;
  for (EventId i = 0; i < e.size(); ++i) {
    if (!cpu_track[e.track[i]] || e.kind[i] != EventKind::kOther || e.cat[i] != kEmptyString)
      continue;
    e.kind[i] = g.strings.Get(e.name[i]).starts_with("ProfilerStep#") ? EventKind::kUserAnnotation
                                                                      : EventKind::kCpuOp;
  }
  return true;
}

}  // namespace th::kineto
