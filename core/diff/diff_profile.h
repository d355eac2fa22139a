// One side of a diff (A or B) reduced to what the three levels compare: the
// kept steps of every rank (steady state unless all_steps), each step's
// step-breakdown categories, and per (event class, normalised name) the count
// and time in each kept step.
//
// Steps come from the `steps` plugin's table, categories from the
// `step-breakdown` plugin's table (both in `results`). A rank without steps
// counts as one step spanning all its events (so its rows are "unknown").
// A host event belongs to the kept step whose window [ts, ts + dur) holds its
// start, on its own rank; GPU work to the step of the runtime call that
// launched it (its own start when it has no launch event). Events without a
// valid duration are not counted; zero-duration ones are.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/diff/diff_result.h"
#include "core/graph/analysis_results.h"
#include "core/graph/status.h"
#include "core/graph/trace.h"

namespace th::diff {

// A side's input: its traces, the results of `steps` and `step-breakdown` run
// on them, and its name in reports.
struct DiffSide {
  const TraceSet* traces = nullptr;
  const PluginResults* results = nullptr;
  std::string label;                // "A", "B"
  std::vector<std::string> inputs;  // as the user gave them (for reports)
};

struct ProfileStep {
  size_t trace = 0;  // index into TraceSet::traces
  int64_t rank = 0, step = 0, ts = 0, dur = 0;
  bool has_categories = false;
  std::array<int64_t, kCategoryCount> categories{};  // ns
};

// Count and time of one (class, name) in each kept step (index as steps).
struct ProfileRow {
  EventClass cls = EventClass::kCpuOp;
  std::string name;
  std::vector<int64_t> count, time_ns;
  // Input shape signatures (Profile::signatures) of its counted events that
  // carry Kineto's Input Dims / Input type, and how many events had each.
  std::unordered_map<uint32_t, int64_t> signatures;
};

struct Profile {
  std::vector<ProfileStep> steps;  // by trace, then time
  std::vector<ProfileRow> rows;
  std::unordered_map<std::string, size_t> row_index;  // RowKey(cls, name) -> rows
  int64_t warmup_left_out = 0;
  std::string step_source;  // of the first trace; "none" when a rank had no steps
  bool inferred = false;    // a kept step is inferred (steps table kind)
  // Input shape signatures: "<Input Dims> <Input type>", each the op_inputs
  // text (whitespace removed), a missing one left out.
  std::vector<std::string> signatures;
  std::unordered_map<std::string, uint32_t> signature_index;
  int64_t shaped_events = 0;  // counted events with a signature
};

std::string RowKey(EventClass cls, const std::string& name);

// The event class of an event for the aggregate level, or kCount when the
// event is not counted (instants, flows, metadata, counters; the classes
// past kHloOp unless `all_classes`; the profiler's own `Trace` span).
EventClass ClassOf(EventKind kind, bool all_classes);

StatusOr<Profile> BuildProfile(const DiffSide& side, const DiffOptions& options);

}  // namespace th::diff
