#include "cli/diff_command.h"

#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/pipeline_setup.h"
#include "core/diff/diff_html.h"
#include "core/diff/diff_json.h"
#include "core/diff/diff_rows.h"
#include "core/diff/diff_runs.h"
#include "core/diff/diff_text.h"
#include "core/graph/text_escape.h"
#include "core/import/trace_loader.h"
#include "core/report/output_file.h"

namespace th::cli {
namespace {

struct DiffCommandOptions {
  std::string a, b;
  bool json = false;
  std::string output_dir;
  std::string db;
  std::vector<std::string> plugin_paths;
  diff::DiffOptions diff;
};

struct LoadedSide {
  TraceSet traces;
  PluginResults results;
};

StatusOr<std::unique_ptr<LoadedSide>> LoadSide(const std::string& input,
                                               const PluginRegistry& registry) {
  auto set = LoadTraceSet({input}, LoadOptions{});
  if (!set.ok()) return set.status();
  auto side = std::make_unique<LoadedSide>();
  side->traces = std::move(*set);
  auto results = diff::RunDiffPlugins(side->traces, registry);
  if (!results.ok())
    return Status(results.status().code(), input + ": " + results.status().message());
  side->results = std::move(*results);
  return side;
}

// diff.json, diff.md and diff.html in `dir` (created), each written atomically.
Status WriteReports(const std::string& dir, const diff::DiffResult& r) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return IoError(dir + ": cannot create the directory: " + ec.message());
  const std::filesystem::path base(dir);
  Status s = WriteOutput((base / "diff.json").string(), diff::DiffJson(r));
  if (s.ok()) s = WriteOutput((base / "diff.md").string(), diff::DiffMarkdown(r));
  if (s.ok()) s = WriteOutput((base / "diff.html").string(), diff::DiffHtml(r));
  return s;
}

int Run(const DiffCommandOptions& o) {
  auto fail = [](const Status& s) {
    std::cerr << "tracehound: error: " << PrintableBytes(s.message()) << "\n";
    return 2;
  };
  PluginRegistry registry;
  Status loaded = LoadRegistry(o.plugin_paths, &registry);
  if (!loaded.ok()) return fail(loaded);
  auto a = LoadSide(o.a, registry);
  if (!a.ok()) return fail(a.status());
  auto b = LoadSide(o.b, registry);
  if (!b.ok()) return fail(b.status());
  diff::DiffSide sa{&(*a)->traces, &(*a)->results, "A", {o.a}};
  diff::DiffSide sb{&(*b)->traces, &(*b)->results, "B", {o.b}};
  auto result = diff::DiffRuns(sa, sb, o.diff);
  if (!result.ok()) return fail(result.status());
  if (!o.output_dir.empty()) {
    Status s = WriteReports(o.output_dir, *result);
    if (!s.ok()) return fail(s);
  }
  if (!o.db.empty()) {
    auto db = scan::OpenDatabase(o.db);
    if (!db.ok()) return fail(db.status());
    auto id = diff::WriteDiffRows(**db, *result);
    if (!id.ok()) return fail(id.status());
    std::cerr << "diff " << *id << " written to " << (*db)->name() << "\n";
  }
  if (o.json)
    std::cout << diff::DiffJson(*result);
  else
    std::cout << diff::DiffTerminal(*result);
  return 0;
}

}  // namespace

void AddDiffCommand(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<DiffCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "diff", "Compare two runs: aggregate rows per op/kernel, aligned step trees, step time");
  cmd->add_option("A", opt->a, "the baseline run: a trace, a folder of ranks, a glob, an archive")
      ->required();
  cmd->add_option("B", opt->b, "the run compared with it")->required();
  cmd->add_flag("--json", opt->json, "print the diff as JSON (docs/diff.md) instead of text");
  cmd->add_option("-o,--output", opt->output_dir,
                  "also write diff.json, diff.md and diff.html into this directory");
  cmd->add_option("--db", opt->db,
                  "also write the diff's rows (tables diffs, diff_rows) into this results "
                  "database: sqlite:PATH, a .db path or postgresql://...");
  cmd->add_option("--threshold-ns", opt->diff.threshold_ns,
                  "a row is changed only when |Δ time per step| exceeds this and the noise")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--all-steps", opt->diff.all_steps, "keep warm-up steps (default: steady state)");
  cmd->add_flag("--all-classes", opt->diff.all_classes,
                "aggregate every event class (runtime, annotations, Python), not only CPU ops, "
                "GPU kernels and HLO ops");
  cmd->add_flag("--hta", opt->diff.hta,
                "Holistic Trace Analysis' compare_traces definitions: the first step only, its "
                "marker as the window, every event class, full names");
  cmd->add_option("--max-structural", opt->diff.max_structural,
                  "structural rows kept per step pair")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-step-pairs", opt->diff.max_step_pairs, "step pairs aligned structurally")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--plugin-path", opt->plugin_paths, "more directories to load plugins from");
  cmd->callback([opt, exit_code] { *exit_code = Run(*opt); });
}

}  // namespace th::cli
