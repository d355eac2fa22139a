#include "cli/fleet_command.h"

#include <iostream>
#include <memory>

#include "core/graph/text_escape.h"
#include "core/report/output_file.h"
#include "core/scan/database_merge.h"
#include "core/scan/fleet_report.h"

namespace th::cli {

namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitRegressions = 3;  // --fail-on-regression and a run regressed

struct FleetReportCommandOptions {
  std::string db = "sqlite:tracehound.db";
  std::string pipeline, baseline, since, until;
  double threshold = 0.10;
  size_t top = 10;
  size_t min_runs = 2;
  std::string format;  // "" = from --out's extension, else md
  std::string out;
  bool fail_on_regression = false;
};

int Report(const FleetReportCommandOptions& o) {
  auto fail = [](const std::string& message) {
    std::cerr << "tracehound fleet report: error: " << PrintableBytes(message) << "\n";
    return kExitBadInput;
  };
  scan::FleetReportOptions options;
  options.pipeline = o.pipeline;
  options.baseline_run = o.baseline;
  options.regression_threshold = o.threshold;
  options.top = o.top;
  options.min_straggler_runs = o.min_runs;
  if (!o.since.empty()) {
    auto t = scan::ParseTimePoint(o.since);
    if (!t.ok()) return fail("--since: " + t.status().message());
    options.since_ns = *t;
  }
  if (!o.until.empty()) {
    auto t = scan::ParseTimePoint(o.until);
    if (!t.ok()) return fail("--until: " + t.status().message());
    options.until_ns = *t;
  }
  std::string format = o.format;
  if (format.empty())
    format = o.out.ends_with(".json") ? "json" : o.out.ends_with(".html") ? "html" : "md";

  auto db = scan::OpenExistingDatabase(o.db);
  if (!db.ok()) return fail(db.status().message());
  auto version = scan::ReadResultsSchemaVersion(**db);
  if (!version.ok()) return fail(version.status().message());
  if (*version == 0)
    return fail((*db)->name() + " is not a tracehound results database (no th_schema table)");
  auto report = scan::BuildFleetReport(**db, options);
  if (!report.ok()) return fail(report.status().message());
  std::string text = format == "json"   ? scan::FleetReportJson(*report)
                     : format == "html" ? scan::FleetReportHtml(*report)
                                        : scan::FleetReportMarkdown(*report);
  Status written = WriteOutput(o.out, text);
  if (!written.ok()) return fail(written.message());
  if (!o.out.empty() && o.out != "-")
    std::cerr << "fleet report (" << format << "): " << o.out << "\n";
  if (o.fail_on_regression && report->regressions_total > 0) {
    std::cerr << "tracehound fleet report: " << report->regressions_total
              << " run(s) regress against the baseline (exit status " << kExitRegressions << ")\n";
    return kExitRegressions;
  }
  return 0;
}

}  // namespace

void AddFleetCommand(CLI::App& app, int* exit_code) {
  CLI::App* fleet = app.add_subcommand("fleet", "Reports over a fleet's results database");
  fleet->require_subcommand(1);
  auto o = std::make_shared<FleetReportCommandOptions>();
  CLI::App* cmd = fleet->add_subcommand(
      "report",
      "Top findings by count and by time lost, ranks and hosts that straggle repeatedly, "
      "step-time regressions against a baseline, failed runs");
  cmd->add_option("--db", o->db, "results database: sqlite:PATH, PATH.db or postgresql://...")
      ->capture_default_str();
  cmd->add_option("--pipeline", o->pipeline,
                  "report the runs of this pipeline_hash (a prefix) when the database holds "
                  "several (default: the one with the most runs)");
  auto* baseline = cmd->add_option(
      "--baseline", o->baseline,
      "baseline run for step-time regressions (compared with its job family): run_id, a "
      "location or folder it was found at, its name, or a run_id prefix");
  auto* since = cmd->add_option("--since", o->since,
                                "baseline = runs captured from this time (UTC "
                                "YYYY-MM-DD[THH:MM[:SS]][Z] or epoch seconds)");
  auto* until = cmd->add_option("--until", o->until, "... and before this time");
  since->excludes(baseline);
  until->excludes(baseline);
  cmd->add_option("--threshold", o->threshold,
                  "a run regresses when its median step is at least (1 + this) x the baseline's")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--top", o->top, "rows per table (top findings, step-time regressions)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--min-runs", o->min_runs,
                  "a rank or host straggles repeatedly when flagged in at least this many runs")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--format", o->format, "md, json or html (default: from --out, else md)")
      ->check(CLI::IsMember({"md", "json", "html"}));
  cmd->add_option("--out,-o", o->out, "write here (atomically) instead of standard output");
  cmd->add_flag("--fail-on-regression", o->fail_on_regression,
                "exit with status 3 when a run regresses against the baseline (for CI gates); "
                "the report is written all the same");
  cmd->callback([o, exit_code] { *exit_code = Report(*o); });
}

}  // namespace th::cli
