#include "core/import/xspace/plane_tables.h"

#include <algorithm>
#include <string>

namespace th::xspace {

namespace {

// A table of `span` slots for `count` keys is worth it when it is not much
// bigger than the keys themselves.
bool DenseEnough(uint64_t span, size_t count) { return span <= 4 * uint64_t{count} + 4096; }

EventKind DeviceKind(std::string_view name) {
  if (name.starts_with("Memcpy")) return EventKind::kMemcpy;
  if (name.starts_with("Memset")) return EventKind::kMemset;
  return EventKind::kKernel;
}

}  // namespace

DenseIndex::DenseIndex(const std::unordered_map<int64_t, uint32_t>& index) : index_(index) {
  if (index.empty()) {
    dense_ = true;
    return;
  }
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& [key, i] : index) {
    lo = std::min(lo, key);
    hi = std::max(hi, key);
  }
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);  // + 1 below
  if (span >= UINT64_MAX / 2 || !DenseEnough(span + 1, index.size())) return;
  dense_ = true;
  min_ = lo;
  table_.assign(span + 1, kAbsent);
  for (const auto& [key, i] : index)
    table_[static_cast<uint64_t>(key) - static_cast<uint64_t>(lo)] = i;
}

PlaneTables::PlaneTables(const Plane& plane)
    : plane_(plane),
      md_index_(plane.event_metadata_index),
      stat_index_(plane.stat_metadata_index),
      hot_(plane.event_metadata.size()),
      md_(plane.event_metadata.size()),
      stat_name_ids_(plane.stat_metadata.size(), kUnsetId) {
  // The label stats by name; the last stat metadata of a name wins.
  constexpr std::pair<std::string_view, LabelSlot> kNames[] = {{"correlation_id", kCorrelation},
                                                               {"program_id", kProgramId},
                                                               {"group_id", kGroupId},
                                                               {"hlo_op", kHloOp},
                                                               {"hlo_module", kHloModule},
                                                               {"tf_op", kTfOp},
                                                               {"name", kName},
                                                               {"source", kSource}};
  int64_t ids[std::size(kNames)];
  std::fill(std::begin(ids), std::end(ids), INT64_MIN);  // INT64_MIN: no such stat
  for (const StatMetadata& m : plane.stat_metadata)
    for (size_t k = 0; k < std::size(kNames); ++k)
      if (m.name == kNames[k].first) ids[k] = m.id;
  // In order of precedence: an id named twice takes the first slot listed.
  for (size_t k = 0; k < std::size(kNames); ++k) {
    if (ids[k] == INT64_MIN) continue;
    bool taken = false;
    for (const auto& [id, slot] : slot_ids_) taken |= id == ids[k];
    if (!taken) slot_ids_.emplace_back(ids[k], kNames[k].second);
  }
  if (slot_ids_.empty()) {
    slots_dense_ = true;
    return;
  }
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& [id, slot] : slot_ids_) {
    lo = std::min(lo, id);
    hi = std::max(hi, id);
  }
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span >= 4096) return;  // ids far apart: Slot searches the list
  slots_dense_ = true;
  slot_min_ = lo;
  slots_.assign(span + 1, kNotLabel);
  for (const auto& [id, slot] : slot_ids_)
    slots_[static_cast<uint64_t>(id) - static_cast<uint64_t>(lo)] = slot;
}

void PlaneTables::Fill(uint32_t i) {
  const EventMetadata& m = plane_.event_metadata[i];
  EventInfo& info = md_[i];
  EventHot& hot = hot_[i];
  info.name = m.display_name.empty() ? m.name : m.display_name;
  hot.device_kind = DeviceKind(info.name);
  hot.memory = info.name == "MemoryAllocation" ? 1 : info.name == "MemoryDeallocation" ? 2 : 0;
  Take(m.stats, &info.labels, info.memo);
  hot.labels_any = info.labels.any();
  hot.correlation = info.labels.correlation;
  hot.ready = true;
}

}  // namespace th::xspace
