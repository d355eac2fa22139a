#include "core/import/xspace/op_costs.h"

#include <cmath>

namespace th::xspace {
namespace {

// The stat as a count, or OpCost::kAbsent.
int64_t CountOf(const Stat& s) {
  switch (s.kind) {
    case StatKind::kInt64:
      return s.int64_value() >= 0 ? s.int64_value() : OpCost::kAbsent;
    case StatKind::kUint64:
      return s.uint64_value() <= static_cast<uint64_t>(INT64_MAX)
                 ? static_cast<int64_t>(s.uint64_value())
                 : OpCost::kAbsent;
    case StatKind::kDouble: {
      const double d = s.double_value();
      if (!(d >= 0 && d < 9.2e18) || std::floor(d) != d) return OpCost::kAbsent;
      return static_cast<int64_t>(d);
    }
    default:
      return OpCost::kAbsent;
  }
}

}  // namespace

OpCosts::OpCosts(const Plane& plane) : plane_(plane) {
  for (const StatMetadata& m : plane.stat_metadata) {  // the last of a name wins
    if (m.name == "flops") flops_id_ = m.id;
    if (m.name == "model_flops") model_flops_id_ = m.id;
    if (m.name == "bytes_accessed") bytes_id_ = m.id;
  }
  active_ = flops_id_ != -1 || model_flops_id_ != -1 || bytes_id_ != -1;
  if (!active_) return;
  by_metadata_.resize(plane.event_metadata.size());
  read_.resize(plane.event_metadata.size());
}

void OpCosts::Apply(std::span<const Stat> stats, OpCost* c) const {
  for (const Stat& s : stats) {
    const int64_t id = s.metadata_id;
    if (id != flops_id_ && id != model_flops_id_ && id != bytes_id_) continue;
    const int64_t v = CountOf(s);
    if (v == OpCost::kAbsent) continue;
    if (id == flops_id_) c->flops = v;
    if (id == model_flops_id_) c->model_flops = v;
    if (id == bytes_id_) c->bytes_accessed = v;
  }
}

OpCost OpCosts::Of(uint32_t mi, std::span<const Stat> stats) {
  OpCost c;
  if (!active_) return c;
  if (mi < by_metadata_.size()) {
    if (!read_[mi]) {
      Apply(plane_.event_metadata[mi].stats, &by_metadata_[mi]);
      read_[mi] = true;
    }
    c = by_metadata_[mi];
  }
  if (!stats.empty()) Apply(stats, &c);
  return c;
}

}  // namespace th::xspace
