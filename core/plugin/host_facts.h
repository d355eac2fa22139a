// HostFacts: what the host works out once per pipeline run, for every plugin:
// the kernel class table with, per trace, the rule that decides each distinct
// GPU activity name, the CUDA/HIP graph capture seen in the trace, the launch
// call of each event, the GPU activity's rows, and each trace's table catalog
// (the event graph's tables plus these facts as name_classes, class_rules,
// graph_capture, event_launches and gpu_activity).
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph/graph_capture.h"
#include "core/graph/kernel_class_table.h"
#include "core/graph/name_classes.h"
#include "core/graph/table_catalog.h"
#include "core/graph/trace.h"

namespace th {

class HostFacts {
 public:
  // Classifies every trace of `set` (names once per trace), detects capture
  // and builds the catalogs. `set` must outlive this object (the catalogs
  // point into its traces).
  HostFacts(const TraceSet& set, KernelClassTable table);
  HostFacts(const HostFacts&) = delete;
  HostFacts& operator=(const HostFacts&) = delete;

  const KernelClassTable& table() const { return table_; }
  // Per trace, in the set's order.
  const NameClasses& names(size_t trace) const { return names_[trace]; }
  const GraphCapture& capture(size_t trace) const { return captures_[trace]; }

  // The catalog of trace `trace`: every core table.
  const TraceTables& tables(size_t trace) const { return tables_[trace]; }

  // event_launches' columns: the launched events ascending, their launch calls.
  struct Launches {
    std::vector<uint32_t> event, launch;
  };

 private:
  // Registers name_classes, class_rules, graph_capture, event_launches and
  // gpu_activity of trace `trace`.
  void AddTables(size_t trace, TraceTables* tables) const;

  struct CaptureRow {
    uint8_t dominates = 0, hip = 0;
    int64_t begin_calls = 0, end_calls = 0, instantiations = 0, graph_launches = 0,
            captured_launches = 0, executed_launches = 0, kernels = 0, first_ts = 0, last_end = 0;
  };
  KernelClassTable table_;
  std::vector<NameClasses> names_;
  std::vector<GraphCapture> captures_;
  std::vector<CaptureRow> capture_rows_;
  std::vector<Launches> launches_;
  std::vector<std::vector<uint32_t>> gpu_activity_;  // per trace, its rows ascending
  // class_rules' columns, pointing into table_.
  std::vector<uint32_t> rule_set_, rule_class_, rule_ignore_case_;
  std::vector<const char*> rule_match_, rule_source_;
  std::vector<TraceTables> tables_;
};

}  // namespace th
