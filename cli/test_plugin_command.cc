#include "cli/test_plugin_command.h"

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "core/graph/text_escape.h"
#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "core/report/line_diff.h"
#include "core/report/plugin_results_json.h"

namespace th::cli {
namespace {

struct TestPluginOptions {
  std::string library, trace, golden;
  bool update = false;
};

int Error(const std::string& message, int code) {
  std::cerr << "tracehound: error: " << PrintableBytes(message) << "\n";
  return code;
}

std::string Counts(const PluginResults& r) {
  return std::to_string(r.findings.size()) + " finding(s), " + std::to_string(r.metrics.size()) +
         " metric(s), " + std::to_string(r.tables.size()) + " table(s)";
}

int TestPlugin(const TestPluginOptions& opt) {
  if (opt.update && opt.golden.empty()) return Error("--update needs --golden FILE", 2);
  auto plugin = LoadPluginLibrary(opt.library);
  if (!plugin.ok()) return Error(plugin.status().message(), 2);
  auto set = LoadTraceSet({opt.trace}, LoadOptions{});
  if (!set.ok()) return Error(set.status().message(), 2);

  PluginResults results;
  Status run = RunPlugin(**plugin, *set, {}, &results);
  if (!run.ok()) return Error(run.message(), 1);
  std::ostringstream json;
  WritePluginResultsJson(results, json);
  const std::string actual = json.str();

  if (opt.golden.empty()) {
    std::cout << actual;
    return 0;
  }
  if (opt.update) {
    std::ofstream out(opt.golden, std::ios::binary);
    out << actual;
    out.close();
    if (!out) return Error(opt.golden + ": cannot write", 1);
    std::cerr << "wrote " << opt.golden << ": " << Counts(results) << "\n";
    return 0;
  }
  std::ifstream in(opt.golden, std::ios::binary);
  if (!in) return Error(opt.golden + ": cannot read the golden file (write it with --update)", 2);
  std::ostringstream golden;
  golden << in.rdbuf();
  const std::string diff = LineDiffSummary(golden.str(), actual);
  if (diff.empty()) {
    std::cerr << "match: " << opt.golden << ": " << Counts(results) << "\n";
    return 0;
  }
  std::cerr << "mismatch: " << (*plugin)->declaration.id << " on " << opt.trace << " differs from "
            << opt.golden << " (expected: the golden file; actual: this run, " << Counts(results)
            << ")\n"
            << PrintableBytes(diff);
  return 1;
}

}  // namespace

void AddTestPluginCommand(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<TestPluginOptions>();
  CLI::App* cmd = app.add_subcommand(
      "test-plugin",
      "Run a plugin library on a trace with its default options and compare its findings, "
      "metrics and tables with a golden JSON file");
  cmd->add_option("library", opt->library, "the plugin library (.so)")->required();
  cmd->add_option("--trace", opt->trace, "the trace file to run it on")->required();
  cmd->add_option("--golden", opt->golden,
                  "the golden JSON file; without it the results are printed to stdout");
  cmd->add_flag("--update", opt->update, "write the results to the golden file instead");
  cmd->callback([opt, exit_code] { *exit_code = TestPlugin(*opt); });
}

}  // namespace th::cli
