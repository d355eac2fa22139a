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
// {status ok|failed, error, version, seconds, skipped[{rank, reason}]}), tables (name -> {plugin,
// rows, columns}), trust (list of {id, what, severity, count[, example]}), traces (path, rank).
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/analysis_results.h"
#include "core/graph/trace.h"
#include "core/report/finding_groups.h"

namespace th {

inline constexpr std::string_view kReportSchemaVersion = "1.0";

struct PluginOutcome {
  std::string id, version;
  bool ok = true;
  std::string error;
  double seconds = 0;
};

struct AnalysisReport {
  std::string pipeline;  // the pipeline file that ran
  const TraceSet* traces = nullptr;
  std::vector<PluginOutcome> plugins;  // in run order
  PluginResults results;
};

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
