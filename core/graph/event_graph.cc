#include "core/graph/event_graph.h"

#include <algorithm>

namespace th {

size_t EventColumns::bytes() const {
  return ts.bytes() + dur.bytes() + name.bytes() + cat.bytes() + track.bytes() + parent.bytes() +
         depth.bytes() + ph.bytes() + kind.bytes() + flags.bytes() + correlation.bytes() +
         external_id.bytes() + args_row.bytes();
}

size_t EventGraph::bytes() const {
  size_t b = events.bytes() + tracks.size() * sizeof(Track) +
             track_offsets.size() * sizeof(uint32_t) + track_first_row.size() * sizeof(EventId) +
             steps.size() * sizeof(Step);
  for (TrackId t = 0; t + 1 < track_offsets.size(); ++t) {  // the slots written
    const TrackEventsView v = TrackEvents(t);
    if (v.order) b += v.count * sizeof(EventId);
  }
  b += gpu_args.event.bytes() + gpu_args.device.bytes() + gpu_args.stream.bytes() +
       gpu_args.registers.bytes() + gpu_args.shared_mem.bytes() + gpu_args.occupancy.bytes() +
       gpu_args.bytes.bytes();
  for (int i = 0; i < 3; ++i) b += gpu_args.grid[i].bytes() + gpu_args.block[i].bytes();
  b += collective_args.event.bytes() * 7;
  b += memory_args.event.bytes() + memory_args.device_type.bytes() + memory_args.device_id.bytes() +
       memory_args.addr.bytes() + memory_args.bytes.bytes() + memory_args.total_allocated.bytes() +
       memory_args.total_reserved.bytes();
  b += counters.event.bytes() + counters.series.bytes() + counters.value.bytes();
  b += xla_labels.event.bytes() * 2 + xla_labels.hlo_op.bytes() * 2 +
       xla_labels.program_id.bytes() * 2 + xla_labels.source.bytes();
  b += op_inputs.event.bytes() + op_inputs.input_dims.bytes() + op_inputs.input_types.bytes() +
       op_inputs.concrete_inputs.bytes();
  b += xla_op_costs.event.bytes() + xla_op_costs.flops.bytes() * 3;
  b += edges.src.bytes() + edges.dst.bytes() + edges.kind.bytes();
  return b;
}

uint32_t XlaLabelTable::Find(EventId e) const {
  const EventId* begin = event.data();
  const EventId* end = begin + event.size();
  const EventId* it = std::lower_bound(begin, end, e);
  return it != end && *it == e ? static_cast<uint32_t>(it - begin) : kNoRow;
}

}  // namespace th
