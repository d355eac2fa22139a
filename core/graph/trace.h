// Trace and TraceSet: what an importer hands to the rest of the house.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/event_graph.h"
#include "core/graph/trust_table.h"
#include "core/graph/xla_data.h"

namespace th {

struct DeviceInfo {
  int64_t id = -1;
  std::string name;
  int64_t total_global_mem = 0;  // bytes
  int compute_major = 0;
  int compute_minor = 0;
  int num_sms = 0;
};

struct DistributedInfo {
  std::optional<int64_t> rank;
  std::optional<int64_t> world_size;
  std::string backend;
  std::string nccl_version;
  std::optional<int64_t> pg_count;
};

// XSpace (XProf) captures: what each plane held, for `info`.
struct PlaneSummary {
  std::string name;
  int64_t events = 0;
  std::vector<std::pair<std::string, int64_t>> lines;  // name, events
  std::vector<std::string> stat_names;                 // sorted
};

struct TraceInfo {
  std::string path;                  // file, or "archive.tar.gz:member"
  std::string format;                // "kineto_json", "xprof_json", "xspace"
  std::vector<PlaneSummary> planes;  // xspace only
  int64_t hlo_protos = 0;            // xspace: "Hlo Proto" stats in the metadata plane
  int64_t rank = 0;
  std::string rank_source;  // "distributedInfo", "file name", "order"
  std::vector<DeviceInfo> devices;
  std::optional<DistributedInfo> distributed;
  std::optional<int64_t> base_time_ns;  // baseTimeNanoseconds
  std::string display_time_unit;
  std::optional<int64_t> schema_version;
  // Other top-level keys with their raw JSON values (trace_id, host_name, ...).
  std::map<std::string, std::string> metadata;
  uint64_t file_bytes = 0;  // as stored (compressed size for .gz)
  uint64_t text_bytes = 0;  // JSON text read
  double import_seconds = 0;
  // Where import time went (seconds; parse is summed over threads).
  double read_seconds = 0, parse_seconds = 0, merge_seconds = 0, finish_seconds = 0;
};

struct Trace {
  TraceInfo info;
  EventGraph graph;
  TrustTable trust;
  XlaData xla;  // XProf captures: HLO modules and kernel attribution
};

struct TraceSet {
  std::vector<std::unique_ptr<Trace>> traces;  // ordered by rank
  TrustTable trust;  // defects of the set itself (skipped inputs, duplicate ranks)
};

}  // namespace th
