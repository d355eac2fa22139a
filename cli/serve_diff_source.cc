#include "cli/serve_diff_source.h"

#include <memory>
#include <mutex>

#include "cli/pipeline_setup.h"
#include "core/diff/diff_runs.h"

namespace th::cli {
namespace {

// The registry, loaded once; sides are serialised (bounds the memory).
struct LoadedRegistry {
  std::mutex mu;
  bool loaded = false;
  Status status;
  PluginRegistry registry;
};

}  // namespace

serve::DiffPluginsSource DefaultDiffPlugins() {
  auto state = std::make_shared<LoadedRegistry>();
  return [state](const TraceSet& traces) -> StatusOr<PluginResults> {
    std::lock_guard lock(state->mu);
    if (!state->loaded) {
      state->loaded = true;
      state->status = LoadRegistry({}, &state->registry);
    }
    if (!state->status.ok()) return state->status;
    return diff::RunDiffPlugins(traces, state->registry);
  };
}

}  // namespace th::cli
