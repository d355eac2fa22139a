#include "core/serve/serve_run_extras.h"

namespace th::serve {

const FlowIndex& RunExtras::Flows(const ServeRun& run) {
  std::call_once(flows_once_, [&] { flows_ = std::make_unique<FlowIndex>(run); });
  return *flows_;
}

const CounterIndex& RunExtras::Counters(const ServeRun& run) {
  std::call_once(counters_once_, [&] { counters_ = std::make_unique<CounterIndex>(run); });
  return *counters_;
}

}  // namespace th::serve
