#include "core/import/kineto/merged_ranks.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_map>

namespace th::kineto {

namespace {

// Key of a track's process: its pid, or its string pid.
uint64_t ProcessKey(const TrackKey& k) {
  return k.pid_str != 0 ? (uint64_t{1} << 63) | k.pid_str : static_cast<uint64_t>(k.pid);
}

// Copies rows of the sparse tables that refer to one event, walking each
// table (sorted by event) once per part.
class SparseCursor {
 public:
  explicit SparseCursor(const PodColumn<EventId>& events) : events_(events) {}
  // Rows [first, last) of `event` (the calls come in ascending event order).
  std::pair<size_t, size_t> RowsOf(EventId event) {
    while (next_ < events_.size() && events_[next_] < event) ++next_;
    size_t first = next_;
    while (next_ < events_.size() && events_[next_] == event) ++next_;
    return {first, next_};
  }

 private:
  const PodColumn<EventId>& events_;
  size_t next_ = 0;
};

// Builds one part's chunk from the whole file's rows.
class PartBuilder {
 public:
  PartBuilder(const EventGraph& g, const std::vector<TrackKey>& tracks, RankPart* part)
      : g_(g),
        tracks_(tracks),
        part_(part),
        collectives_(g.collective_args.event),
        counters_(g.counters.event),
        labels_(g.xla_labels.event),
        op_inputs_(g.op_inputs.event),
        op_costs_(g.xla_op_costs.event) {}

  void AddRow(EventId i) {
    const EventColumns& s = g_.events;
    ParsedChunk& c = part_->chunk;
    EventColumns& e = c.events;
    const auto row = static_cast<EventId>(e.size());
    e.ts.push_back(s.ts[i]);
    e.dur.push_back(s.dur[i]);
    e.name.push_back(s.name[i]);
    e.cat.push_back(s.cat[i]);
    e.track.push_back(TrackOf(s.track[i]));
    e.parent.push_back(kNoRow);
    e.depth.push_back(0);
    e.ph.push_back(s.ph[i]);
    e.kind.push_back(s.kind[i]);
    e.flags.push_back(s.flags[i]);
    e.correlation.push_back(s.correlation[i]);
    e.external_id.push_back(s.external_id[i]);
    uint32_t args = s.args_row[i];
    const uint32_t op_row = CopyOpInputs(i, row);
    if (args != kNoRow) {
      switch (ArgsTableOf(s.kind[i])) {
        case ArgsTable::kMemory:
          args = CopyMemory(args, row);
          break;
        case ArgsTable::kGpu:
          args = CopyGpu(args, row);
          break;
        case ArgsTable::kOpInputs:
          args = op_row;
          break;
      }
    }
    e.args_row.push_back(args);
    CopyCollectives(i, row);
    CopyCounters(i, row);
    CopyLabels(i, row);
    CopyRowsOf<&XlaOpCostTable::flops, &XlaOpCostTable::model_flops,
               &XlaOpCostTable::bytes_accessed>(&op_costs_, i, row, g_.xla_op_costs,
                                                &part_->chunk.xla_op_costs);
  }

  // The part's id of a track of the file, if the part has one.
  std::optional<uint32_t> Find(TrackId t) const {
    auto it = track_ids_.find(t);
    if (it == track_ids_.end()) return std::nullopt;
    return it->second;
  }

 private:
  uint32_t TrackOf(TrackId t) {
    auto [it, fresh] = track_ids_.try_emplace(t, static_cast<uint32_t>(part_->tracks.size()));
    if (fresh) part_->tracks.push_back(tracks_[t]);
    return it->second;
  }
  uint32_t CopyGpu(uint32_t r, EventId row) {
    const GpuArgsTable& s = g_.gpu_args;
    GpuArgsTable& d = part_->chunk.gpu_args;
    auto out = static_cast<uint32_t>(d.size());
    AppendRow<&GpuArgsTable::device, &GpuArgsTable::stream, &GpuArgsTable::registers,
              &GpuArgsTable::shared_mem, &GpuArgsTable::occupancy, &GpuArgsTable::bytes>(s, r, row,
                                                                                         &d);
    for (int k = 0; k < 3; ++k) {
      d.grid[k].push_back(s.grid[k][r]);
      d.block[k].push_back(s.block[k][r]);
    }
    return out;
  }
  uint32_t CopyMemory(uint32_t r, EventId row) {
    MemoryArgsTable& d = part_->chunk.memory_args;
    auto out = static_cast<uint32_t>(d.size());
    AppendRow<&MemoryArgsTable::device_type, &MemoryArgsTable::device_id, &MemoryArgsTable::addr,
              &MemoryArgsTable::bytes, &MemoryArgsTable::total_allocated,
              &MemoryArgsTable::total_reserved>(g_.memory_args, r, row, &d);
    return out;
  }
  void CopyCollectives(EventId i, EventId row) {
    CopyRowsOf<&CollectiveArgsTable::collective, &CollectiveArgsTable::dtype,
               &CollectiveArgsTable::group, &CollectiveArgsTable::in_nelems,
               &CollectiveArgsTable::out_nelems, &CollectiveArgsTable::group_size>(
        &collectives_, i, row, g_.collective_args, &part_->chunk.collective_args);
  }
  // The part's op_inputs row of event i, kNoRow when it has none.
  uint32_t CopyOpInputs(EventId i, EventId row) {
    OpInputsTable& d = part_->chunk.op_inputs;
    const auto first = static_cast<uint32_t>(d.size());
    CopyRowsOf<&OpInputsTable::input_dims, &OpInputsTable::input_types,
               &OpInputsTable::concrete_inputs>(&op_inputs_, i, row, g_.op_inputs, &d);
    return d.size() > first ? first : kNoRow;
  }
  void CopyCounters(EventId i, EventId row) {
    CopyRowsOf<&CounterTable::series, &CounterTable::value>(&counters_, i, row, g_.counters,
                                                            &part_->chunk.counters);
  }
  void CopyLabels(EventId i, EventId row) {
    CopyRowsOf<&XlaLabelTable::hlo_op, &XlaLabelTable::hlo_module, &XlaLabelTable::program_id,
               &XlaLabelTable::op_name, &XlaLabelTable::source, &XlaLabelTable::group_id>(
        &labels_, i, row, g_.xla_labels, &part_->chunk.xla_labels);
  }

