#include "cli/serve_findings_source.h"

#include <memory>
#include <mutex>

#include "cli/pipeline_setup.h"
#include "core/pipeline/pipeline_runner.h"

namespace th::cli {
namespace {

// The pipeline and its plugins, loaded once; runs are serialised (a run of
// several ranks imports its traces again: one at a time bounds the memory).
struct LoadedPipeline {
  std::mutex mu;
  bool loaded = false;
  Status status;
  PluginRegistry registry;
  std::unique_ptr<Pipeline> pipeline;
};

}  // namespace

serve::FindingsSource DefaultPipelineFindings() {
  auto state = std::make_shared<LoadedPipeline>();
  return [state](const std::string& input,
                 const TraceSet* loaded) -> StatusOr<std::vector<Finding>> {
    std::lock_guard lock(state->mu);
    if (!state->loaded) {
      state->loaded = true;
      auto pipeline = LoadPipelineAndPlugins(ConfigPath("default.yaml"), {}, {}, &state->registry);
      if (pipeline.ok())
        state->pipeline = std::make_unique<Pipeline>(std::move(*pipeline));
      else
        state->status = pipeline.status();
    }
    if (!state->pipeline) return state->status;
    auto run = loaded ? RunPipelineOn(*state->pipeline, state->registry, *loaded)
                      : RunPipeline(*state->pipeline, state->registry, {input});
    if (!run.ok()) return run.status();
    return std::move((*run)->report.results.findings);
  };
}

}  // namespace th::cli
