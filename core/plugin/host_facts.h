// HostFacts: what the host works out once per pipeline run, for every plugin:
// the kernel class table with, per trace, the rule that decides each distinct
// GPU activity name, and the CUDA/HIP graph capture seen in the trace. The
// plugin host hands both over through the trace views (ABI 1.3).
#pragma once

#include <tracehound/plugin_api.h>

#include <vector>

#include "core/graph/graph_capture.h"
#include "core/graph/kernel_class_table.h"
#include "core/graph/name_classes.h"
#include "core/graph/trace.h"

namespace th {

class HostFacts {
 public:
  // Classifies every trace of `set` (names once per trace) and detects capture.
  HostFacts(const TraceSet& set, KernelClassTable table);
  HostFacts(const HostFacts&) = delete;
  HostFacts& operator=(const HostFacts&) = delete;

  const KernelClassTable& table() const { return table_; }
  // Per trace, in the set's order.
  const NameClasses& names(size_t trace) const { return names_[trace]; }
  const GraphCapture& capture(size_t trace) const { return captures_[trace]; }
  // The table's rules as the ABI's structs (pointing into table()).
  const std::vector<th_class_rule>& c_rules() const { return c_rules_; }

 private:
  KernelClassTable table_;
  std::vector<NameClasses> names_;
  std::vector<GraphCapture> captures_;
  std::vector<th_class_rule> c_rules_;
};

}  // namespace th
