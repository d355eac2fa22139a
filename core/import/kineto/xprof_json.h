// XProf / JAX JSON traces (`<host>.trace.json.gz`, formats.md §2.11) through
// the Kineto importer: the same reader, chunk parser and graph builder, with
// their own mapping. TraceInfo::format is "xprof_json".
//
// Detection, before the first chunk is parsed: the top-level keys before
// traceEvents are exactly displayTimeUnit "ns" and metadata {"highres-ticks":
// true} (what TSL writes), or the first process_name metadata events name
// XProf planes ("/device:…", "/host:…"; perfetto_trace.json.gz drops metadata).
//
// Mapping. Every args value is a string.
// - pid >= 701 (/host:CPU is 701): host slice, cat "host", kind cpu_op; with
//   args.correlation_id it is the runtime call that launched device work (kind
//   runtime, correlation = the id).
// - pid 1..700 (device plane = 1 + plane id): cat "device", kind other, until
//   MapXprofDeviceEvents (GraphBuilder::Finish) reads the process and thread
//   names: on a /device:GPU: plane a "Stream #…" thread holds kernels, memcpy
//   or memset (the thread name says Memcpy/Memset, or the event name starts
//   with it); on other device planes (TPU) the "XLA Ops" thread holds device
//   ops (kind kernel). Those get cat "kernel" and a gpu_args row with device =
//   pid - 1 and stream = tid. Same kinds and categories as the XSpace importer.
// - EventGraph::xla_labels, one row per event with any of hlo_op, hlo_module,
//   program_id, name (else tf_op unless it is only "XlaModule:"), source,
//   group_id. A TPU device op is its own hlo_op; its hlo_module and program_id
//   come from the "XLA Modules" event ("<module>(<program id>)") around it on
//   the same device (the file drops program_id).
// - Times: µs text → ns, sub-ns digits rounded half away from zero (as the
//   XSpace importer rounds picoseconds). The array's trailing {} is skipped.
//   No flows and no cat in these files.
// - Defects: an integer argument that is not an integer is counted and ignored.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/event_graph.h"
#include "core/import/kineto/parsed_chunk.h"

namespace th::kineto {

inline constexpr int64_t kXprofHostPid = 701;  // kHostThreadsDeviceId: 500 + 200 + 1
inline constexpr int64_t kXprofMaxDevicePid = 700;

// The top-level values read before traceEvents (raw JSON by key) are TSL's.
bool IsXprofTopLevel(const std::map<std::string, std::string>& values);

// The first chunk's text names XProf planes in its process_name events.
bool HasXprofProcessNames(std::string_view first_chunk);

// "jit_f(12190760917235803885)" → "jit_f" and the number (uint64 bits as
// int64). False when the name has no "(<digits>)" suffix.
bool SplitXlaModuleName(std::string_view s, std::string_view* module, int64_t* program_id);

// Phase 2 of an XProf import (after the tracks exist, before launches are
// linked): device-plane events get their kinds from the plane and thread
// names, GPU-activity rows, and TPU device ops their labels (see above).
void MapXprofDeviceEvents(const std::vector<NameRecord>& names, EventGraph* graph);

}  // namespace th::kineto
