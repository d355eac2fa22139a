// Running a validated Pipeline: load the inputs, run each enabled plugin in
// order, collect the report, write the outputs, decide the exit status.
//
// A plugin that fails is reported (a P1 finding of the host, and its status in
// the report) while the others still run. Exit status: 0; 3 when a finding
// reaches `fail_on`; 4 when a plugin failed (takes precedence over 3);
// bad input or a pipeline error is returned as a Status (the CLI exits 2).
#pragma once

#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/import/trace_loader.h"
#include "core/pipeline/pipeline.h"
#include "core/plugin/plugin_loader.h"
#include "core/report/analysis_report.h"

namespace th {

inline constexpr int kExitFindingAtFailOn = 3;
inline constexpr int kExitPluginFailed = 4;

struct PipelineRun {
  TraceSet traces;
  AnalysisReport report;  // report.traces points into `traces` (do not move apart)
  int exit_code = 0;
};

// `inputs`: replaces the pipeline's inputs when not empty.
StatusOr<std::unique_ptr<PipelineRun>> RunPipeline(const Pipeline& pipeline,
                                                   const PluginRegistry& plugins,
                                                   const std::vector<std::string>& inputs,
                                                   const LoadOptions& load = {});

// Writes every output of the pipeline (terminal to `terminal`, files
// atomically). The first failure stops and is returned.
Status WritePipelineOutputs(const Pipeline& pipeline, const PipelineRun& run,
                            std::ostream& terminal);

}  // namespace th
