// GraphCapture: whether a trace records CUDA/HIP graph capture rather than
// execution. While a stream is captured (cudaStreamBeginCapture ...
// cudaStreamEndCapture, hipStreamBeginCapture ..., cuStreamBeginCapture ...),
// the launch calls of the capturing thread record work into a graph: the
// runtime events are in the trace, their kernels never run in it. An inference
// server captures its graphs at start-up, so a trace of that phase holds
// launches and almost no GPU work.
#pragma once

#include <cstdint>

#include "core/graph/event_graph.h"

namespace th {

struct GraphCapture {
  int64_t begin_calls = 0;             // *StreamBeginCapture*
  int64_t end_calls = 0;               // *StreamEndCapture*
  int64_t instantiations = 0;          // *GraphInstantiate*
  int64_t graph_launches = 0;          // *GraphLaunch*
  int64_t captured_launches = 0;       // launch calls inside a capture region whose work never ran
  int64_t executed_launches = 0;       // launch calls (graph launches included) whose work ran
  int64_t kernels = 0;                 // kernels that ran in the trace
  int64_t first_ts = 0, last_end = 0;  // first capture region's start, last one's end (ns)
  int64_t trace_start = 0;             // the first event (ns), for offsets; with regions only
  bool hip = false;                    // the capture calls are HIP's

  // Any capture region with a captured launch.
  bool present() const { return captured_launches > 0; }
  // The trace records capture rather than execution: at least as many launch
  // calls were captured (and never ran) as ran.
  bool dominates() const { return present() && captured_launches >= executed_launches; }
};

// One pass over the events. A capture region runs on one host thread from a
// begin call's start to the next end call's end; an end call with no begin
// before it on its thread opens the region at the thread's first event (the
// capture began before the trace did), a begin with no end closes it at the
// trace's last event. A launch call is a runtime/driver event whose name holds
// "LaunchKernel", "LaunchCooperativeKernel", or names an async memcpy/memset
// ("Memcpy"/"Memset" with "Async"); graph launches count as executed when
// their work ran.
GraphCapture DetectGraphCapture(const EventGraph& graph);

}  // namespace th