  // Appends row r of `source` to `dest` for event `row`: its event column and
  // the given other columns.
  template <auto... Columns, class Table>
  static void AppendRow(const Table& source, size_t r, EventId row, Table* dest) {
    dest->event.push_back(row);
    ((dest->*Columns).push_back((source.*Columns)[r]), ...);
  }
  // Appends every row of a sparse table that refers to event i (AppendRow).
  template <auto... Columns, class Table>
  static void CopyRowsOf(SparseCursor* cursor, EventId i, EventId row, const Table& source,
                         Table* dest) {
    auto [first, last] = cursor->RowsOf(i);
    for (size_t r = first; r < last; ++r) AppendRow<Columns...>(source, r, row, dest);
  }

  const EventGraph& g_;
  const std::vector<TrackKey>& tracks_;
  RankPart* part_;
  std::unordered_map<TrackId, uint32_t> track_ids_;
  SparseCursor collectives_, counters_, labels_, op_inputs_, op_costs_;
};

}  // namespace

std::optional<int64_t> RankOfProcessName(std::string_view name) {
  constexpr std::string_view kPrefix = "RANK ";
  if (!name.starts_with(kPrefix)) return std::nullopt;
  const char* p = name.data() + kPrefix.size();
  const char* end = name.data() + name.size();
  int64_t rank = 0;
  auto [after, ec] = std::from_chars(p, end, rank);
  if (ec != std::errc() || after == p || rank < 0) return std::nullopt;
  std::string_view rest(after, static_cast<size_t>(end - after));
  if (rest != " - GPU" && rest != " - CPU") return std::nullopt;
  return rank;
}

std::optional<MergedRanks> SplitMergedRanks(
    const EventGraph& g, const std::vector<TrackKey>& tracks, const std::vector<NameRecord>& names,
    const std::vector<std::pair<EventId, int64_t>>& event_ranks) {
  // Phase 1: the rank each named process stands for.
  std::unordered_map<uint64_t, int64_t> rank_of_process;
  for (const NameRecord& r : names) {
    if (r.kind != NameRecord::kProcessName || r.track >= tracks.size()) continue;
    if (auto rank = RankOfProcessName(g.strings.Get(r.value)))
      rank_of_process.emplace(ProcessKey(tracks[r.track]), *rank);
  }
  if (rank_of_process.empty()) return std::nullopt;

  // Phase 2: the rank of every event (args.rank first, then its process).
  const EventColumns& e = g.events;
  std::vector<int64_t> rank_of(e.size(), kNoValue);
  size_t next = 0;
  for (EventId i = 0; i < e.size(); ++i) {
    while (next < event_ranks.size() && event_ranks[next].first < i) ++next;
    if (next < event_ranks.size() && event_ranks[next].first == i) {
      rank_of[i] = event_ranks[next].second;
      continue;
    }
    auto it = rank_of_process.find(ProcessKey(tracks[e.track[i]]));
    if (it != rank_of_process.end()) rank_of[i] = it->second;
  }

  // Phase 3: one part per rank, rows in file order.
  std::map<int64_t, size_t> part_of_rank;
  for (int64_t r : rank_of)
    if (r != kNoValue) part_of_rank.emplace(r, 0);
  MergedRanks out;
  for (auto& [rank, index] : part_of_rank) {
    index = out.parts.size();
    out.parts.emplace_back().rank = rank;
  }
  std::vector<PartBuilder> builders;
  builders.reserve(out.parts.size());
  for (RankPart& part : out.parts) builders.emplace_back(g, tracks, &part);
  for (EventId i = 0; i < e.size(); ++i) {
    if (rank_of[i] == kNoValue) {
      ++out.unassigned;
      continue;
    }
    builders[part_of_rank[rank_of[i]]].AddRow(i);
  }
  // Names go with the tracks each part kept.
  for (const NameRecord& r : names) {
    for (size_t p = 0; p < builders.size(); ++p) {
      if (auto t = builders[p].Find(r.track))
        out.parts[p].chunk.names.push_back({r.kind, *t, r.value});
    }
  }
  return out;
}

}  // namespace th::kineto
