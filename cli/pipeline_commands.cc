#include "cli/pipeline_commands.h"

#include <iostream>
#include <memory>

#include "cli/pipeline_setup.h"
#include "core/graph/text_escape.h"
#include "core/pipeline/pipeline_loader.h"
#include "core/pipeline/pipeline_runner.h"
#include "core/pipeline/pipeline_schema.h"
#include "core/plugin/plugin_loader.h"

namespace th::cli {

namespace {

constexpr int kExitBadInput = 2;

struct PipelineOptions {
  std::string pipeline;
  std::vector<std::string> inputs;
  std::vector<std::string> baseline;
  std::vector<std::string> set;
  std::vector<std::string> plugin_paths;
  bool dump_config = false;
  bool keep_truncated = false;
};

int Fail(const std::string& message) {
  std::cerr << "tracehound: error: " << PrintableBytes(message) << "\n";
  return kExitBadInput;
}

// `--baseline A...` as the override "baseline=[...]" (YAML double-quoted
// strings), applied after the --set overrides.
std::string BaselineOverride(const std::vector<std::string>& paths) {
  std::string list;
  for (const std::string& p : paths) {
    std::string quoted = "\"";
    for (char c : p) {
      if (c == '"' || c == '\\') quoted += '\\';
      quoted += c;
    }
    list += (list.empty() ? "" : ", ") + quoted + "\"";
  }
  return "baseline=[" + list + "]";
}

int RunOrValidate(const PipelineOptions& o, bool run_it) {
  LoadPipelineOptions load;
  load.set_overrides = o.set;
  if (!o.baseline.empty()) load.set_overrides.push_back(BaselineOverride(o.baseline));
  PluginRegistry registry;
  auto pipeline = LoadPipelineAndPlugins(o.pipeline, o.plugin_paths, load, &registry);
  if (!pipeline.ok()) return Fail(pipeline.status().message());
  if (o.dump_config) {
    std::cout << DumpEffectivePipeline(*pipeline);
    return 0;
  }
  if (Status folders = CheckOutputFolders(*pipeline); !folders.ok()) return Fail(folders.message());
  if (!run_it) {
    std::cout << o.pipeline << ": valid;";
    for (const PluginStep& s : pipeline->plugins)
      std::cout << " " << s.id << (s.enabled ? "" : " (disabled)");
    std::cout << "\n";
    return 0;
  }
  LoadOptions trace_load;
  trace_load.import.keep_truncated = o.keep_truncated;
  auto run = RunPipeline(*pipeline, registry, o.inputs, trace_load);
  if (!run.ok()) return Fail(run.status().message());
  Status written = WritePipelineOutputs(*pipeline, **run, std::cout);
  if (!written.ok()) return Fail(written.message());
  return (*run)->exit_code;
}

void AddCommonOptions(CLI::App* cmd, PipelineOptions* o) {
  cmd->add_option("--set", o->set,
                  "override a pipeline value, e.g. plugins.kernel-stats.include_memory=false");
  cmd->add_option("--plugin-path", o->plugin_paths, "also look for plugins in this directory");
}

std::string_view TypeName(OptionType t) { return OptionTypeName(t); }

std::string ValueText(const OptionValue& v) {
  if (auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&v)) return std::to_string(*d);
  return "\"" + std::get<std::string>(v) + "\"";
}

}  // namespace

void AddPipelineCommands(CLI::App& app, int* exit_code) {
  auto run = std::make_shared<PipelineOptions>();
  CLI::App* run_cmd = app.add_subcommand("run", "Run a YAML pipeline of plugins over traces");
  run_cmd->add_option("pipeline", run->pipeline, "pipeline file (YAML)")->required();
  run_cmd->add_option("inputs", run->inputs, "traces (replace the pipeline's inputs)");
  run_cmd->add_option("--baseline", run->baseline,
                      "the run the inputs are compared with (replaces the pipeline's "
                      "'baseline:'; read by plugins comparing runs, e.g. trace-diff)");
  run_cmd->add_flag("--dump-config", run->dump_config,
                    "print the effective pipeline with every default, then exit");
  run_cmd->add_flag("--keep-truncated", run->keep_truncated,
                    "read the complete events of truncated traces");
  AddCommonOptions(run_cmd, run.get());
  run_cmd->callback([run, exit_code] { *exit_code = RunOrValidate(*run, true); });

  auto validate = std::make_shared<PipelineOptions>();
  CLI::App* validate_cmd = app.add_subcommand("validate", "Check a pipeline without running it");
  validate_cmd->add_option("pipeline", validate->pipeline, "pipeline file (YAML)")->required();
  AddCommonOptions(validate_cmd, validate.get());
  validate_cmd->callback([validate, exit_code] { *exit_code = RunOrValidate(*validate, false); });

  auto analyze = std::make_shared<PipelineOptions>();
  CLI::App* analyze_cmd =
      app.add_subcommand("analyze", "Run the default pipeline (configs/default.yaml) on traces");
  analyze_cmd->add_option("inputs", analyze->inputs, "traces: files, directories, globs, archives")
      ->required();
  analyze_cmd->add_flag("--keep-truncated", analyze->keep_truncated,
                        "read the complete events of truncated traces");
  AddCommonOptions(analyze_cmd, analyze.get());
  analyze_cmd->callback([analyze, exit_code] {
    PipelineOptions o = *analyze;
    o.pipeline = ConfigPath("default.yaml");
    *exit_code = RunOrValidate(o, true);
  });
}

