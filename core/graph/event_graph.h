// EventGraph: one trace (one rank's file) as struct-of-arrays tables.
//
// Contract:
// - Times are int64 nanoseconds on the trace's own clock (Kineto: the file's
//   `ts` ×1000, exactly; add TraceInfo::base_time_ns for epoch time).
// - Event rows keep file order. Per-track time order is in `track_order`.
// - Sparse argument tables (gpu_args, collective_args, memory_args, op_inputs)
//   hold one row per event that carries such arguments; `EventColumns::args_row`
//   points there (kNoRow when absent); which table depends on the event's kind
//   (ArgsTableOf).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph/event_kind.h"
#include "core/graph/id_column.h"
#include "core/graph/pod_column.h"
#include "core/graph/string_pool.h"

namespace th {

using EventId = uint32_t;
using TrackId = uint32_t;
inline constexpr uint32_t kNoRow = 0xffffffffu;
inline constexpr int64_t kNoValue = INT64_MIN;

// Per-event bit flags.
enum EventFlag : uint8_t {
  kFlagInvalidTs = 1,          // ts missing or not a number
  kFlagNoDuration = 2,         // X without a valid dur
  kFlagFlowBindEnclosing = 4,  // flow end with bp:"e"
  kFlagStringId = 8,           // `correlation` holds a StringId (string flow id)
  kFlagEndMarker = 16,         // an E event (its B carries the duration)
  kFlagDerived = 32,           // made by the importer, not in the file (XLA lines on GPU)
};

struct EventColumns {
  PodColumn<int64_t> ts;   // ns
  PodColumn<int64_t> dur;  // ns; 0 for instants, B's span once matched with its E
  PodColumn<StringId> name;
  PodColumn<StringId> cat;  // exact category string
  PodColumn<TrackId> track;
  PodColumn<EventId> parent;  // enclosing slice on the same track, kNoRow at top
  // Nesting depth on the track (0 = top). 0 from the importer; Nest writes the
  // nested depths (non-zero) only.
  PodColumn<uint16_t> depth;
  PodColumn<char> ph;  // phase character as written ('\0' when missing)
  PodColumn<EventKind> kind;
  PodColumn<uint8_t> flags;      // EventFlag bits
  IdColumn correlation;          // args.correlation, or a flow's id; kNoValue if none
  IdColumn external_id;          // args["External id"]; kNoValue if none
  PodColumn<uint32_t> args_row;  // row in the sparse table for this kind, or kNoRow

