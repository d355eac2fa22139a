// TraceSummary: what `tracehound info` tells about a trace or a set of them.
// Every number is *measured* from the trace; nothing is inferred here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/trace.h"

namespace th {

struct DurationTotal {
  int64_t count = 0;
  int64_t total_ns = 0;
};

// A row of the kernel-stats plugin's table, as `info` shows it.
struct KernelTotal {
  std::string name;
  int64_t count = 0;
  int64_t total_ns = 0;
};

struct TraceSummary {
  std::string path;  // empty for a set
  int64_t rank = 0;
  std::string rank_source;
  std::string format;
  int64_t events = 0;
  std::map<std::string, int64_t> events_by_phase;     // "X", "i", ...; "<none>" when missing
  std::map<std::string, int64_t> events_by_category;  // exact spelling; "<none>" when missing
  std::map<std::string, int64_t> events_by_kind;
  DurationTotal kernels, memcpy, memset;
  int64_t gpu_streams = 0;  // distinct (pid, tid) with kernels, copies or sets
  int64_t steps = 0;        // ProfilerStep#N windows on the host
  std::vector<int64_t> step_numbers;
  int64_t profiler_step_events = 0;  // host + GPU annotations named ProfilerStep#N
  int64_t memory_events = 0;
  std::optional<int64_t> peak_total_allocated;  // bytes
  std::optional<int64_t> peak_total_reserved;
  int64_t launch_edges = 0, kernels_with_launch = 0, flow_edges = 0;
  std::optional<int64_t> first_ts_ns, last_end_ns;  // trace clock, ph != M
  std::optional<int64_t> base_time_ns;
  // How ts relates to wall-clock time (rules in TimestampBasis()), and the
  // capture's first event as Unix epoch ns when that is known.
  std::string timestamp_basis;
  std::optional<int64_t> epoch_start_ns;
  std::vector<DeviceInfo> devices;
  std::vector<TrustEntry> trust;
  uint64_t file_bytes = 0, text_bytes = 0;
  double import_seconds = 0;
  double read_seconds = 0, parse_seconds = 0, merge_seconds = 0, finish_seconds = 0;
  size_t graph_bytes = 0, string_bytes = 0;  // resident tables, interned strings
  int64_t ranks = 1;
};

TraceSummary Summarize(const Trace& trace);
// Totals over the set; `traces` receives one summary per trace.
TraceSummary SummarizeSet(const TraceSet& set, std::vector<TraceSummary>* traces);

}  // namespace th
