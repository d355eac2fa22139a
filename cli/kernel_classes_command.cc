#include "cli/kernel_classes_command.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/pipeline_setup.h"
#include "core/graph/text_escape.h"
#include "core/pipeline/pipeline_loader.h"
#include "core/report/kernel_class_listing.h"

namespace th::cli {

namespace {

struct Options {
  std::string pipeline;
  std::vector<std::string> set;
  std::vector<std::string> plugin_paths;
  bool json = false;
};

int Run(const Options& o) {
  KernelClassTable table = KernelClassTable::Builtin();
  if (!o.pipeline.empty()) {
    LoadPipelineOptions load;
    load.set_overrides = o.set;
    const std::string path = ResolvePipelinePath(o.pipeline);
    PluginRegistry registry;
    auto pipeline = LoadPipelineAndPlugins(path, o.plugin_paths, load, &registry);
    if (!pipeline.ok()) {
      std::cerr << "tracehound: error: " << PrintableBytes(pipeline.status().message()) << "\n";
      return 2;
    }
    table = KernelClassTable::WithPipelineRules(pipeline->kernel_classes);
  }
  if (o.json)
    WriteKernelClassTableJson(table, std::cout);
  else
    WriteKernelClassTable(table, std::cout);
  return 0;
}

}  // namespace

void AddKernelClassesCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "kernel-classes", "The kernel class table: which kernels are COMM, COMP or MEM, and why");
  cmd->add_option("--pipeline", o->pipeline,
                  "also the pipeline's kernel_classes: rules (matched first)");
  cmd->add_option("--set", o->set, "override a pipeline value (with --pipeline)");
  cmd->add_option("--plugin-path", o->plugin_paths, "also look for plugins in this directory");
  cmd->add_flag("--json", o->json, "write JSON");
  cmd->callback([o, exit_code] { *exit_code = Run(*o); });
}

}  // namespace th::cli
