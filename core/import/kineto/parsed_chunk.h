// The unit of parallel import: a slice of `traceEvents` text and what parsing
// it produced (merged in order later).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/graph/event_graph.h"

namespace th::kineto {

// Complete events, as JSON text "[ev, ev, ...]" followed by simdjson padding.
struct TextChunk {
  const char* data = nullptr;     // the JSON: in `owned`, or inside a mapped input
  size_t length = 0;              // bytes of JSON at `data` (brackets included)
  size_t capacity = 0;            // readable bytes at `data` (>= length + padding)
  std::unique_ptr<char[]> owned;  // copy buffer, reused across chunks (not zero-filled)
  size_t owned_capacity = 0;
  size_t release_before = 0;  // mapped input: text before this offset is consumed
  uint64_t text_offset = 0;   // decompressed offset of text[1] in the input
  int64_t first_event = 0;    // index of the chunk's first element in traceEvents
  uint64_t sequence = 0;
  bool xprof = false;  // parse with the XProf JSON mapping (xprof_json.h)
};

// pid/tid of an event: a number, or a string (then *_str != 0, a string id).
struct TrackKey {
  int64_t pid = 0;
  int64_t tid = 0;
  uint32_t pid_str = 0;
  uint32_t tid_str = 0;
  bool operator==(const TrackKey&) const = default;
};
struct TrackKeyHash {
  size_t operator()(const TrackKey& k) const {
    uint64_t h = static_cast<uint64_t>(k.pid) * 0x9E3779B97F4A7C15ull;
    h ^= static_cast<uint64_t>(k.tid) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
    h ^= (static_cast<uint64_t>(k.pid_str) << 32 | k.tid_str) * 0xC2B2AE3D27D4EB4Full;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

// A `M` event naming a process or thread.
struct NameRecord {
  enum Kind : uint8_t { kProcessName, kThreadName, kProcessLabels } kind;
  uint32_t track;  // track id (for process records, only its pid matters)
  uint32_t value;  // string id
};

// Defects counted while parsing (they go to the trust table).
struct ChunkDefects {
  int64_t non_object = 0;
  int64_t missing_ph = 0;
  int64_t unknown_phase = 0;
  int64_t invalid_ts = 0;
  int64_t x_without_dur = 0;
  int64_t negative_dur = 0;
  int64_t rounded_time = 0;
  int64_t elements = 0;  // every array element, objects or not
  std::string first_unknown_phase;
  // XProf JSON: an integer argument (correlation_id, program_id, group_id)
  // whose string is not an integer; the value is ignored.
  int64_t bad_integer_arg = 0;
  std::string first_bad_integer_arg;  // key="value"
  // NaN, Infinity, nan, inf... (json_value_check.h): accepted, not used.
  int64_t non_finite = 0;
  std::string first_non_finite;
};

struct ParsedChunk {
  uint64_t sequence = 0;
  size_t release_before = 0;  // from its TextChunk
  EventColumns events;        // string and track ids are final (see shared_tables.h)
  GpuArgsTable gpu_args;
  CollectiveArgsTable collective_args;
  MemoryArgsTable memory_args;
  CounterTable counters;
  XlaLabelTable xla_labels;  // XProf JSON and XSpace only
  OpInputsTable op_inputs;
  XlaOpCostTable xla_op_costs;  // XSpace only
  std::vector<NameRecord> names;
  // Events whose args carry "rank" (a merged trace, merged_ranks.h): sparse,
  // empty for a trace of one rank.
  std::vector<std::pair<EventId, int64_t>> event_ranks;
  ChunkDefects defects;
  std::string error;  // non-empty: the chunk could not be parsed

  // Empties the chunk for reuse, keeping the columns' memory.
  void Reset();
};

inline void ClearColumns(EventColumns& e) {
  e.ts.clear();
  e.dur.clear();
  e.name.clear();
  e.cat.clear();
  e.track.clear();
  e.parent.clear();
  e.depth.clear();
  e.ph.clear();
  e.kind.clear();
  e.flags.clear();
  e.correlation.clear();
  e.external_id.clear();
  e.args_row.clear();
}

inline void ParsedChunk::Reset() {
  sequence = 0;
  ClearColumns(events);
  gpu_args = GpuArgsTable();
  collective_args = CollectiveArgsTable();
  memory_args = MemoryArgsTable();
  counters = CounterTable();
  xla_labels = XlaLabelTable();
  op_inputs = OpInputsTable();
  xla_op_costs = XlaOpCostTable();
  names.clear();
  event_ranks.clear();
  defects = ChunkDefects();
  error.clear();
}

}  // namespace th::kineto