void AddPluginsCommand(CLI::App& app, int* exit_code) {
  auto paths = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand("plugins", "List and describe the plugins found");
  cmd->require_subcommand(1);
  cmd->add_option("--plugin-path", *paths, "also look for plugins in this directory");
  auto load = [paths](PluginRegistry* registry) { return LoadRegistry(*paths, registry); };

  CLI::App* list = cmd->add_subcommand("list", "Every plugin on the search path");
  list->callback([load, exit_code] {
    PluginRegistry registry;
    Status s = load(&registry);
    if (!s.ok()) {
      *exit_code = Fail(s.message());
      return;
    }
    for (const PluginDeclaration& d : registry.Declarations()) {
      std::cout << d.id << "  " << d.version << "  "
                << (d.kind == PluginKind::kAnalyzer ? "analyzer" : "detector") << "  " << d.summary
                << "\n    " << d.library << "\n";
    }
    *exit_code = 0;
  });

  auto id = std::make_shared<std::string>();
  CLI::App* describe =
      cmd->add_subcommand("describe", "Options, defaults and tables of one plugin");
  describe->add_option("id", *id, "plugin id")->required();
  describe->callback([load, id, exit_code] {
    PluginRegistry registry;
    Status s = load(&registry);
    if (!s.ok()) {
      *exit_code = Fail(s.message());
      return;
    }
    const LoadedPlugin* p = registry.Find(*id);
    if (!p) {
      *exit_code = Fail("no plugin with id '" + *id + "' (see `tracehound plugins list`)");
      return;
    }
    const PluginDeclaration& d = p->declaration;
    std::cout << d.id << " " << d.version << " ("
              << (d.kind == PluginKind::kAnalyzer ? "analyzer" : "detector") << ")\n  " << d.summary
              << "\n  library: " << d.library << "\n  reads:";
    for (const auto& t : d.reads) std::cout << " " << t;
    if (d.input_groups)
      std::cout << "\n  input groups: the pipeline's baseline and inputs (needs 'baseline:')";
    std::cout << "\n  publishes:" << (d.publishes.empty() ? " none" : "") << "\n";
    for (const TableSchema& t : d.publishes) {
      std::cout << "    " << t.name;
      if (!t.view.empty()) std::cout << " (report panel " << t.view << ")";
      if (!t.doc.empty()) std::cout << ": " << t.doc;
      std::cout << "\n";
      for (const ColumnSchema& c : t.columns) {
        std::cout << "      " << c.name << " " << ColumnTypeName(c.type);
        if (!c.unit.empty()) std::cout << " [" << c.unit << "]";
        if (!c.doc.empty()) std::cout << ": " << c.doc;
        std::cout << "\n";
      }
    }
    std::cout << "  options:" << (d.options.empty() ? " none" : "") << "\n";
    for (const OptionDeclaration& o : d.options) {
      std::cout << "    " << o.name << " (" << TypeName(o.type) << ", default "
                << ValueText(o.default_value);
      if (o.min) std::cout << ", min " << *o.min;
      if (o.max) std::cout << ", max " << *o.max;
      if (!o.choices.empty()) {
        std::cout << ", one of";
        for (const auto& c : o.choices) std::cout << " " << c;
      }
      std::cout << "): " << o.doc << "\n";
    }
    *exit_code = 0;
  });

  CLI::App* schema =
      cmd->add_subcommand("schema", "The JSON Schema of pipelines for the plugins found");
  schema->callback([load, exit_code] {
    PluginRegistry registry;
    Status s = load(&registry);
    if (!s.ok()) {
      *exit_code = Fail(s.message());
      return;
    }
    std::cout << PipelineJsonSchema(registry.Declarations()) << "\n";
    *exit_code = 0;
  });
}

}  // namespace th::cli
