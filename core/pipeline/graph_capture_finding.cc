#include "core/pipeline/graph_capture_finding.h"

#include <cstdio>

namespace th {

namespace {

// "1.234 s", "12.345 ms", "200.000 us", "15 ns": as the reports write times.
std::string Seconds(int64_t ns) {
  char b[32];
  const double v = static_cast<double>(ns);
  if (ns >= 1000000000)
    std::snprintf(b, sizeof b, "%.3f s", v / 1e9);
  else if (ns >= 1000000)
    std::snprintf(b, sizeof b, "%.3f ms", v / 1e6);
  else if (ns >= 1000)
    std::snprintf(b, sizeof b, "%.3f us", v / 1e3);
  else
    std::snprintf(b, sizeof b, "%lld ns", static_cast<long long>(ns));
  return b;
}

std::string Count(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

Finding GraphCaptureFinding(const Trace& trace, const GraphCapture& c,
                            const std::vector<std::string>& skipped_by) {
  const std::string api = c.hip ? "HIP" : "CUDA";
  const std::string prefix = c.hip ? "hip" : "cuda";
  Finding f;
  f.plugin = "host";
  f.severity = FindingSeverity::kInfo;
  f.scope.rank = trace.info.rank;
  const std::string rank = "rank " + std::to_string(trace.info.rank);
  f.title = c.dominates() ? rank + " records " + api + " graph capture, not steady-state execution"
                          : rank + " captures " + api + " graphs during " +
                                Seconds(c.last_end - c.first_ts) + " of the trace";
  f.what = Count(c.captured_launches, "launch call", "launch calls") + " from " +
           Seconds(c.first_ts - c.trace_start) + " to " + Seconds(c.last_end - c.trace_start) +
           " into the trace (" + Count(c.begin_calls, "capture begun", "captures begun") + " by " +
           prefix + "StreamBeginCapture, " + std::to_string(c.end_calls) +
           " ended) were captured into " + api + " graphs and never ran in it; " +
           Count(c.instantiations, "graph instantiated", "graphs instantiated") + ", " +
           Count(c.graph_launches, "graph launch", "graph launches") + "; " +
           Count(c.executed_launches, "launch call", "launch calls") + " ran work, " +
           Count(c.kernels, "kernel", "kernels") + " in all.";
  if (c.dominates()) {
    f.what +=
        " Most launches never ran, so this trace shows start-up (an inference server "
        "capturing its graphs), not steady-state execution: GPU utilization, idle time "
        "and overlap would describe work that is not in it.";
  } else {
    f.what += " Figures over the whole trace include the capture window.";
  }
  if (!skipped_by.empty()) {
    f.what += " Skipped this trace:";
    for (size_t i = 0; i < skipped_by.size(); ++i) f.what += (i ? ", " : " ") + skipped_by[i];
    f.what += ".";
  }
  f.suggestion =
      "Profile after warm-up and graph capture (vLLM and SGLang capture at start-up: "
      "start the profiler afterwards, e.g. vLLM's /start_profile); replays then show "
      "as " +
      prefix + "GraphLaunch calls with the kernels they ran.";
  auto ev = [&](const char* name, int64_t v, const char* unit) {
    f.evidence.push_back({name, static_cast<double>(v), unit, NumberKind::kMeasured});
  };
  ev("captured_launches", c.captured_launches, "count");
  ev("executed_launches", c.executed_launches, "count");
  ev("capture_begin_calls", c.begin_calls, "count");
  ev("graphs_instantiated", c.instantiations, "count");
  ev("graph_launches", c.graph_launches, "count");
  ev("kernels", c.kernels, "count");
  ev("capture_start", c.first_ts - c.trace_start, "ns");
  ev("capture_window", c.last_end - c.first_ts, "ns");
  return f;
}

}  // namespace th