  size_t size() const { return ts.size(); }
  size_t bytes() const;
};

// Arguments of GPU activity (kernels, memcpy, memset, sync): one row per event.
struct GpuArgsTable {
  PodColumn<EventId> event;
  PodColumn<int32_t> device;   // args.device, -1 if absent
  PodColumn<int64_t> stream;   // args.stream, -1 if absent
  PodColumn<int32_t> grid[3];  // kernels; 0 if absent
  PodColumn<int32_t> block[3];
  PodColumn<int32_t> registers;   // registers per thread
  PodColumn<int32_t> shared_mem;  // bytes
  PodColumn<float> occupancy;     // est. achieved occupancy %, -1 if absent
  PodColumn<int64_t> bytes;       // memcpy/memset bytes, -1 if absent
  size_t size() const { return event.size(); }
};

// Input shapes and dtypes Kineto records on CPU ops (record_shapes): one row
// per event with args "Input Dims", "Input type" and/or "Concrete Inputs"
// (the scalar argument values as text), rows in event order.
// Each is the arg's JSON text with the whitespace outside strings removed
// (e.g. "[[4096,4096],[4096,4096]]"), kEmptyString when the arg is absent.
struct OpInputsTable {
  PodColumn<EventId> event;
  PodColumn<StringId> input_dims;
  PodColumn<StringId> input_types;
  PodColumn<StringId> concrete_inputs;
  size_t size() const { return event.size(); }
};

// Collective metadata Kineto copies onto NCCL/RCCL kernels.
struct CollectiveArgsTable {
  PodColumn<EventId> event;
  PodColumn<StringId> collective;  // "allreduce", ...
  PodColumn<StringId> dtype;
  PodColumn<StringId> group;  // Process Group Name
  PodColumn<int64_t> in_nelems;
  PodColumn<int64_t> out_nelems;
  PodColumn<int32_t> group_size;
  size_t size() const { return event.size(); }
};

// Allocator events ([memory], [OutOfMemory]).
struct MemoryArgsTable {
  PodColumn<EventId> event;
  PodColumn<int8_t> device_type;  // c10 DeviceType: 0 CPU, 1 CUDA, ...
  PodColumn<int16_t> device_id;
  PodColumn<int64_t> addr;
  PodColumn<int64_t> bytes;  // negative = free
  PodColumn<int64_t> total_allocated;
  PodColumn<int64_t> total_reserved;
  size_t size() const { return event.size(); }
};

// Counter (`C`) events: one row per series value in the event's args.
struct CounterTable {
  PodColumn<EventId> event;
  PodColumn<StringId> series;  // the args key, e.g. "Total Allocated"
  PodColumn<double> value;
  size_t size() const { return event.size(); }
};

// XLA labels the profiler recorded on an event (XProf captures): device ops
// and the host calls that launched them. One row per labelled event, rows in
// event order (binary-search `event`). Absent strings are kEmptyString,
// absent numbers kNoValue.
struct XlaLabelTable {
  PodColumn<EventId> event;
  PodColumn<StringId> hlo_op;      // HLO instruction name (`hlo_op`; TPU: the op's own name)
  PodColumn<StringId> hlo_module;  // module name (`hlo_module`)
  PodColumn<int64_t> program_id;   // `program_id`: HloModuleProto.id on GPU, a fingerprint on TPU
  PodColumn<StringId> op_name;  // framework op path (`tf_op`/`name`, e.g. "jit(f)/jit(main)/dot")
  PodColumn<StringId> source;   // "file:line" the profiler recorded (TPU `source`)
  PodColumn<int64_t> group_id;  // step group (`group_id`)
  size_t size() const { return event.size(); }
  // Row of `e`, or kNoRow.
  uint32_t Find(EventId e) const;
};

// The costs the runtime wrote on device ops (TPU "XLA Ops": the `flops`,
// `model_flops` and `bytes_accessed` stats of the op's event metadata or of
// the event, from XLA's cost analysis): one row per event that carries any
// of them, event order; kNoValue (-1) where a stat is absent.
struct XlaOpCostTable {
  PodColumn<EventId> event;
  PodColumn<int64_t> flops;
  PodColumn<int64_t> model_flops;
  PodColumn<int64_t> bytes_accessed;
  size_t size() const { return event.size(); }
};

// The table `EventColumns::args_row` points into for an event of kind k:
// memory_args for allocator events, gpu_args for GPU activity, syncs and
// events, op_inputs for every other kind.
enum class ArgsTable : uint8_t { kGpu, kMemory, kOpInputs };
inline ArgsTable ArgsTableOf(EventKind k) {
  if (k == EventKind::kMemory || k == EventKind::kOutOfMemory) return ArgsTable::kMemory;
  if (IsGpuActivity(k) || k == EventKind::kGpuSync || k == EventKind::kGpuEvent)
    return ArgsTable::kGpu;
  return ArgsTable::kOpInputs;
}

enum class TrackKind : uint8_t { kCpu, kGpuStream, kOther };

// A timeline: (pid, tid) of the file. pid/tid are integers or strings.
struct Track {
  int64_t pid = 0;
  int64_t tid = 0;
  StringId pid_str = kEmptyString;  // non-empty when the pid was a string
  StringId tid_str = kEmptyString;
  StringId process_name = kEmptyString;
  StringId thread_name = kEmptyString;
  TrackKind kind = TrackKind::kOther;
  int32_t device = -1;  // accelerator index for GPU tracks
  int64_t stream = -1;  // stream id for GPU tracks
};

enum class EdgeKind : uint8_t { kLaunch, kFlow };

struct EdgeTable {
  PodColumn<EventId> src;
  PodColumn<EventId> dst;
  PodColumn<EdgeKind> kind;
  size_t size() const { return src.size(); }
};

// ProfilerStep#N windows on the host.
struct Step {
  int64_t number = 0;
  EventId event = kNoRow;
  int64_t ts = 0;
  int64_t dur = 0;
};

struct EventGraph {
  StringPool strings;
  EventColumns events;
  std::vector<Track> tracks;
  GpuArgsTable gpu_args;
  CollectiveArgsTable collective_args;
  MemoryArgsTable memory_args;
  CounterTable counters;
  XlaLabelTable xla_labels;
  OpInputsTable op_inputs;
  XlaOpCostTable xla_op_costs;
  EdgeTable edges;
  std::vector<Step> steps;
  // Events of each track in time order (ts asc, longer first): read them with
  // TrackEvents(t). Track t has track_offsets[t+1] - track_offsets[t] of them.
  // When its events are the rows track_first_row[t], +1, ... already in
  // that order (XSpace lines), its slots track_order[track_offsets[t] ..
  // track_offsets[t+1]) are left unwritten (zero pages that cost no
  // memory); otherwise track_first_row[t] is kNoRow and the slots hold the
  // rows.
  PodColumn<EventId> track_order;
  std::vector<uint32_t> track_offsets;
  std::vector<EventId> track_first_row;

  // The events of one track in time order: k = 0 .. size() - 1.
  struct TrackEventsView {
    const EventId* order = nullptr;  // nullptr: the rows first, first + 1, ...
    EventId first = 0;
    uint32_t count = 0;
    EventId operator[](uint32_t k) const { return order ? order[k] : first + k; }
    uint32_t size() const { return count; }
  };
  TrackEventsView TrackEvents(TrackId t) const {
    if (t + 1 >= track_offsets.size()) return {};
    const uint32_t begin = track_offsets[t], count = track_offsets[t + 1] - begin;
    if (t < track_first_row.size() && track_first_row[t] != kNoRow)
      return {nullptr, track_first_row[t], count};
    return {track_order.data() + begin, 0, count};
  }

  // Bytes held by the tables, strings excluded.
  size_t bytes() const;
};

}  // namespace th
