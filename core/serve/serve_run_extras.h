// RunExtras: what the viewer's later lanes need from a ready run beyond its
// level-of-detail index (the flow index, the counter series, the pipeline's findings, the critical
// path and roofline), each built
// on first use and kept for the run's life. Thread-safe: the first request that needs a part builds
// it while others wait; later ones only read.
#pragma once

#include <memory>
#include <mutex>

#include "core/serve/serve_counters.h"
#include "core/serve/serve_findings.h"
#include "core/serve/serve_flows.h"
#include "core/serve/serve_paths.h"
#include "core/serve/serve_run.h"

namespace th::serve {

class RunExtras {
 public:
  // `run` must be ready.
  const FlowIndex& Flows(const ServeRun& run);
  const CounterIndex& Counters(const ServeRun& run);
  FindingsTask& findings() { return findings_; }
  PathsTask& paths() { return paths_; }

 private:
  std::once_flag counters_once_;
  std::unique_ptr<CounterIndex> counters_;
  std::once_flag flows_once_;
  std::unique_ptr<FlowIndex> flows_;
  PathsTask paths_;        // its destructor waits for the plugins
  FindingsTask findings_;  // last: its destructor waits for the pipeline
};

}  // namespace th::serve
