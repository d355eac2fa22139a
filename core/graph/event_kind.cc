#include "core/graph/event_kind.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace th {

std::string_view EventKindName(EventKind k) {
  static constexpr std::array<std::string_view, static_cast<size_t>(EventKind::kCount)> kNames = {
      "other",           "cpu_op",        "user_annotation", "gpu_user_annotation",
      "python_function", "runtime",       "driver",          "kernel",
      "memcpy",          "memset",        "gpu_sync",        "gpu_event",
      "memory",          "out_of_memory", "instant",         "flow",
      "metadata",        "counter",       "overhead",        "trace_span",
      "mtia_device",     "mtia_runtime"};
  auto i = static_cast<size_t>(k);
  return i < kNames.size() ? kNames[i] : "other";
}

EventKind ClassifyCategory(std::string_view cat) {
  std::string c(cat);
  std::transform(c.begin(), c.end(), c.begin(), [](unsigned char ch) { return std::tolower(ch); });
  struct Entry {
    std::string_view cat;
    EventKind kind;
  };
  static constexpr Entry kTable[] = {
      {"cpu_op", EventKind::kCpuOp},
      {"operator", EventKind::kCpuOp},
      {"user_annotation", EventKind::kUserAnnotation},
      {"gpu_user_annotation", EventKind::kGpuUserAnnotation},
      {"python_function", EventKind::kPythonFunction},
      {"python", EventKind::kPythonFunction},
      {"cuda_runtime", EventKind::kRuntime},
      {"runtime", EventKind::kRuntime},
      {"xpu_runtime", EventKind::kRuntime},
      {"privateuse1_runtime", EventKind::kRuntime},
      {"cuda_driver", EventKind::kDriver},
      {"driver", EventKind::kDriver},
      {"xpu_driver", EventKind::kDriver},
      {"privateuse1_driver", EventKind::kDriver},
      {"kernel", EventKind::kKernel},
      {"gpu_memcpy", EventKind::kMemcpy},
      {"memcpy", EventKind::kMemcpy},
      {"gpu_memset", EventKind::kMemset},
      {"memset", EventKind::kMemset},
      {"cuda_sync", EventKind::kGpuSync},
      {"xpu_sync", EventKind::kGpuSync},
      {"cuda_event", EventKind::kGpuEvent},
      {"overhead", EventKind::kOverhead},
      {"trace", EventKind::kTraceSpan},
      {"mtia_ccp_events", EventKind::kMtiaDevice},
      {"mtia_runtime", EventKind::kMtiaRuntime},
      {"cpu_instant_event", EventKind::kInstant},
  };
  for (const auto& e : kTable)
    if (e.cat == c) return e.kind;
  return EventKind::kOther;
}

}  // namespace th
