// diff() and _Diff: two loaded runs compared as `tracehound diff` does.
#include <pybind11/stl.h>

#include <memory>

#include "core/diff/diff_html.h"
#include "core/diff/diff_json.h"
#include "core/diff/diff_runs.h"
#include "core/diff/diff_text.h"
#include "core/plugin/plugin_loader.h"
#include "python/src/bindings.h"
#include "python/src/loaded_traces.h"
#include "python/src/status_error.h"

namespace th::python {

namespace py = pybind11;

namespace {

// Both sides' traces and the results of the plugins the diff ran on them.
struct RunDiff {
  std::shared_ptr<LoadedTraces> a, b;
  PluginResults a_results, b_results;
  diff::DiffResult result;
};

Status Compare(const std::vector<std::string>& plugin_paths, const diff::DiffOptions& options,
               RunDiff* d) {
  PluginRegistry registry;
  TH_RETURN_IF_ERROR(registry.LoadDirectories(PluginSearchPath(plugin_paths)));
  auto side = [&](const LoadedTraces& t, PluginResults* results) -> Status {
    auto r = diff::RunDiffPlugins(t.set(), registry);
    if (!r.ok()) {
      std::string label = t.inputs().empty() ? "" : t.inputs().front() + ": ";
      return Status(r.status().code(), label + r.status().message());
    }
    *results = std::move(*r);
    return Ok();
  };
  TH_RETURN_IF_ERROR(side(*d->a, &d->a_results));
  TH_RETURN_IF_ERROR(side(*d->b, &d->b_results));
  diff::DiffSide sa{&d->a->set(), &d->a_results, "A", d->a->inputs()};
  diff::DiffSide sb{&d->b->set(), &d->b_results, "B", d->b->inputs()};
  auto result = diff::DiffRuns(sa, sb, options);
  if (!result.ok()) return result.status();
  d->result = std::move(*result);
  return Ok();
}

std::shared_ptr<RunDiff> Diff(std::shared_ptr<LoadedTraces> a, std::shared_ptr<LoadedTraces> b,
                              const std::vector<std::string>& plugin_paths, int64_t threshold_ns,
                              bool all_steps, bool all_classes, bool hta, int64_t max_structural,
                              int64_t max_step_pairs) {
  if (threshold_ns < 0 || max_structural < 0 || max_step_pairs < 0)
    throw py::value_error("diff: threshold_ns, max_structural and max_step_pairs must be >= 0");
  diff::DiffOptions options;
  options.threshold_ns = threshold_ns;
  options.all_steps = all_steps;
  options.all_classes = all_classes;
  options.hta = hta;
  options.max_structural = max_structural;
  options.max_step_pairs = max_step_pairs;
  auto d = std::make_shared<RunDiff>();
  d->a = std::move(a);
  d->b = std::move(b);
  Status s = Ok();
  {
    py::gil_scoped_release released;
    s = Compare(plugin_paths, options, d.get());
  }
  if (!s.ok()) ThrowStatus(s);
  return d;
}

}  // namespace

void BindDiff(py::module_& m) {
  py::class_<RunDiff, std::shared_ptr<RunDiff>>(m, "_Diff", "Two runs compared")
      .def(
          "to_json", [](const RunDiff& d) { return py::bytes(diff::DiffJson(d.result)); },
          "diff.json, as `tracehound diff -o` writes it")
      .def(
          "to_markdown", [](const RunDiff& d) { return py::bytes(diff::DiffMarkdown(d.result)); },
          "diff.md")
      .def(
          "to_html", [](const RunDiff& d) { return py::bytes(diff::DiffHtml(d.result)); },
          "diff.html")
      .def(
          "terminal", [](const RunDiff& d) { return diff::DiffTerminal(d.result); },
          "The text `tracehound diff` prints");
  m.def("diff", &Diff, py::arg("a"), py::arg("b"), py::arg("plugin_paths"),
        py::arg("threshold_ns") = 1000, py::arg("all_steps") = false,
        py::arg("all_classes") = false, py::arg("hta") = false, py::arg("max_structural") = 50,
        py::arg("max_step_pairs") = 8, "Compares run a (the baseline) with run b");
}

}  // namespace th::python
