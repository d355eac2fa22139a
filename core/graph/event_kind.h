// EventKind: what an event is, decided once at import from its category
// (normalised: lower-cased, legacy names mapped), phase and name.
#pragma once

#include <cstdint>
#include <string_view>

namespace th {

enum class EventKind : uint8_t {
  kOther = 0,
  kCpuOp,              // cpu_op (legacy "Operator")
  kUserAnnotation,     // user_annotation (ProfilerStep#N, record_function)
  kGpuUserAnnotation,  // gpu_user_annotation
  kPythonFunction,     // python_function
  kRuntime,            // cuda_runtime (legacy "Runtime"), hip runtime, xpu/privateuse1 runtime
  kDriver,             // cuda_driver, xpu/privateuse1 driver
  kKernel,             // kernel (legacy "Kernel")
  kMemcpy,             // gpu_memcpy (legacy "Memcpy")
  kMemset,             // gpu_memset (legacy "Memset")
  kGpuSync,            // cuda_sync
  kGpuEvent,           // cuda_event
  kMemory,             // "[memory]" allocator instant
  kOutOfMemory,        // "[OutOfMemory]"
  kInstant,            // any other i/I event
  kFlow,               // s/t/f (ac2g, fwdbwd, legacy async*)
  kMetadata,           // M
  kCounter,            // C
  kOverhead,           // overhead
  kTraceSpan,          // Trace
  kMtiaDevice,         // mtia_ccp_events (device activity of MTIA)
  kMtiaRuntime,        // mtia_runtime
  kCount
};

std::string_view EventKindName(EventKind k);

// True for work that runs on an accelerator stream (kernels, copies, sets).
inline bool IsGpuActivity(EventKind k) {
  return k == EventKind::kKernel || k == EventKind::kMemcpy || k == EventKind::kMemset;
}
inline bool IsLaunch(EventKind k) { return k == EventKind::kRuntime || k == EventKind::kDriver; }

// Maps a category string (exact spelling from the trace) to a kind; phase and
// name refine it (memory events, flows, metadata, counters, instants).
EventKind ClassifyCategory(std::string_view cat);

}  // namespace th
