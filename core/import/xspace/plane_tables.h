// Per-plane lookup tables of the XSpace importer, built once per plane so that
// the per-event work is array lookups: event metadata by key (a dense table
// when the keys allow), what each event metadata implies (name, device kind,
// allocator event, the XLA labels of its stats), the label each stat
// metadata id stands for, and interned string ids remembered per source
// string (so a string seen again costs no hash).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/graph/event_graph.h"
#include "core/import/kineto/shared_tables.h"
#include "core/import/xspace/xspace_model.h"

namespace th::xspace {

// An id not interned yet.
inline constexpr StringId kUnsetId = 0xffffffffu;

// Key -> index of a map (plane.event_metadata_index and the like): a vector
// over [min key, max key] when the keys are dense enough, else the map itself.
class DenseIndex {
 public:
  static constexpr uint32_t kAbsent = 0xffffffffu;
  explicit DenseIndex(const std::unordered_map<int64_t, uint32_t>& index);
  uint32_t Find(int64_t key) const {
    if (dense_) {
      const uint64_t k = static_cast<uint64_t>(key) - static_cast<uint64_t>(min_);
      return k < table_.size() ? table_[k] : kAbsent;
    }
    auto it = index_.find(key);
    return it == index_.end() ? kAbsent : it->second;
  }

 private:
  const std::unordered_map<int64_t, uint32_t>& index_;
  bool dense_ = false;
  int64_t min_ = 0;
  std::vector<uint32_t> table_;
};

// A label string and where its interned id is remembered (nullptr: nowhere;
// the memo always belongs to this exact string).
struct LabelStr {
  std::string_view v;
  StringId* memo = nullptr;
};

// What a stat metadata id stands for among the XLA labels.
enum LabelSlot : uint8_t {
  kNotLabel,
  kCorrelation,
  kProgramId,
  kGroupId,
  kHloOp,
  kHloModule,
  kTfOp,
  kName,
  kSource,
};
inline constexpr int kFirstStringSlot = kHloOp;

// The labels one event carries (event-metadata stats first, then the event's
// own, which win).
struct EventLabels {
  LabelStr str[5];  // by LabelSlot - kFirstStringSlot: hlo_op, hlo_module, tf_op, name, source
  int64_t program_id = kNoValue, group_id = kNoValue, correlation = kNoValue;

  LabelStr& hlo_op() { return str[kHloOp - kFirstStringSlot]; }
  LabelStr& hlo_module() { return str[kHloModule - kFirstStringSlot]; }
  const LabelStr& hlo_op() const { return str[kHloOp - kFirstStringSlot]; }
  const LabelStr& hlo_module() const { return str[kHloModule - kFirstStringSlot]; }
  const LabelStr& tf_op() const { return str[kTfOp - kFirstStringSlot]; }
  const LabelStr& name() const { return str[kName - kFirstStringSlot]; }
  const LabelStr& source() const { return str[kSource - kFirstStringSlot]; }
  bool any() const { return AnyWith(program_id, group_id); }
  // any() of these labels with `program` and `group` as their numbers.
  bool AnyWith(int64_t program, int64_t group) const {
    return !str[0].v.empty() || !str[1].v.empty() || program != kNoValue || !name().v.empty() ||
           !source().v.empty() || group != kNoValue ||
           (!tf_op().v.empty() && tf_op().v != "XlaModule:");
  }
  // The framework op path: `name` (JAX puts op_name there), else tf_op unless
  // it is only the module marker.
  LabelStr op_name() const {
    if (!name().v.empty()) return name();
    return tf_op().v == "XlaModule:" ? LabelStr() : tf_op();
  }
};

class PlaneTables {
 public:
  // What an event metadata implies that every event of it needs, filled on
  // first use: 16 bytes, so a plane's table stays in cache.
  struct EventHot {
    int64_t correlation = kNoValue;  // the metadata's correlation_id stat
    StringId name_id = kUnsetId;     // of EventInfo::name, interned by the caller
    bool ready = false;
    bool labels_any = false;                     // EventInfo::labels.any()
    uint8_t memory = 0;                          // 1 MemoryAllocation, 2 MemoryDeallocation
    EventKind device_kind = EventKind::kKernel;  // by name on stream / XLA Ops lines
  };
  // The rest, for events that carry labels.
  struct EventInfo {
    std::string_view name;  // display_name, else name
    EventLabels labels;     // from the metadata's stats
    StringId memo[5] = {kUnsetId, kUnsetId, kUnsetId, kUnsetId, kUnsetId};
  };
  static constexpr uint32_t kNoMetadata = DenseIndex::kAbsent;

