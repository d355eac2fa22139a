// run() and _Report: a pipeline run over loaded traces, its report as the
// bytes the CLI writes, its outputs and its derived tables as numpy views.
#include <pybind11/stl.h>

#include <memory>
#include <sstream>

#include "core/pipeline/pipeline_loader.h"
#include "core/pipeline/pipeline_runner.h"
#include "core/pipeline/python_plugins.h"
#include "core/plugin/plugin_loader.h"
#include "core/report/html_report.h"
#include "core/report/investigation.h"
#include "python/src/bindings.h"
#include "python/src/column_arrays.h"
#include "python/src/loaded_traces.h"
#include "python/src/status_error.h"

namespace th::python {

namespace py = pybind11;

namespace {

// One run: the traces it read, the plugins' libraries (loaded while the
// report lives) and the run itself.
struct PipelineReport {
  std::shared_ptr<LoadedTraces> traces;
  PluginRegistry registry;
  Pipeline pipeline;
  std::unique_ptr<PipelineRun> run;

  // The filter of the pipeline's first output of `type`; all findings without one.
  FindingFilter Filter(const std::string& type) const {
    for (const OutputSpec& o : pipeline.outputs)
      if (o.type == type) return OutputFilter(o);
    return {};
  }
  const AnalysisReport& report() const { return run->report; }
};

// The pipeline file read, its plugins loaded (its plugin_paths, then
// `plugin_paths`, TRACEHOUND_PLUGIN_PATH and the package's plugin folder)
// and validated, as `tracehound run` does.
Status LoadPipelineInto(const std::string& path, const std::vector<std::string>& overrides,
                        std::vector<std::string> plugin_paths, PipelineReport* out) {
  LoadPipelineOptions load;
  load.set_overrides = overrides;
  auto document = PipelineDocument::Read(path, load);
  if (!document.ok()) return document.status();
  auto paths = document->PluginPaths();
  if (!paths.ok()) return paths.status();
  paths->insert(paths->end(), plugin_paths.begin(), plugin_paths.end());
  TH_RETURN_IF_ERROR(out->registry.LoadDirectories(PluginSearchPath(*paths)));
  TH_RETURN_IF_ERROR(LoadPipelinePythonPlugins(*document, &out->registry));
  auto pipeline = document->Validate(out->registry.Declarations());
  if (!pipeline.ok()) return pipeline.status();
  out->pipeline = std::move(*pipeline);
  return Ok();
}

std::shared_ptr<PipelineReport> Run(const std::string& path, std::shared_ptr<LoadedTraces> traces,
                                    const std::vector<std::string>& overrides,
                                    const std::vector<std::string>& plugin_paths) {
  auto report = std::make_shared<PipelineReport>();
  report->traces = std::move(traces);
  Status s = Ok();
  {
    py::gil_scoped_release released;
    s = LoadPipelineInto(path, overrides, plugin_paths, report.get());
    if (s.ok()) {
      auto run = RunPipelineOn(report->pipeline, report->registry, report->traces->set());
      if (run.ok()) {
        report->run = std::move(*run);
        // As WritePipelineOutputs: the host's checks once, for every output.
        report->run->report.reconciliation = Reconcile(report->traces->set());
      } else {
        s = run.status();
      }
    }
  }
  if (!s.ok()) ThrowStatus(s);
  return report;
}

py::bytes Json(const PipelineReport& r) {
  std::ostringstream out;
  WriteReportJson(r.report(), out, r.Filter("json"));
  return py::bytes(out.str());
}

py::bytes Markdown(const PipelineReport& r) {
  std::ostringstream out;
  WriteReportMarkdown(r.report(), out, r.Filter("markdown"));
  return py::bytes(out.str());
}

py::bytes Html(const PipelineReport& r) {
  return py::bytes(RenderHtmlReport(r.report(), {}, r.Filter("html")));
}

std::string Terminal(const PipelineReport& r) {
  std::ostringstream out;
  WriteReportTerminal(r.report(), out, r.Filter("terminal"));
  return out.str();
}

std::string WriteOutputs(PipelineReport& r) {
  std::ostringstream terminal;
  Status s = Ok();
  {
    py::gil_scoped_release released;
    s = CheckOutputFolders(r.pipeline);
    if (s.ok()) s = WritePipelineOutputs(r.pipeline, *r.run, terminal);
  }
  if (!s.ok()) ThrowStatus(s);
  return terminal.str();
}

py::list TableNames(const PipelineReport& r) {
  py::list out;
  for (const auto& [name, table] : r.report().results.tables) out.append(Text(name));
  return out;
}

py::object Table(std::shared_ptr<PipelineReport> r, const std::string& name) {
  const auto& tables = r->report().results.tables;
  auto it = tables.find(name);
  if (it == tables.end()) return py::none();
  py::list units;
  for (const DerivedColumn& c : it->second.columns)
    units.append(py::make_tuple(Text(c.name), Text(c.unit)));
  return py::make_tuple(DerivedArrays(it->second, py::cast(r)), units, Text(it->second.plugin));
}

}  // namespace

void BindReport(py::module_& m) {
  py::class_<PipelineReport, std::shared_ptr<PipelineReport>>(
      m, "_Report", "A pipeline run over a _TraceSet: keeps its traces and plugins alive")
      .def("to_json", &Json, "The JSON report, as `tracehound run` writes it")
      .def("to_markdown", &Markdown, "The Markdown report")
      .def("to_html", &Html, "The self-contained HTML report")
      .def("terminal", &Terminal, "The terminal summary")
      .def("write_outputs", &WriteOutputs,
           "Writes the pipeline's outputs as `tracehound run` does; returns the terminal text")
      .def_property_readonly("exit_code", [](const PipelineReport& r) { return r.run->exit_code; })
      .def_property_readonly("pipeline", [](const PipelineReport& r) { return r.pipeline.source; })
      .def_property_readonly("traces", [](const PipelineReport& r) { return r.traces; })
      .def("table_names", &TableNames, "Names of the derived tables")
      .def("table", &Table,
           "({column: array}, [(name, unit)], plugin) of a derived table, or None");
  m.def("run", &Run, py::arg("pipeline"), py::arg("traces"), py::arg("overrides"),
        py::arg("plugin_paths"), "Runs a pipeline file over a _TraceSet");
  m.attr("build_plugin_dir") = TRACEHOUND_BUILD_PLUGIN_DIR;
  m.attr("source_config_dir") = TRACEHOUND_SOURCE_CONFIG_DIR;
}

}  // namespace th::python
