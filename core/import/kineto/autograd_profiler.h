// The autograd profiler's Chrome trace (PyTorch built without Kineto, e.g.
// Debian's 1.13): a bare JSON array of events, no traceEvents object.
//
// Shape: every CPU event is {"name", "ph": "X", "ts", "dur", "tid", "pid":
// "CPU functions", "args": {}}, with no cat; ts are integer microseconds from
// the profiler's start. GPU work, when the profiler ran with use_cuda, is on
// pid "CUDA functions" joined by s/f flow events. There is no
// distributedInfo, deviceProperties, baseTimeNanoseconds, correlation id,
// memory event or shapes: what is missing is said in the trust table
// (autograd_profiler_trace), never filled in. tracehound.capture writes a run
// manifest beside such a trace with its rank, host and start time.
//
// Mapping (Finish, before anything is derived): on "CPU functions" tracks an
// event without cat named "ProfilerStep#<n>" is a user annotation, any other
// a cpu_op. "CUDA functions" events keep kind other (not mapped to kernels:
// no launch correlation, grid or stream).
#pragma once

#include "core/graph/event_graph.h"

namespace th::kineto {

// True when the graph has a "CPU functions" or "CUDA functions" track (its
// events are then mapped as above).
bool MapAutogradProfilerEvents(EventGraph* graph);

}  // namespace th::kineto