  explicit PlaneTables(const Plane& plane);

  // Index of the metadata of key `id` (kNoMetadata: unknown id); its hot part
  // is filled.
  uint32_t Find(int64_t id) {
    const uint32_t i = md_index_.Find(id);
    if (i != kNoMetadata && !hot_[i].ready) [[unlikely]]
      Fill(i);
    return i;
  }
  EventHot& hot(uint32_t i) { return hot_[i]; }
  EventInfo& info(uint32_t i) { return md_[i]; }
  // Applies `stats` to `labels` in order; string values read from a metadata's
  // stats remember their ids in `md_memo` (5 slots), others only when they
  // are stat-metadata names (ref values).
  void Take(std::span<const Stat> stats, EventLabels* labels, StringId* md_memo) {
    for (const Stat& s : stats) {
      const LabelSlot slot = Slot(s.metadata_id);
      if (slot == kNotLabel) continue;
      switch (slot) {
        case kCorrelation:
          labels->correlation = s.int64_value();
          break;
        case kProgramId:
          labels->program_id = s.int64_value();
          break;
        case kGroupId:
          labels->group_id = s.int64_value();
          break;
        default:
          labels->str[slot - kFirstStringSlot] = StatString(s, md_memo, slot);
          break;
      }
    }
  }
  // Which labels `stats` hold: kSomeLabel when any (Take would change
  // something), plus kStringLabel when one is a string label.
  static constexpr uint8_t kSomeLabel = 1, kStringLabel = 2;
  uint8_t LabelKinds(std::span<const Stat> stats) const {
    uint8_t kinds = 0;
    for (const Stat& s : stats) {
      const LabelSlot slot = Slot(s.metadata_id);
      if (slot != kNotLabel)
        kinds |= slot >= kFirstStringSlot ? kSomeLabel | kStringLabel : kSomeLabel;
    }
    return kinds;
  }
  // Take for stats without string labels: only the numbers change.
  void TakeNumbers(std::span<const Stat> stats, int64_t* correlation, int64_t* program_id,
                   int64_t* group_id) const {
    for (const Stat& s : stats) {
      switch (Slot(s.metadata_id)) {
        case kCorrelation:
          *correlation = s.int64_value();
          break;
        case kProgramId:
          *program_id = s.int64_value();
          break;
        case kGroupId:
          *group_id = s.int64_value();
          break;
        default:
          break;
      }
    }
  }
  // Interned id of a label (memoised).
  StringId Id(const LabelStr& s, kineto::ThreadTables* tables) {
    if (s.v.empty()) return kEmptyString;
    if (s.memo && *s.memo != kUnsetId) return *s.memo;
    const StringId id = tables->Intern(s.v);
    if (s.memo) *s.memo = id;
    return id;
  }

 private:
  LabelSlot Slot(int64_t stat_id) const {
    const uint64_t k = static_cast<uint64_t>(stat_id) - static_cast<uint64_t>(slot_min_);
    if (k < slots_.size()) return static_cast<LabelSlot>(slots_[k]);
    if (slots_dense_) return kNotLabel;
    for (const auto& [id, slot] : slot_ids_)
      if (id == stat_id) return slot;
    return kNotLabel;
  }
  // Plane::StatString with a memo for the result.
  LabelStr StatString(const Stat& s, StringId* md_memo, LabelSlot slot) {
    if (s.kind == StatKind::kStr)
      return {s.str.get(), md_memo ? &md_memo[slot - kFirstStringSlot] : nullptr};
    if (s.kind == StatKind::kRef) {
      const uint32_t i = stat_index_.Find(static_cast<int64_t>(s.raw));
      if (i == DenseIndex::kAbsent) return {};
      return {plane_.stat_metadata[i].name, &stat_name_ids_[i]};
    }
    return {};
  }
  void Fill(uint32_t i);

  const Plane& plane_;
  DenseIndex md_index_;
  DenseIndex stat_index_;
  std::vector<EventHot> hot_;            // by event_metadata index
  std::vector<EventInfo> md_;            // by event_metadata index
  std::vector<StringId> stat_name_ids_;  // by stat_metadata index
  // Label slot by stat metadata id (StatMetadata::id): a table over
  // [slot_min_, ...) when the ids are close, else the list.
  std::vector<std::pair<int64_t, LabelSlot>> slot_ids_;
  bool slots_dense_ = false;
  int64_t slot_min_ = 0;
  std::vector<uint8_t> slots_;
};

}  // namespace th::xspace
