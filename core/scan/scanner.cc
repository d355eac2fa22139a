#include "core/scan/scanner.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "core/graph/utc_time.h"
#include "core/pipeline/pipeline_runner.h"
#include "core/scan/content_hash.h"
#include "core/scan/memory_budget.h"
#include "core/scan/pipeline_record.h"
#include "core/scan/result_writer.h"

namespace th::scan {

namespace {

std::string UtcNow() { return FormatUtcNow("%Y-%m-%dT%H:%M:%SZ"); }

std::string DefaultWorker() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = 0;
  return std::string(host) + ":" + std::to_string(getpid());
}

}  // namespace

int ScanExitCode(const ScanSummary& summary) {
  if (summary.failed == 0) return 0;
  return 10 + static_cast<int>(std::min<size_t>(summary.failed, 100));
}

StatusOr<ScanSummary> RunScan(const ScanOptions& options, const std::vector<Run>& runs,
                              RunDispatcher& dispatcher, Database& db, ScanProgress* progress) {
  if (!options.pipeline || !options.registry)
    return InvalidInput("scan: no pipeline or plugin registry given");
  const std::string pipeline_hash = options.pipeline_hash.empty()
                                        ? PipelineHash(*options.pipeline, *options.registry)
                                        : options.pipeline_hash;
  const std::string worker_name = options.worker.empty() ? DefaultWorker() : options.worker;
  int jobs = options.jobs > 0 ? options.jobs
                              : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  MemoryBudget budget(options.memory_bytes ? options.memory_bytes : DefaultMemoryBudget());
  TH_RETURN_IF_ERROR(WritePipelineRecord(
      db, MakePipelineRecord(*options.pipeline, *options.registry, pipeline_hash)));

  auto started = std::chrono::steady_clock::now();
  if (progress) {
    uint64_t bytes = 0;
    for (const Run& r : runs) bytes += r.bytes;
    size_t expected = options.expected_runs ? options.expected_runs : runs.size();
    if (expected != runs.size() && !runs.empty())
      bytes = bytes / runs.size() * expected;  // the average run, for the ETA
    progress->Start(expected, bytes);
  }

  std::mutex db_mu, summary_mu;
  ScanSummary summary;
  std::map<size_t, std::string> failures;
  Status fatal = Ok();
  std::atomic<bool> stop{false};
  auto set_fatal = [&](const Status& s) {
    std::lock_guard<std::mutex> lock(summary_mu);
    if (fatal.ok()) fatal = s;
    stop = true;
  };

  auto scan_one = [&](size_t index) {
    const Run& run = runs[index];
    auto t0 = std::chrono::steady_clock::now();
    RunRecord record;
    record.pipeline_hash = pipeline_hash;
    record.location = run.location;
    record.name = run.name;
    record.bytes = static_cast<int64_t>(run.bytes);
    record.worker = worker_name;

    // 1. Hashes. An unreadable file leaves the run without content: it is
    // named by its location instead.
    std::vector<std::string> hashes;
    std::vector<std::pair<std::string, std::string>> named;
    std::string read_error;
    for (const RunFile& f : run.files) {
      auto h = HashRunFile(f.path);
      if (!h.ok() && read_error.empty()) read_error = h.status().message();
      hashes.push_back(h.ok() ? *h : "");
      named.emplace_back(std::filesystem::path(f.path).filename().string(), hashes.back());
    }
    record.content_hash =
        read_error.empty() ? CombineFileHashes(named) : "unreadable-" + HashBytes(run.location);
    record.run_id = record.content_hash + ":" + pipeline_hash;

    // 2. Already stored? Its location is recorded; a stored failure still
    // counts as failed.
    {
      std::lock_guard<std::mutex> lock(db_mu);
      std::string stored_error;
      auto stored = CheckStoredRun(db, record, options.retry_failed, &stored_error);
      if (!stored.ok()) return set_fatal(stored.status());
      if (*stored == StoredRun::kKeep || *stored == StoredRun::kKeepFailed) {
        auto added = RecordRunLocation(db, record, UtcNow());
        if (!added.ok()) return set_fatal(added.status());
      }
      if (*stored == StoredRun::kAbsent && options.skip_db) {
        stored = CheckStoredRun(*options.skip_db, record, options.retry_failed, &stored_error);
        if (!stored.ok()) return set_fatal(stored.status());
        if (*stored == StoredRun::kReplace) stored = StoredRun::kAbsent;
      }
      if (*stored == StoredRun::kKeep || *stored == StoredRun::kKeepFailed) {
        const bool failed = *stored == StoredRun::kKeepFailed;
        {
          std::lock_guard<std::mutex> s(summary_mu);
          if (failed) {
            ++summary.failed;
            ++summary.failed_stored;
            failures[index] = run.location + ": " + stored_error + " (stored by an earlier scan)";
          } else {
            ++summary.skipped;
          }
        }
        dispatcher.Done(index, failed);
        if (progress)
          progress->RunDone(
              run.location, run.bytes,
              failed ? ScanProgress::Outcome::kFailed : ScanProgress::Outcome::kSkipped, 0,
              failed ? stored_error + " (stored by an earlier scan)" : "");
        return;
      }
    }

    // 3. The pipeline.
    bool not_trace = false;
    if (read_error.empty()) {
      std::vector<std::string> paths;
      for (const RunFile& f : run.files) paths.push_back(f.path);
      uint64_t taken = budget.Acquire(EstimateRunBytes(run));
      {
        // The traces are freed at the end of this scope, before the memory
        // is given back.
        auto result = RunPipeline(*options.pipeline, *options.registry, paths, options.load);
        // A file of a several-file run that is not a trace (a JSON config
        // beside the rank traces) is left out, and the rest imported again.
        while (!result.ok() && NotATrace(result.status()) && paths.size() > 1) {
          auto bad = std::find_if(paths.begin(), paths.end(), [&](const std::string& p) {
            return result.status().message().rfind(p + ":", 0) == 0;
          });
          if (bad == paths.end()) break;
          paths.erase(bad);
          result = RunPipeline(*options.pipeline, *options.registry, paths, options.load);
        }
        if (result.ok()) {
          FillRunRecord(run, hashes, **result, &record);
        } else {
          not_trace = NotATrace(result.status());
          read_error = result.status().message();
        }
      }
      budget.Release(taken);
    }
    if (!read_error.empty() && !not_trace) {
      record.failed = true;
      record.error = read_error;
      for (size_t i = 0; i < run.files.size(); ++i) {
        TraceRow row;
        row.path = run.files[i].path;
        row.file_hash = hashes[i];
        row.bytes = static_cast<int64_t>(run.files[i].bytes);
        record.traces.push_back(std::move(row));
      }
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (not_trace) {
      {
        std::lock_guard<std::mutex> s(summary_mu);
        ++summary.not_traces;
      }
      dispatcher.Done(index, false);
      if (progress)
        progress->RunDone(run.location, run.bytes, ScanProgress::Outcome::kNotTrace, seconds,
                          read_error);
      return;
    }

    // 4. Rows.
    record.scanned_at = UtcNow();
    record.scan_seconds = seconds;
    bool written = false;
    {
      std::lock_guard<std::mutex> lock(db_mu);
      auto w = WriteRunRecord(db, record, options.retry_failed);
      if (!w.ok()) return set_fatal(w.status());
      written = *w;
    }
    {
      std::lock_guard<std::mutex> s(summary_mu);
      if (!written) {
        ++summary.skipped;
      } else if (record.failed) {
        ++summary.failed;
        failures[index] = run.location + ": " + record.error;
      } else {
        ++summary.scanned;
        summary.bytes_scanned += run.bytes;
      }
    }
    dispatcher.Done(index, record.failed);
    if (progress) {
      progress->RunDone(run.location, run.bytes,
                        !written        ? ScanProgress::Outcome::kSkipped
                        : record.failed ? ScanProgress::Outcome::kFailed
                                        : ScanProgress::Outcome::kScanned,
                        seconds, record.error);
    }
  };

  std::atomic<bool> interrupted{false};
  auto work = [&] {
    while (!stop) {
      if (options.interrupt && options.interrupt->load()) {
        interrupted = true;
        break;
      }
      auto next = dispatcher.Next();
      if (!next) break;
      if (*next >= runs.size()) {
        set_fatal(Internal("scan: dispatcher gave run " + std::to_string(*next) + " of " +
                           std::to_string(runs.size())));
        break;
      }
      {
        std::lock_guard<std::mutex> s(summary_mu);
        ++summary.handled;
      }
      scan_one(*next);
    }
  };
  std::vector<std::thread> threads;
  for (int i = 1; i < jobs; ++i) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();

  summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  for (auto& [i, f] : failures) summary.failures.push_back(std::move(f));
  summary.interrupted = interrupted;
  if (progress) progress->Finish();
  if (!fatal.ok()) return fatal;
  return summary;
}

}  // namespace th::scan
