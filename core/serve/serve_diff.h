// The diff view's answer (GET /api/v1/diff?a=RUN&b=RUN): DiffRuns on the two
// runs' imported traces (schema tracehound.diff/1, docs/diff.md) plus what
// the viewer needs to align and frame them, computed once per pair on a
// thread of its own and kept in memory.
//
// Answer: {"a":A,"b":B,"pairs":[{"a_step","b_step","a_start_ns","a_end_ns",
// "b_start_ns","b_end_ns"}],"rows":[{"a_names":[…],"b_names":[…],
// "a_first":[[start,end,id]|null per pair],"b_first":[…]}],"diff":{…}}. Pair k
// is the k-th kept (steady-state) step of A with the k-th of B; times are ns
// relative to each run's origin. rows[i] belongs to diff.aggregate[i]: the
// raw event names whose normalised name is the row's (sorted), and its first
// instance in each pair's step on each side (by the diff's step rule: a host
// event by its start, GPU work by its launch's start): start, end and event id
// (as /runs/{run}/events/{id} takes it).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "core/graph/analysis_results.h"
#include "core/graph/status.h"
#include "core/serve/serve_api.h"
#include "core/serve/serve_run.h"

namespace th::serve {

// Runs the `steps` and `step-breakdown` plugins on one side's traces
// (th::diff::RunDiffPlugins with the server's plugin registry).
using DiffPluginsSource = std::function<StatusOr<PluginResults>(const TraceSet& traces)>;

// The answer above for runs `a` and `b` (both ready, numbers a_num, b_num).
// A run of several ranks is refused (InvalidInput): its events live in a
// merged graph the diff does not read.
StatusOr<std::string> DiffViewJson(const ServeRun& a, size_t a_num, const ServeRun& b, size_t b_num,
                                   const DiffPluginsSource& plugins);

// The computed answers per (a, b) pair. Thread-safe; the destructor waits
// for the diffs still running.
class DiffViews {
 public:
  explicit DiffViews(DiffPluginsSource plugins) : plugins_(std::move(plugins)) {}
  ~DiffViews();
  DiffViews(const DiffViews&) = delete;
  DiffViews& operator=(const DiffViews&) = delete;

  // 200 with the answer; 503 while a run imports or the diff
  // runs (the first such call starts it); 400 for a missing or bad a/b or a
  // run of several ranks; 404 for a run number that is not a run (or no
  // plugins); 500 when the diff failed.
  ApiResponse Answer(const Runs& runs, const QueryParams& params);

 private:
  struct Entry {
    bool done = false;
    bool ok = false;
    std::string text;  // the answer, or the error
    std::thread thread;
  };
  DiffPluginsSource plugins_;
  std::mutex mu_;
  std::map<std::pair<size_t, size_t>, std::unique_ptr<Entry>> entries_;
};

}  // namespace th::serve
