#include "cli/scan_command.h"

#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <iostream>
#include <limits>
#include <memory>

#include "cli/pipeline_setup.h"
#include "core/graph/text_escape.h"
#include "core/pipeline/pipeline_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/scan/database.h"
#include "core/scan/database_merge.h"
#include "core/scan/results_schema.h"
#include "core/scan/run_discovery.h"
#include "core/scan/run_dispatcher.h"
#include "core/scan/scan_partition.h"
#include "core/scan/scanner.h"

namespace th::cli {

namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitInterrupted = 130;

struct ScanCommandOptions {
  std::vector<std::string> inputs;
  std::string pipeline = "fleet-scan";
  std::string db = "sqlite:tracehound.db";
  std::vector<std::string> set;
  std::vector<std::string> plugin_paths;
  int jobs = 0;
  double memory_gb = 0;
  bool retry_failed = false;
  bool keep_truncated = false;
  std::string progress = "auto";
  bool list = false;
  bool verbose = false;
  std::string shard;
};

// SIGINT / SIGTERM: the first asks the scan to stop after the runs in flight
// (they commit); the second ends the process (whole runs only, as always).
std::atomic<bool> interrupt_requested{false};
extern "C" void OnInterrupt(int sig) {
  if (interrupt_requested.exchange(true)) {
    signal(sig, SIG_DFL);
    raise(sig);
  }
}

// Runs follow one another in this process, each allocating and freeing much
// the same buffers: blocks up to 32 MiB stay in the heap when freed and the
// heap is never trimmed, so the next run reuses them instead of faulting
// fresh pages in (page faults were a quarter of a small run's CPU). Peak
// memory is unchanged; what is kept is at most the largest run's blocks per
// allocator arena. Overrides main's 1 MiB mmap threshold for this command.
void KeepFreedMemoryForNextRuns() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
}

int Fail(const std::string& message) {
  std::cerr << "tracehound scan: error: " << PrintableBytes(message) << "\n";
  return kExitBadInput;
}

int Scan(const ScanCommandOptions& o) {
  KeepFreedMemoryForNextRuns();
  TrustTable skipped;
  auto runs = scan::DiscoverRuns(o.inputs, &skipped);
  if (!runs.ok()) return Fail(runs.status().message());
  if (runs->empty()) return Fail("no trace files found in the inputs given");
  if (o.list) {
    for (const scan::Run& r : *runs)
      std::cout << r.location << "\t" << r.files.size() << " files\t" << r.bytes << " B\t" << r.name
                << "\n";
    return 0;
  }
  LoadPipelineOptions load;
  load.set_overrides = o.set;
  std::string pipeline_path = ResolvePipelinePath(o.pipeline);
  PluginRegistry registry;
  auto pipeline = LoadPipelineAndPlugins(pipeline_path, o.plugin_paths, load, &registry);
  if (!pipeline.ok()) return Fail(pipeline.status().message());

  // Which runs this process scans and where it writes: every run into --db,
  // a shard of a scheduler array, or an MPI rank (scan_partition.h).
  scan::PartitionOptions po;
  po.shard = o.shard;
  po.db_url = o.db;
  auto partition = scan::MakeRunDispatcher(po, runs->size());
  if (!partition.ok()) return Fail(partition.status().message());
  scan::ScanPartition& part = **partition;
  auto fail = [&](const std::string& message) {
    int code = Fail((part.label().empty() ? "" : part.label() + ": ") + message);
    part.Fail(code);
    return code;
  };
  if (!part.label().empty()) std::cerr << "tracehound scan: " << part.label() << "\n";

  auto db = scan::OpenDatabase(part.db_url());
  if (!db.ok()) return fail(db.status().message());
  Status migrated = scan::MigrateResultsSchema(**db);
  if (!migrated.ok()) return fail(migrated.message());

  // An MPI rank writing a file of its own skips what --db already holds
  // (when it exists and has this schema; it is only read).
  std::unique_ptr<scan::Database> skip_db;
  if (std::string skip_url = part.skip_db_url(); !skip_url.empty()) {
    auto opened = scan::OpenExistingDatabase(skip_url);
    if (opened.ok()) {
      auto version = scan::ResultsSchemaVersion(**opened);
      if (version.ok() && *version == scan::kResultsSchemaVersion) skip_db = std::move(*opened);
    }
  }

  // Thousands of runs: the plugins' notes and warnings (which do not name the
  // run) only with --verbose; what they found is in the rows.
  SetPluginLogLevel(o.verbose ? 0 : 2);
  scan::ScanOptions options;
  options.pipeline = &*pipeline;
  options.registry = &registry;
  options.jobs = o.jobs;
  options.memory_bytes = static_cast<uint64_t>(o.memory_gb * 1e9);
  options.retry_failed = o.retry_failed;
  options.skip_db = skip_db.get();
  options.load.import.keep_truncated = o.keep_truncated;
  options.expected_runs = part.planned_runs().value_or(runs->size());
  bool terminal =
      o.progress == "bar" || (o.progress == "auto" && part.primary() && isatty(STDERR_FILENO));
  std::unique_ptr<scan::ScanProgress> progress;
  if (o.progress != "none") progress = std::make_unique<scan::ScanProgress>(std::cerr, terminal);
  options.interrupt = &interrupt_requested;
  signal(SIGINT, OnInterrupt);
  signal(SIGTERM, OnInterrupt);
  auto summary = scan::RunScan(options, *runs, part.dispatcher(), **db, progress.get());
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  if (!summary.ok()) return fail(summary.status().message());
  if (summary->interrupted) {
    std::cerr << "tracehound scan: interrupted; the runs scanned so far are committed, run the "
                 "same command again to resume\n";
    part.Fail(kExitInterrupted);
    return kExitInterrupted;
  }
  std::string db_name = (*db)->name();
  db->reset();  // closed before Finish (MPI: rank 0 merges the rank files)
  skip_db.reset();
  std::string finished;
  Status done = part.Finish(&finished);
  if (!done.ok()) return Fail(done.message());
  if (!finished.empty()) std::cerr << "tracehound scan: " << finished << "\n";
  if (summary->failed > 0) {
    std::cerr << "tracehound scan: " << summary->failed << " of " << summary->handled
              << " runs failed (exit status " << scan::ScanExitCode(*summary) << "):\n";
    for (const std::string& f : summary->failures) std::cerr << "  " << f << "\n";
  }
  std::cout << "scanned " << summary->scanned << ", skipped " << summary->skipped << " (already in "
            << db_name << "), failed " << summary->failed;
  if (summary->failed_stored > 0)
    std::cout << " (" << summary->failed_stored
              << " stored by an earlier scan; --retry-failed scans them again)";
  std::cout << ", not traces " << summary->not_traces << "\n";
  return scan::ScanExitCode(*summary);
}

}  // namespace

