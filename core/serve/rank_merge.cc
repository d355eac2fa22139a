#include "core/serve/rank_merge.h"

#include <utility>

namespace th::serve {
namespace {

// Offsets of one rank's rows in each table of the merged graph.
struct Offsets {
  EventId event = 0;
  TrackId track = 0;
  uint32_t gpu = 0, memory = 0, op_inputs = 0;
  std::vector<StringId> strings;  // local id -> merged id
};

template <typename T>
void Append(PodColumn<T>& out, const PodColumn<T>& in) {
  T* at = out.grow_uninitialized(in.size());
  for (size_t i = 0; i < in.size(); ++i) at[i] = in[i];
}

template <typename T, typename F>
void AppendMapped(PodColumn<T>& out, const PodColumn<T>& in, F&& map) {
  T* at = out.grow_uninitialized(in.size());
  for (size_t i = 0; i < in.size(); ++i) at[i] = map(in[i]);
}

EventId Shift(EventId id, EventId by) { return id == kNoRow ? kNoRow : id + by; }

// args_row points into the memory table (allocator events), the GPU table or
// the op_inputs table (the row whose event is this one); any other row has no
// table to follow.
uint32_t ShiftArgs(const EventGraph& g, EventId e, const Offsets& o) {
  const uint32_t row = g.events.args_row[e];
  if (row == kNoRow) return kNoRow;
  const EventKind kind = g.events.kind[e];
  if (kind == EventKind::kMemory || kind == EventKind::kOutOfMemory) return row + o.memory;
  if (row < g.gpu_args.size() && g.gpu_args.event[row] == e) return row + o.gpu;
  if (row < g.op_inputs.size() && g.op_inputs.event[row] == e) return row + o.op_inputs;
  return kNoRow;
}

void AppendEvents(EventColumns& out, const EventGraph& g, const Offsets& o) {
  const EventColumns& in = g.events;
  auto str = [&](StringId s) { return o.strings[s]; };
  Append(out.ts, in.ts);
  Append(out.dur, in.dur);
  AppendMapped(out.name, in.name, str);
  AppendMapped(out.cat, in.cat, str);
  AppendMapped(out.track, in.track, [&](TrackId t) { return t + o.track; });
  AppendMapped(out.parent, in.parent, [&](EventId p) { return Shift(p, o.event); });
  Append(out.depth, in.depth);
  Append(out.ph, in.ph);
  Append(out.kind, in.kind);
  Append(out.flags, in.flags);
  for (size_t e = 0; e < in.size(); ++e) {
    out.correlation.push_back(in.correlation[e]);
    out.external_id.push_back(in.external_id[e]);
    out.args_row.push_back(ShiftArgs(g, static_cast<EventId>(e), o));
  }
}

void AppendTables(EventGraph& out, const EventGraph& g, const Offsets& o) {
  auto str = [&](StringId s) { return o.strings[s]; };
  auto ev = [&](EventId e) { return Shift(e, o.event); };
  const GpuArgsTable& ga = g.gpu_args;
  AppendMapped(out.gpu_args.event, ga.event, ev);
  Append(out.gpu_args.device, ga.device);
  Append(out.gpu_args.stream, ga.stream);
  for (int k = 0; k < 3; ++k) {
    Append(out.gpu_args.grid[k], ga.grid[k]);
    Append(out.gpu_args.block[k], ga.block[k]);
  }
  Append(out.gpu_args.registers, ga.registers);
  Append(out.gpu_args.shared_mem, ga.shared_mem);
  Append(out.gpu_args.occupancy, ga.occupancy);
  Append(out.gpu_args.bytes, ga.bytes);
  const CollectiveArgsTable& c = g.collective_args;
  AppendMapped(out.collective_args.event, c.event, ev);
  AppendMapped(out.collective_args.collective, c.collective, str);
  AppendMapped(out.collective_args.dtype, c.dtype, str);
  AppendMapped(out.collective_args.group, c.group, str);
  Append(out.collective_args.in_nelems, c.in_nelems);
  Append(out.collective_args.out_nelems, c.out_nelems);
  Append(out.collective_args.group_size, c.group_size);
  const MemoryArgsTable& m = g.memory_args;
  AppendMapped(out.memory_args.event, m.event, ev);
  Append(out.memory_args.device_type, m.device_type);
  Append(out.memory_args.device_id, m.device_id);
  Append(out.memory_args.addr, m.addr);
  Append(out.memory_args.bytes, m.bytes);
  Append(out.memory_args.total_allocated, m.total_allocated);
  Append(out.memory_args.total_reserved, m.total_reserved);
  AppendMapped(out.op_inputs.event, g.op_inputs.event, ev);
  AppendMapped(out.op_inputs.input_dims, g.op_inputs.input_dims, str);
  AppendMapped(out.op_inputs.input_types, g.op_inputs.input_types, str);
  AppendMapped(out.op_inputs.concrete_inputs, g.op_inputs.concrete_inputs, str);
  AppendMapped(out.counters.event, g.counters.event, ev);
  AppendMapped(out.counters.series, g.counters.series, str);
  Append(out.counters.value, g.counters.value);
  AppendMapped(out.edges.src, g.edges.src, ev);
  AppendMapped(out.edges.dst, g.edges.dst, ev);
  Append(out.edges.kind, g.edges.kind);
}

void AppendTracks(EventGraph& out, const EventGraph& g, const Offsets& o) {
  for (Track t : g.tracks) {
    for (StringId* s : {&t.pid_str, &t.tid_str, &t.process_name, &t.thread_name})
      *s = o.strings[*s];
    out.tracks.push_back(t);
  }
  for (Step s : g.steps) {
    s.event = Shift(s.event, o.event);
    out.steps.push_back(s);
  }
  // Track order: every merged track gets explicit slots (the rows' own order
  // is kept by writing them out), so track_first_row stays kNoRow.
  if (out.track_offsets.empty()) out.track_offsets.push_back(0);
  for (TrackId t = 0; t < g.tracks.size(); ++t) {
    const EventGraph::TrackEventsView view = g.TrackEvents(t);
    for (uint32_t k = 0; k < view.size(); ++k) out.track_order.push_back(view[k] + o.event);
    out.track_offsets.push_back(static_cast<uint32_t>(out.track_order.size()));
    out.track_first_row.push_back(kNoRow);
  }
}

}  // namespace

MergedRanks MergeRanks(const TraceSet& set) {
  MergedRanks merged;
  auto trace = std::make_unique<Trace>();
  EventGraph& out = trace->graph;
  for (const auto& rank : set.traces) {
    const EventGraph& g = rank->graph;
    Offsets o;
    o.event = static_cast<EventId>(out.events.size());
    o.track = static_cast<TrackId>(out.tracks.size());
    o.gpu = static_cast<uint32_t>(out.gpu_args.size());
    o.memory = static_cast<uint32_t>(out.memory_args.size());
    o.op_inputs = static_cast<uint32_t>(out.op_inputs.size());
    o.strings.resize(g.strings.size());
    for (StringId s = 0; s < g.strings.size(); ++s)
      o.strings[s] = out.strings.Intern(g.strings.Get(s));
    AppendEvents(out.events, g, o);
    AppendTables(out, g, o);
    AppendTracks(out, g, o);
    merged.ranks.push_back({rank->info.rank, o.event, static_cast<uint32_t>(g.events.size()),
                            o.track, static_cast<uint32_t>(g.tracks.size())});
    trace->trust.Merge(rank->trust);
  }
  trace->info = set.traces.front()->info;
  merged.set = std::make_unique<TraceSet>();
  merged.set->trust.Merge(set.trust);
  merged.set->traces.push_back(std::move(trace));
  return merged;
}

}  // namespace th::serve
