#include "core/pipeline/pipeline_runner.h"

#include <tbb/flow_graph.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <chrono>
#include <sstream>

#include "core/pipeline/graph_capture_finding.h"
#include "core/plugin/host_facts.h"
#include "core/plugin/plugin_host.h"
#include "core/report/annotated_trace.h"
#include "core/report/html_report.h"
#include "core/report/investigation.h"
#include "core/report/output_file.h"

namespace th {

namespace {

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// What one plugin of the pipeline left: its own results, kept apart until
// every plugin has finished.
struct StepRun {
  PluginResults results;
  Status status = Ok();
  double seconds = 0;
};

// The baseline of a pipeline with two input sets, and what its plugins left
// on it (indexed as the pipeline's steps).
struct BaselineRun {
  const TraceSet* traces = nullptr;
  const HostFacts* facts = nullptr;
  std::vector<StepRun> ran;
};

// producers[j]: the earlier steps publishing a table step j reads.
std::vector<std::vector<size_t>> Producers(const std::vector<const LoadedPlugin*>& plugins) {
  const size_t n = plugins.size();
  std::vector<std::vector<size_t>> producers(n);
  for (size_t j = 0; j < n; ++j)
    for (size_t i = j; i-- > 0;)
      for (const std::string& table : plugins[j]->declaration.reads)
        if (plugins[i]->declaration.Published(table)) {
          producers[j].push_back(i);
          break;
        }
  return producers;
}

// The steps to run over the baseline: the producers, direct or not, of the
// plugins that compare input groups (which themselves run once, over both).
std::vector<bool> BaselineSteps(const std::vector<const LoadedPlugin*>& plugins) {
  const std::vector<std::vector<size_t>> producers = Producers(plugins);
  std::vector<bool> needed(plugins.size(), false);
  for (size_t k = plugins.size(); k-- > 0;) {
    if (!plugins[k]->declaration.input_groups && !needed[k]) continue;
    for (size_t i : producers[k])
      if (!plugins[i]->declaration.input_groups) needed[i] = true;
  }
  return needed;
}

// Runs the steps (in pipeline order, dependencies first) as a graph: a step
// starts once every earlier step publishing a table it reads has finished;
// the others run at the same time on the oneTBB arena (bounded by
// `execution.threads`). A step reads its producers' tables, latest first.
// `only`: the steps to run (empty: all; the others leave empty results).
// `baseline`: given to the plugins that compare input groups.
std::vector<StepRun> RunSteps(const std::vector<const LoadedPlugin*>& plugins,
                              const std::vector<const PluginStep*>& steps, const TraceSet& traces,
                              kernels::BackendChoice backend, const HostFacts& facts,
                              const std::vector<bool>& only = {},
                              const BaselineRun* baseline = nullptr) {
  const size_t n = steps.size();
  std::vector<StepRun> ran(n);
  const std::vector<std::vector<size_t>> producers = Producers(plugins);
  tbb::flow::graph graph;
  std::vector<std::unique_ptr<tbb::flow::continue_node<tbb::flow::continue_msg>>> nodes;
  for (size_t k = 0; k < n; ++k) {
    nodes.push_back(std::make_unique<tbb::flow::continue_node<tbb::flow::continue_msg>>(
        graph, [&, k](const tbb::flow::continue_msg&) {
          PluginRunContext context;
          context.backend = backend;
          context.facts = &facts;
          context.echo_log = false;
          if (!only.empty() && !only[k]) return;
          for (size_t i : producers[k]) context.upstream.push_back(&ran[i].results);
          if (baseline && plugins[k]->declaration.input_groups) {
            context.baseline = baseline->traces;
            context.baseline_facts = baseline->facts;
            for (size_t i : producers[k])
              context.baseline_upstream.push_back(&baseline->ran[i].results);
          }
          auto t0 = std::chrono::steady_clock::now();
          ran[k].status =
              RunPlugin(*plugins[k], traces, steps[k]->options, &ran[k].results, context);
          ran[k].seconds = SecondsSince(t0);
        }));
  }
  for (size_t k = 0; k < n; ++k)
    for (size_t i : producers[k]) tbb::flow::make_edge(*nodes[i], *nodes[k]);
  for (size_t k = 0; k < n; ++k)
    if (producers[k].empty()) nodes[k]->try_put(tbb::flow::continue_msg());
  graph.wait_for_all();
  return ran;
}

FindingFilter FilterOf(const OutputSpec& o) {
  FindingFilter filter;
  if (o.min_severity) filter.min_severity = *o.min_severity;
  if (o.max_findings) filter.max_groups = static_cast<int>(*o.max_findings);
  return filter;
}

// Writes one output file (atomically) of `run`.
Status WriteFileOutput(const OutputSpec& o, const PipelineRun& run) {
  const FindingFilter filter = FilterOf(o);
  if (o.type == "trace") {
    // One file per rank when there are several (annotated_trace.h).
    const TraceSet& set = run.report.traces ? *run.report.traces : run.traces;
    return WriteAnnotatedTraces(set, run.report.results.findings, o.path);
  }
  // One self-contained page (html_report.h).
  if (o.type == "html") return WriteHtmlReport(run.report, o.path, {}, filter);
  std::ostringstream text;
  if (o.type == "markdown")
    WriteReportMarkdown(run.report, text, filter);
  else if (o.type == "json")
    WriteReportJson(run.report, text, filter);
  else
    return Unsupported("output type '" + o.type + "' is not available yet");
  return WriteOutput(o.path, text.str());
}

// Appends `from` to `into`; tables replace those of the same name.
void MergeResults(PluginResults&& from, PluginResults* into) {
  auto append = [](auto& src, auto& dst) {
    dst.insert(dst.end(), std::make_move_iterator(src.begin()), std::make_move_iterator(src.end()));
  };
  append(from.findings, into->findings);
  append(from.notes, into->notes);
  append(from.skips, into->skips);
  append(from.checks, into->checks);
  append(from.metrics, into->metrics);
  for (auto& [name, table] : from.tables) into->tables[name] = std::move(table);
}

// The backend the pipeline names, checked: an absent GPU backend fails before
// anything runs.
StatusOr<kernels::BackendChoice> PipelineBackend(const Pipeline& pipeline) {
  kernels::BackendChoice backend = kernels::BackendChoice::kAuto;
  if (!kernels::ParseBackendChoice(pipeline.backend, &backend)) {
    return InvalidInput(pipeline.source + ": unknown backend '" + pipeline.backend + "'");
  }
  if (backend != kernels::BackendChoice::kAuto && backend != kernels::BackendChoice::kCpu) {
    kernels::Engine* engine = nullptr;
    kernels::KernelStatus s = kernels::SelectEngine(backend, 0, &engine);
    if (!s.ok()) return Unsupported(pipeline.source + ": execution.backend: " + s.message());
  }
  return backend;
}

std::unique_ptr<tbb::global_control> ThreadBound(const Pipeline& pipeline) {
  if (pipeline.threads <= 0) return nullptr;
  return std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                               static_cast<size_t>(pipeline.threads));
}

// The producers of the group-comparing plugins run over the baseline; what
// they report stays out of the report but their failures, which leave the
// comparison without its input: each is a P1 finding of the host.
std::unique_ptr<BaselineRun> RunBaseline(const std::vector<const LoadedPlugin*>& loaded,
                                         const std::vector<const PluginStep*>& steps,
                                         kernels::BackendChoice backend, const TraceSet& traces,
                                         const HostFacts& facts, AnalysisReport* report) {
  auto b = std::make_unique<BaselineRun>();
  b->traces = &traces;
  b->facts = &facts;
  b->ran = RunSteps(loaded, steps, traces, backend, facts, BaselineSteps(loaded));
  for (size_t k = 0; k < b->ran.size(); ++k) {
    if (b->ran[k].status.ok()) continue;
    Finding f;
    f.plugin = "host";
    f.severity = FindingSeverity::kP1;
    f.title = "plugin " + steps[k]->id + " failed on the baseline";
    f.what = b->ran[k].status.message() + "; the comparison with the baseline lacks its tables";
    report->results.findings.push_back(std::move(f));
  }
  return b;
}

// The host facts, the plugins and what follows them, on `traces` (which
// run->report.traces points to), into run->report and run->exit_code.
// `baseline`: the pipeline's second input set, or null.
Status Analyze(const Pipeline& pipeline, const PluginRegistry& plugins,
               kernels::BackendChoice backend, const TraceSet& traces, PipelineRun* run,
               const TraceSet* baseline = nullptr) {
  AnalysisReport& report = run->report;
  PhaseTimes& timing = report.timing;
  report.pipeline = pipeline.source;
  report.traces = &traces;
  // Kernel classes and graph capture, worked out once for every plugin.
  auto started = std::chrono::steady_clock::now();
  const HostFacts facts(traces, KernelClassTable::WithPipelineRules(pipeline.kernel_classes));
  timing.facts_seconds = SecondsSince(started);

  std::vector<const LoadedPlugin*> loaded;
  std::vector<const PluginStep*> steps;
  for (const PluginStep& step : pipeline.plugins) {
    if (!step.enabled) continue;
    const LoadedPlugin* plugin = plugins.Find(step.id);
    if (!plugin)
      return NotFound(FormatMark(step.mark) + ": plugin '" + step.id + "' is not loaded");
    loaded.push_back(plugin);
    steps.push_back(&step);
  }
  started = std::chrono::steady_clock::now();
  std::unique_ptr<HostFacts> baseline_facts;
  std::unique_ptr<BaselineRun> baseline_run;
  if (baseline) {
    baseline_facts = std::make_unique<HostFacts>(
        *baseline, KernelClassTable::WithPipelineRules(pipeline.kernel_classes));
    baseline_run = RunBaseline(loaded, steps, backend, *baseline, *baseline_facts, &report);
  }
  std::vector<StepRun> ran =
      RunSteps(loaded, steps, traces, backend, facts, {}, baseline_run.get());
  timing.plugins_seconds = SecondsSince(started);
  // Merged in pipeline order, so reports do not depend on which plugin
  // finished first; a later publisher of a table replaces an earlier one.
  for (size_t k = 0; k < ran.size(); ++k) {
    const PluginStep& step = *steps[k];
    StepRun& r = ran[k];
    EchoPluginNotes(r.results.notes);
    PluginOutcome outcome;
    outcome.id = step.id;
    outcome.version = loaded[k]->declaration.version;
    outcome.seconds = r.seconds;
    if (step.severity) {  // info findings say what the trace is; they stay info
      for (Finding& f : r.results.findings)
        if (IsProblem(f.severity)) f.severity = *step.severity;
    }
    MergeResults(std::move(r.results), &report.results);
    if (!r.status.ok()) {
      outcome.ok = false;
      outcome.error = r.status.message();
      Finding f;
      f.plugin = "host";
      f.severity = FindingSeverity::kP1;
      f.title = "plugin " + step.id + " failed";
      f.what = r.status.message() + "; its results are missing from this report";
      report.results.findings.push_back(std::move(f));
    }
    report.plugins.push_back(std::move(outcome));
  }

  // What each trace that captures CUDA/HIP graphs is, and who skipped it.
  for (size_t i = 0; i < traces.traces.size(); ++i) {
    const Trace& t = *traces.traces[i];
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
  return Ok();
}

}  // namespace

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
  auto backend = PipelineBackend(pipeline);
  if (!backend.ok()) return backend.status();
  const std::unique_ptr<tbb::global_control> threads = ThreadBound(pipeline);
  auto run = std::make_unique<PipelineRun>();
  auto started = std::chrono::steady_clock::now();
  auto set = LoadTraceSet(use, load);
  if (!set.ok()) return set.status();
  run->traces = std::move(*set);
  if (!pipeline.baseline.empty()) {
    auto base = LoadTraceSet(pipeline.baseline, load);
    if (!base.ok()) return Status(base.status().code(), "baseline: " + base.status().message());
    run->baseline = std::move(*base);
  }
  run->report.timing.import_seconds = SecondsSince(started);
  TH_RETURN_IF_ERROR(Analyze(pipeline, plugins, *backend, run->traces, run.get(),
                             pipeline.baseline.empty() ? nullptr : &run->baseline));
  return run;
}

