// The costs the runtime writes on device ops (TPU "XLA Ops": `flops`,
// `model_flops`, `bytes_accessed`, from XLA's cost analysis), by event
// metadata of one plane, with an event's own stats taking precedence.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/import/xspace/xspace_model.h"

namespace th::xspace {

struct OpCost {
  static constexpr int64_t kAbsent = -1;
  int64_t flops = kAbsent, model_flops = kAbsent, bytes_accessed = kAbsent;
  bool any() const {
    return flops != kAbsent || model_flops != kAbsent || bytes_accessed != kAbsent;
  }
};

class OpCosts {
 public:
  // Finds the three stats' ids; a metadata's costs are read on its first use.
  explicit OpCosts(const Plane& plane);

  // Whether any event of the plane can carry a cost.
  bool active() const { return active_; }
  // The cost of an event of metadata index `mi` (PlaneTables' index,
  // kNoMetadata when unknown) carrying `stats`.
  OpCost Of(uint32_t mi, std::span<const Stat> stats);

 private:
  // Applies the cost stats among `stats`: an integer value >= 0 (int64,
  // uint64 below 2^63, or an integral double) is kept, others are ignored.
  void Apply(std::span<const Stat> stats, OpCost* c) const;

  const Plane& plane_;
  bool active_ = false;
  int64_t flops_id_ = -1, model_flops_id_ = -1, bytes_id_ = -1;  // stat metadata ids
  std::vector<OpCost> by_metadata_;                              // by event_metadata index
  std::vector<bool> read_;                                       // by event_metadata index
};

}  // namespace th::xspace
