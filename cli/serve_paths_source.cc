#include "cli/serve_paths_source.h"

#include <memory>
#include <mutex>

#include "cli/pipeline_setup.h"
#include "core/import/trace_loader.h"

namespace th::cli {
namespace {

struct LoadedRegistry {
  std::mutex mu;
  bool loaded = false;
  Status status;
  PluginRegistry registry;
};

}  // namespace

serve::PathsSource DefaultPathsPlugins() {
  auto state = std::make_shared<LoadedRegistry>();
  return [state](const std::string& input, const TraceSet* loaded) -> StatusOr<PluginResults> {
    std::lock_guard lock(state->mu);
    if (!state->loaded) {
      state->loaded = true;
      state->status = LoadRegistry({}, &state->registry);
    }
    if (!state->status.ok()) return state->status;
    if (loaded) return serve::RunPathsPlugins(*loaded, state->registry);
    auto set = LoadTraceSet({input}, LoadOptions{});
    if (!set.ok()) return set.status();
    return serve::RunPathsPlugins(*set, state->registry);
  };
}

}  // namespace th::cli
