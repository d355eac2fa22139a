// The report of a pipeline run: terminal summary, Markdown and JSON findings.
//
// JSON contract (versioned by schema_version; keys are added, never renamed):
// schema_version, verdict (OPTIMAL | NEEDS_ATTENTION | NOT_ASSESSED: nothing
// found because nothing could be measured), groups (id, plugin, severity,
// title, scopes, summary, findings: ids, worst first), findings_left_out,
// findings (id, group, plugin, severity, title, what, evidence[{name, value,
// unit, kind}], scope, suggestion, confidence), checks (plugin, name, passed,
// detail), notes (plugin, level note|warning, text), metrics
// (plugin id -> list), plugins (id ->
// {status ok|failed, error, version, seconds, skipped[{rank, reason}]}), timing (import_seconds,
// facts_seconds, plugins_seconds, plugins_summed_seconds, outputs[{type, path, seconds}]),
// tables (name -> {plugin, rows, columns}), trust (list of {id, what, severity, count[, example]}),
// traces (path, rank).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/analysis_results.h"
#include "core/graph/trace.h"
#include "core/report/finding_groups.h"
#include "core/report/investigation.h"

namespace th {

class JsonWriter;

inline constexpr std::string_view kReportSchemaVersion = "1.0";

struct PluginOutcome {
  std::string id, version;
  bool ok = true;
  std::string error;
  double seconds = 0;
};

// An output of the pipeline already written, and the seconds it took.
struct OutputTime {
  std::string type, path;  // path "" for the terminal
  double seconds = 0;
};

// Where a run's time went, in wall-clock seconds (measured).
struct PhaseTimes {
  double import_seconds = 0;   // reading every trace into its event graph
  double facts_seconds = 0;    // catalogs, kernel classes, graph capture, once for all plugins
  double plugins_seconds = 0;  // every plugin, start of the first to end of the last
  // The outputs written before the one being written (an output cannot time
  // itself); the terminal summary is written last and lists every file.
  std::vector<OutputTime> outputs;
};

struct AnalysisReport {
  std::string pipeline;  // the pipeline file that ran
  const TraceSet* traces = nullptr;
  std::vector<PluginOutcome> plugins;  // in pipeline order; they may run at the same time
  PluginResults results;
  PhaseTimes timing;
  // The host's reconciliation checks of `traces`, worked out once by the
  // pipeline for all its outputs; unset: each output works them out.
  std::optional<std::vector<Reconciliation>> reconciliation;
  // What the traces cannot answer (OpenQuestions), likewise worked out once.
  std::optional<std::vector<OpenQuestion>> open_questions;
};

// report.reconciliation, or Reconcile(*report.traces) (none without traces).
std::vector<Reconciliation> ReconciliationOf(const AnalysisReport& report);

// report.open_questions, or OpenQuestions(*report.traces) (none without traces).
std::vector<OpenQuestion> OpenQuestionsOf(const AnalysisReport& report);

// The plugins' own seconds summed (more than plugins_seconds when they overlap).
double PluginSecondsSummed(const AnalysisReport& report);

// The report's `timing` object (the JSON findings and the HTML report's data).
void WriteTimingJson(JsonWriter& w, const AnalysisReport& report);

// OPTIMAL when nothing was found (no finding of severity P0..P2 from any
// plugin or the host; info findings say what the trace is).
std::string_view Verdict(const AnalysisReport& report);

// The traces `plugin` skipped, in the order it reported them.
std::vector<const Skip*> SkipsOf(const AnalysisReport& report, const std::string& plugin);

// "plugin/N": the N-th finding of its plugin, in report order (stable ids
// shared by the JSON findings and the HTML report).
std::vector<std::string> FindingIds(const AnalysisReport& report);

// `filter`: which findings this output shows (finding_groups.h); the
// verdict is always the whole run's.
void WriteReportJson(const AnalysisReport& report, std::ostream& out,
                     const FindingFilter& filter = {});
void WriteReportMarkdown(const AnalysisReport& report, std::ostream& out,
                         const FindingFilter& filter = {});
void WriteReportTerminal(const AnalysisReport& report, std::ostream& out,
                         const FindingFilter& filter = {});

}  // namespace th
