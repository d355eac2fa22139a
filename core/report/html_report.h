// The self-contained HTML report: one file that opens offline (a CSP forbids
// every fetch), holding the verdict, findings, step breakdown, swimlane of a
// representative step, GPU efficiency and overlap, straggler heat map, memory
// timeline, kernel and op tables, checks and trust list.
//
// The page is the embedded assets (core/report/html/: report.js, report.css,
// the vendored uPlot) plus one JSON blob built here from the report's
// findings, the plugins' derived tables and the event graph. The blob is
// bounded whatever the trace's size (HtmlReportLimits); every reduction is
// listed in the blob's `reductions` and shown on the page.
#pragma once

#include <ostream>
#include <string>

#include "core/graph/status.h"
#include "core/report/analysis_report.h"
#include "core/report/html_timeline.h"

namespace th {

struct HtmlReportLimits {
  TimelineLimits timeline;
  size_t max_table_rows = 1000;       // kernel and op tables
  size_t max_grid_rows = 5000;        // rank x step tables (steps, breakdown, stragglers)
  size_t max_other_rows = 200;        // every other derived table
  size_t max_cell_chars = 300;        // per string cell
  size_t max_main_cell_chars = 1000;  // in kernel, op and the other drawn tables
  size_t max_metrics = 2000;
};

// The data blob (compact JSON) the page reads. `filter`: the findings the
// page shows (finding_groups.h), grouped by cause.
void WriteHtmlReportData(const AnalysisReport& report, const HtmlReportLimits& limits,
                         std::ostream& out, const FindingFilter& filter = {});
// The whole page.
std::string RenderHtmlReport(const AnalysisReport& report, const HtmlReportLimits& limits = {},
                             const FindingFilter& filter = {});
// Renders and writes atomically (output_file.h).
Status WriteHtmlReport(const AnalysisReport& report, const std::string& path,
                       const HtmlReportLimits& limits = {}, const FindingFilter& filter = {});

}  // namespace th
