// Running one plugin over a TraceSet: the host side of the ABI. Builds the
// read-only views (no copy of event columns), hands over the host function
// table, and collects what the plugin reports into PluginResults.
#pragma once

#include <tracehound/kernels/dispatch.h>

#include <map>
#include <string>
#include <vector>

#include "core/graph/analysis_results.h"
#include "core/graph/status.h"
#include "core/graph/trace.h"
#include "core/plugin/host_facts.h"
#include "core/plugin/plugin_declaration.h"
#include "core/plugin/plugin_loader.h"

namespace th {

// `options`: every declared option with its value (defaults filled). A plugin
// that reports failure, or throws, gives an error naming the plugin and its
// message; what it reported before failing is kept.
// `backend`: where the plugin's compute primitives run (pipeline
// `execution.backend`). `facts`: the kernel classes and graph capture of
// `traces` (the pipeline computes them once for all its plugins); null: the
// built-in class table, worked out for this call.
Status RunPlugin(const LoadedPlugin& plugin, const TraceSet& traces,
                 const std::map<std::string, OptionValue>& options, PluginResults* results,
                 kernels::BackendChoice backend = kernels::BackendChoice::kAuto,
                 const HostFacts* facts = nullptr);

// How a pipeline runs one plugin among others that may run at the same time.
struct PluginRunContext {
  kernels::BackendChoice backend = kernels::BackendChoice::kAuto;
  const HostFacts* facts = nullptr;  // null: the built-in class table, for this call
  // Results of the plugins that finished before this one (its table
  // producers among them); find_table looks in `results` first, then in
  // these in order. None is written while the plugin runs.
  std::vector<const PluginResults*> upstream;
  // false: the plugin's log lines are only recorded as notes; the caller
  // echoes them (EchoPluginNotes) in an order of its choosing.
  bool echo_log = true;
  // A pipeline with two input sets: `traces` are its inputs (group
  // "inputs"), these its baseline (group "baseline"), their facts, and the
  // results of the plugin's producers run over the baseline. Only a plugin
  // declaring input_groups sees the baseline traces and reads these results
  // (find_group_table); null: one input set (group "").
  const TraceSet* baseline = nullptr;
  const HostFacts* baseline_facts = nullptr;
  std::vector<const PluginResults*> baseline_upstream;
};

Status RunPlugin(const LoadedPlugin& plugin, const TraceSet& traces,
                 const std::map<std::string, OptionValue>& options, PluginResults* results,
                 const PluginRunContext& context);

// Writes notes to stderr as a running plugin does, at or above the log level.
void EchoPluginNotes(const std::vector<Note>& notes);

// Plugins' log messages go to stderr from this level up: 0 notes and warnings
// (the default), 1 warnings only (fleet scans), 2 none. Process-wide.
void SetPluginLogLevel(int min_level);

}  // namespace th
