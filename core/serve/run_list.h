// The run browser's list: one summary per run of `tracehound serve` (what a
// user sorts and filters by), and GET /api/v1/runs's sort, filter and paging,
// done on the server. Summaries come from the fleet database (serve_db_runs.h)
// or from the files and, once a run is open, from its analysis.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/report/json_writer.h"
#include "core/serve/serve_params.h"

namespace th::serve {

struct TopFinding {
  int64_t severity = 3;  // 0..3: P0, P1, P2, info
  std::string plugin, title;
};

struct RunSummary {
  std::string name, location;
  std::string host;                 // "" = not known
  std::string family;               // the fleet database's job family; "" = not known
  std::optional<int64_t> time_ns;   // ns since the Unix epoch
  std::string time_kind;            // "captured" (the trace's clock) or "modified" (file mtime)
  std::optional<int64_t> ranks;     // traces of the run (ranks, or hosts of an XProf session)
  std::string verdict;              // OPTIMAL, NEEDS_ATTENTION, FAILED; "" = not analysed
  std::optional<int64_t> findings;  // how many; nullopt = not analysed
  std::optional<TopFinding> top;    // the most severe finding, the first of its severity
  std::optional<int64_t> steps;     // steps over all ranks, and their durations (ns):
  std::optional<int64_t> step_p50_ns, step_min_ns, step_max_ns;  // p50 = lower median
  std::vector<std::string> tags;  // folders of the location under the served root
  std::string source;             // "database" or "files": where the analysis comes from
  std::string db_run_id;          // the database's run_id; "" for a run of files
};

// The median as the list defines it: sorted ascending, element (n - 1) / 2.
int64_t LowerMedian(std::vector<int64_t> values);

// Tags of each location: its folders after the folders every location shares
// (a run's own folder included; the file or pattern itself is not a tag).
std::vector<std::vector<std::string>> PathTags(const std::vector<std::string>& locations);

enum class RunSortKey {
  kRun,
  kName,
  kTime,
  kHost,
  kRanks,
  kVerdict,
  kSeverity,
  kStepP50,
  kStepRange,
  kFindings
};

// GET /api/v1/runs query: sort=[-]KEY (run, name, time, host, ranks, verdict,
// severity, step_p50, step_range, findings; '-' descending; missing values last
// either way; ties by run number), q (case-insensitive substring of name,
// location, host, verdict, tags, the top finding's plugin and title), tag
// (repeatable: every one must be a tag of the run), verdict, host, family
// (exact), offset, limit (default: all).
struct RunListQuery {
  RunSortKey sort = RunSortKey::kRun;
  bool descending = false;
  std::string text;
  std::vector<std::string> tags;
  std::optional<std::string> verdict, host, family;
  int64_t offset = 0;
  std::optional<int64_t> limit;
};

// Checks the parameters; an error names the bad one.
StatusOr<RunListQuery> ParseRunListQuery(const QueryParams& params);

// The run numbers (positions in `runs`) that match, in the query's order,
// before paging; `total` in the answer is their count.
std::vector<size_t> SelectRuns(const std::vector<RunSummary>& runs, const RunListQuery& query);

// The summary's fields into an open object: "location","host","family","time_ns",
// "time_kind","ranks","verdict","findings","top_finding":{"severity","plugin",
// "title"},"steps","step_p50_ns","step_min_ns","step_max_ns","tags","source";
// what is not known is null.
void WriteRunSummaryFields(JsonWriter& w, const RunSummary& run);

}  // namespace th::serve