void AddScanCommand(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ScanCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "scan",
      "Run a pipeline over a fleet of runs (directories, globs, archives) into a results "
      "database; resumable. Exit status: 0, or 10 + the number of failed runs (at most 110)");
  cmd->add_option("inputs", o->inputs, "traces: files, directories, globs, archives")->required();
  cmd->add_option("--pipeline,-p", o->pipeline, "pipeline file, or the name of a shipped config")
      ->capture_default_str();
  cmd->add_option("--db", o->db, "results database: sqlite:PATH or postgresql://...")
      ->capture_default_str();
  cmd->add_option("--jobs,-j", o->jobs, "runs scanned at once (0 = one per core)")
      ->capture_default_str()
      ->check(CLI::Range(0, 4096));
  cmd->add_option("--memory", o->memory_gb,
                  "memory budget in GB for runs in flight (0 = half of the available memory)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e6));
  cmd->add_flag("--retry-failed", o->retry_failed, "scan again the runs stored as failed");
  cmd->add_flag("--keep-truncated", o->keep_truncated,
                "read the complete events of truncated traces");
  cmd->add_option("--progress", o->progress,
                  "auto (a bar on a terminal, lines otherwise), bar, lines or none")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "bar", "lines", "none"}));
  cmd->add_flag("--list", o->list, "print the runs found (location, files, bytes, name) and exit");
  cmd->add_option("--shard", o->shard,
                  "scan one shard of a scheduler array: i/N, /N (index from SLURM_ARRAY_TASK_ID "
                  "or JOB_COMPLETION_INDEX) or auto; --db may hold {shard}");
  cmd->add_flag("--verbose,-v", o->verbose, "also print the plugins' notes and warnings");
  cmd->add_option("--set", o->set, "override a pipeline value (as in `tracehound run`)");
  cmd->add_option("--plugin-path", o->plugin_paths, "also look for plugins in this directory");
  cmd->callback([o, exit_code] { *exit_code = Scan(*o); });
}

}  // namespace th::cli