StatusOr<std::unique_ptr<PipelineRun>> RunPipelineOn(const Pipeline& pipeline,
                                                     const PluginRegistry& plugins,
                                                     const TraceSet& traces) {
  auto backend = PipelineBackend(pipeline);
  if (!backend.ok()) return backend.status();
  const std::unique_ptr<tbb::global_control> threads = ThreadBound(pipeline);
  auto run = std::make_unique<PipelineRun>();
  TH_RETURN_IF_ERROR(Analyze(pipeline, plugins, *backend, traces, run.get()));
  return run;
}

FindingFilter OutputFilter(const OutputSpec& o) { return FilterOf(o); }

Status WritePipelineOutputs(const Pipeline& pipeline, PipelineRun& run, std::ostream& terminal) {
  const std::unique_ptr<tbb::global_control> threads = ThreadBound(pipeline);
  std::vector<OutputTime>& written = run.report.timing.outputs;
  written.clear();
  // Once for every output (each shows the host's checks and open questions).
  if (!run.report.reconciliation && run.report.traces)
    run.report.reconciliation = Reconcile(*run.report.traces);
  if (!run.report.open_questions && run.report.traces)
    run.report.open_questions = OpenQuestions(*run.report.traces);
  const OutputSpec* terminal_spec = nullptr;
  for (const OutputSpec& o : pipeline.outputs) {
    if (o.type == "terminal") {
      terminal_spec = &o;  // last, so that it lists every file's time
      continue;
    }
    auto started = std::chrono::steady_clock::now();
    TH_RETURN_IF_ERROR(WriteFileOutput(o, run));
    written.push_back({o.type, o.path, SecondsSince(started)});
  }
  if (terminal_spec) WriteReportTerminal(run.report, terminal, FilterOf(*terminal_spec));
  return Ok();
}

}  // namespace th
