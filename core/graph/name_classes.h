// NameClasses: the kernel class table applied to one trace, once per distinct
// name of a GPU activity (kernel, memcpy, memset, sync), not per event.
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph/event_graph.h"
#include "core/graph/kernel_class_table.h"

namespace th {

// What the kind alone says when no rule of `set` matched: tracehound gives
// kernels COMP, memcpy/memset MEM, syncs and CUDA events OTHER; HTA gives
// every GPU row COMP (its last rule matches everything anyway). kNone for an
// event that is no GPU activity.
KernelClass DefaultKernelClass(RuleSet set, EventKind kind);
// Kernel, memcpy, memset, sync, CUDA event (inline: asked of every event).
inline bool IsClassifiedKind(EventKind kind) {
  return IsGpuActivity(kind) || kind == EventKind::kGpuSync || kind == EventKind::kGpuEvent;
}

struct NameClasses {
  // Per string id of the trace: the index in the table of the first matching
  // rule of each set, KernelClassTable::kNoRule when none matched or the string
  // names no GPU activity.
  std::vector<uint32_t> rule, hta_rule;
};

NameClasses ClassifyNames(const EventGraph& graph, const KernelClassTable& table);

// The class of event `e` under `set`: its name's rule, else its kind's default.
KernelClass ClassOfEvent(const EventGraph& graph, const KernelClassTable& table,
                         const NameClasses& names, RuleSet set, EventId e);

}  // namespace th
