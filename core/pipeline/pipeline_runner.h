// Running a validated Pipeline: load the inputs, run the enabled plugins (at
// the same time where their tables allow; results merged in pipeline order),
// collect the report with the time of each phase, write the outputs, decide
// the exit status.
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
  // `baseline:` of the pipeline (empty without one): seen only by plugins
  // that compare input groups; the report describes `traces`.
  TraceSet baseline;
  AnalysisReport report;  // report.traces points into `traces` (do not move apart)
  int exit_code = 0;
};

// `inputs`: replaces the pipeline's inputs when not empty.
StatusOr<std::unique_ptr<PipelineRun>> RunPipeline(const Pipeline& pipeline,
                                                   const PluginRegistry& plugins,
                                                   const std::vector<std::string>& inputs,
                                                   const LoadOptions& load = {});

// The same on traces already loaded: `traces` must outlive the result (its
// report.traces points there; its own `traces` stays empty, and
// report.timing.import_seconds 0).
StatusOr<std::unique_ptr<PipelineRun>> RunPipelineOn(const Pipeline& pipeline,
                                                     const PluginRegistry& plugins,
                                                     const TraceSet& traces);

// Which findings output `o` shows (its min_severity and max_findings).
FindingFilter OutputFilter(const OutputSpec& o);

// Writes every output of the pipeline: the files in pipeline order
// (atomically), each listing the seconds of those written before it
// (run.report.timing.outputs), then the terminal summary to `terminal`. The
// first failure stops and is returned.
Status WritePipelineOutputs(const Pipeline& pipeline, PipelineRun& run, std::ostream& terminal);

}  // namespace th
