// Pipeline: the validated plan a YAML pipeline file becomes. Everything here
// has been checked against the plugin catalog (ids, option types, ranges,
// choices, table dependencies) before any plugin runs; `plugins` is already in
// execution order and every declared option carries a value.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/finding_severity.h"
#include "core/graph/kernel_class_table.h"
#include "core/plugin/plugin_declaration.h"

namespace th {

// Where a value came from: 1-based line and column. `file` is the pipeline or
// included file as it was opened, or "--set" for a command-line override (then
// `line` is the override's 1-based position among the overrides).
struct YamlMark {
  std::string file;
  int line = 0;
  int column = 0;
};

// "FILE:LINE:COLUMN", the prefix of every pipeline error.
std::string FormatMark(const YamlMark& mark);

// The closed vocabularies of a pipeline; the loader and the schema share them.
inline constexpr std::array<std::string_view, 4> kPipelineBackends = {"auto", "cpu", "cuda", "hip"};
inline constexpr std::array<std::string_view, 5> kPipelineOutputTypes = {"terminal", "markdown",
                                                                         "json", "html", "trace"};
// Severities a pipeline may name: the problem ones (info is no threshold).
inline constexpr std::array<std::string_view, 3> kPipelineSeverities = {
    SeverityLabel(FindingSeverity::kP0), SeverityLabel(FindingSeverity::kP1),
    SeverityLabel(FindingSeverity::kP2)};
// Classes a `kernel_classes:` rule may give (OTHER is HTA's alone).
inline constexpr std::array<std::string_view, 3> kPipelineKernelClasses = {"COMM", "COMP", "MEM"};

struct PluginStep {
  std::string id;
  bool enabled = true;
  std::optional<FindingSeverity> severity;     // P0|P1|P2: overrides the plugin's own
  std::map<std::string, OptionValue> options;  // every declared option, defaults filled
  YamlMark mark;                               // the plugin's key in the file
  // A Python plugin's class (`python:`), "module:Class" or "file.py:Class"
  // with the file resolved against its pipeline file's folder; "" for C++.
  std::string python;
};

struct OutputSpec {
  std::string type;  // terminal|markdown|json|html|trace (annotated Chrome trace)
  std::string path;  // "" for terminal (stdout)
  // Which findings this output shows: at min_severity or worse, at most
  // max_findings causes (groups of findings, finding_groups.h); unset = all.
  std::optional<FindingSeverity> min_severity;  // P0|P1|P2
  std::optional<int64_t> max_findings;
  std::string where;  // FILE:LINE:COLUMN of the output in its pipeline file, for errors
};

struct Pipeline {
  int version = 1;
  std::string source;               // the pipeline file as given to LoadPipeline
  std::vector<std::string> inputs;  // as written (after ${env:...}); relative to the cwd
  // `baseline:`: a second input set, as `inputs`, that plugins comparing
  // input groups (trace-diff) see beside the inputs; empty: one set.
  std::vector<std::string> baseline;
  std::string backend = "auto";  // auto|cpu|cuda|hip
  int threads = 0;               // 0 = all cores
  // Directories searched for plugins, relative ones resolved against the
  // directory of the file that names them.
  std::vector<std::string> plugin_paths;
  std::vector<PluginStep> plugins;  // execution order: dependencies first, ties in file order
  // `kernel_classes:` rules, in file order; matched before the built-in rules
  // (docs/kernel-classes.md). A rule's source defaults to its FILE:LINE.
  std::vector<KernelClassRule> kernel_classes;
  std::vector<OutputSpec> outputs;
  std::optional<FindingSeverity> fail_on;  // P0|P1|P2
};

// The pipeline as YAML with every default written out (`--dump-config`).
// Loading the text again with the same catalog yields the same plan.
std::string DumpEffectivePipeline(const Pipeline& pipeline);

// "bool", "int", "double" or "string".
std::string_view OptionTypeName(OptionType type);

}  // namespace th
