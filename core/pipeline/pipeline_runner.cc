#include "core/pipeline/pipeline_runner.h"

#include <tbb/global_control.h>

#include <algorithm>
#include <chrono>
#include <sstream>

#include "core/pipeline/graph_capture_finding.h"
#include "core/plugin/host_facts.h"
#include "core/plugin/plugin_host.h"
#include "core/report/annotated_trace.h"
#include "core/report/html_report.h"
#include "core/report/output_file.h"

namespace th {

StatusOr<std::unique_ptr<PipelineRun>> RunPipeline(const Pipeline& pipeline,
                                                   const PluginRegistry& plugins,
                                                   const std::vector<std::string>& inputs,
                                                   const LoadOptions& load) {
  const std::vector<std::string>& use = inputs.empty() ? pipeline.inputs : inputs;
  if (use.empty()) {
    return InvalidInput(pipeline.source +
                        ": no inputs: name trace files on the command line or "
                        "under 'inputs:' in the pipeline");
  }
  kernels::BackendChoice backend = kernels::BackendChoice::kAuto;
  if (!kernels::ParseBackendChoice(pipeline.backend, &backend)) {
    return InvalidInput(pipeline.source + ": unknown backend '" + pipeline.backend + "'");
  }
  if (backend != kernels::BackendChoice::kAuto && backend != kernels::BackendChoice::kCpu) {
    // Asking for an absent GPU backend fails before anything runs.
    kernels::Engine* engine = nullptr;
    kernels::KernelStatus s = kernels::SelectEngine(backend, 0, &engine);
    if (!s.ok()) return Unsupported(pipeline.source + ": execution.backend: " + s.message());
  }
  std::unique_ptr<tbb::global_control> threads;
  if (pipeline.threads > 0) {
    threads = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                    static_cast<size_t>(pipeline.threads));
  }
  auto run = std::make_unique<PipelineRun>();
  auto set = LoadTraceSet(use, load);
  if (!set.ok()) return set.status();
  run->traces = std::move(*set);
  AnalysisReport& report = run->report;
  report.pipeline = pipeline.source;
  report.traces = &run->traces;
  // Kernel classes and graph capture, worked out once for every plugin.
  const HostFacts facts(run->traces, KernelClassTable::WithPipelineRules(pipeline.kernel_classes));

  for (const PluginStep& step : pipeline.plugins) {
    if (!step.enabled) continue;
    const LoadedPlugin* plugin = plugins.Find(step.id);
    if (!plugin)
      return NotFound(FormatMark(step.mark) + ": plugin '" + step.id + "' is not loaded");
    PluginOutcome outcome;
    outcome.id = step.id;
    outcome.version = plugin->declaration.version;
    size_t first_finding = report.results.findings.size();
    auto started = std::chrono::steady_clock::now();
    Status s = RunPlugin(*plugin, run->traces, step.options, &report.results, backend, &facts);
    outcome.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (step.severity) {  // info findings say what the trace is; they stay info
      for (size_t i = first_finding; i < report.results.findings.size(); ++i)
        if (IsProblem(report.results.findings[i].severity))
          report.results.findings[i].severity = *step.severity;
    }
    if (!s.ok()) {
      outcome.ok = false;
      outcome.error = s.message();
      Finding f;
      f.plugin = "host";
      f.severity = FindingSeverity::kP1;
      f.title = "plugin " + step.id + " failed";
      f.what = s.message() + "; its results are missing from this report";
      report.results.findings.push_back(std::move(f));
    }
    report.plugins.push_back(std::move(outcome));
  }

  // What each trace that captures CUDA/HIP graphs is, and who skipped it.
  for (size_t i = 0; i < run->traces.traces.size(); ++i) {
    const Trace& t = *run->traces.traces[i];
    if (!facts.capture(i).present()) continue;
    std::vector<std::string> skipped_by;
    for (const Skip& skip : report.results.skips)
      if (skip.rank == t.info.rank &&
          std::find(skipped_by.begin(), skipped_by.end(), skip.plugin) == skipped_by.end())
        skipped_by.push_back(skip.plugin);
    report.results.findings.push_back(GraphCaptureFinding(t, facts.capture(i), skipped_by));
  }

  for (const PluginOutcome& p : report.plugins)
    if (!p.ok) run->exit_code = kExitPluginFailed;
  if (run->exit_code == 0 && pipeline.fail_on) {
    for (const Finding& f : report.results.findings)
      if (AtLeastAsSevere(f.severity, *pipeline.fail_on)) run->exit_code = kExitFindingAtFailOn;
  }
  return run;
}

Status WritePipelineOutputs(const Pipeline& pipeline, const PipelineRun& run,
                            std::ostream& terminal) {
  for (const OutputSpec& o : pipeline.outputs) {
    std::ostringstream text;
    FindingFilter filter;
    if (o.min_severity) filter.min_severity = *o.min_severity;
    if (o.max_findings) filter.max_groups = static_cast<int>(*o.max_findings);
    if (o.type == "terminal") {
      WriteReportTerminal(run.report, terminal, filter);
      continue;
    }
    if (o.type == "trace") {
      // One file per rank when there are several (annotated_trace.h).
      const TraceSet& set = run.report.traces ? *run.report.traces : run.traces;
      TH_RETURN_IF_ERROR(WriteAnnotatedTraces(set, run.report.results.findings, o.path));
      continue;
    }
    if (o.type == "html") {
      // One self-contained page (html_report.h), written atomically.
      TH_RETURN_IF_ERROR(WriteHtmlReport(run.report, o.path, {}, filter));
      continue;
    }
    if (o.type == "markdown")
      WriteReportMarkdown(run.report, text, filter);
    else if (o.type == "json")
      WriteReportJson(run.report, text, filter);
    else
      return Unsupported("output type '" + o.type + "' is not available yet");
    TH_RETURN_IF_ERROR(WriteOutput(o.path, text.str()));
  }
  return Ok();
}

}  // namespace th
