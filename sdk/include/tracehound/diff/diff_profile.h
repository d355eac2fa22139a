// One side of a diff (A or B) reduced to what the aggregate and attribution
// levels compare: the kept steps of every rank (steady state unless
// all_steps), each step's step-breakdown categories, and per (event class,
// normalised name) the count and time in each kept step. Header-only: the
// `tracehound diff` command and the `trace-diff` plugin build it alike, from
// the catalog tables of each trace and the `steps` / `step_breakdown` tables.
//
// A rank without steps counts as one step spanning all its events (so its
// rows are "unknown"). A host event belongs to the kept step whose window
// [ts, ts + dur) holds its start, on its own rank; GPU work to the step of
// the runtime call that launched it (its own start when it has no launch
// event). Events without a valid duration are not counted; zero-duration
// ones are.
#ifndef TRACEHOUND_DIFF_DIFF_PROFILE_H_
#define TRACEHOUND_DIFF_DIFF_PROFILE_H_

#include <tracehound/diff/diff_names.h>
#include <tracehound/diff/diff_types.h>
#include <tracehound/plugin_api.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace th::diff {

// One trace of a side, as columns of the catalog tables events (ts, dur,
// name, kind, track, parent), event_flags, tracks (kind), the launch pairs
// (event_launches, or every launch edge in edge order) and xla_labels
// (event, hlo_op), op_inputs (event, input_dims, input_types; may be empty),
// and its strings.
struct ProfileTrace {
  int64_t rank = 0;
  uint64_t events = 0;
  const int64_t* ts = nullptr;
  const int64_t* dur = nullptr;
  const uint32_t* name = nullptr;
  const uint8_t* kind = nullptr;
  const uint32_t* track = nullptr;
  const uint32_t* parent = nullptr;  // enclosing event on the track, 0xFFFFFFFF at top
  const uint8_t* flags = nullptr;    // null: no flags set
  uint64_t tracks = 0;
  const uint32_t* track_kind = nullptr;  // TH_TRACK_*
  uint64_t launches = 0;
  const uint32_t* launched = nullptr;  // GPU event rows, with the row of a launch call
  const uint32_t* launch = nullptr;
  uint64_t labels = 0;
  const uint32_t* label_event = nullptr;
  const uint32_t* label_hlo_op = nullptr;  // string ids; 0 is the empty string
  uint64_t op_inputs = 0;
  const uint32_t* op_input_event = nullptr;
  const uint32_t* op_input_dims = nullptr;   // string ids; 0 is the empty string
  const uint32_t* op_input_types = nullptr;  // string ids; 0 is the empty string
  std::function<std::string_view(uint32_t)> string;
};

struct ProfileStep {
  size_t trace = 0;  // index into the side's traces
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

inline std::string RowKey(EventClass cls, const std::string& name) {
  std::string key(1, static_cast<char>('0' + static_cast<int>(cls)));
  key += name;
  return key;
}

// The event class of an event of kind `kind` (TH_EVENT_*) for the aggregate
// level, or kCount when the event is not counted (instants, flows, metadata,
// counters; the classes past kHloOp unless `all_classes`; the profiler's own
// `Trace` span).
inline EventClass ClassOfKind(uint32_t kind, bool all_classes) {
  switch (kind) {
    case TH_EVENT_CPU_OP:
      return EventClass::kCpuOp;
    case TH_EVENT_KERNEL:
    case TH_EVENT_MEMCPY:
    case TH_EVENT_MEMSET:
      return EventClass::kGpuKernel;
    default:
      break;
  }
  if (!all_classes) return EventClass::kCount;
  switch (kind) {
    case TH_EVENT_RUNTIME:
    case TH_EVENT_DRIVER:
      return EventClass::kRuntime;
    case TH_EVENT_USER_ANNOTATION:
    case TH_EVENT_GPU_USER_ANNOTATION:
      return EventClass::kAnnotation;
    case TH_EVENT_PYTHON_FUNCTION:
      return EventClass::kPython;
    case TH_EVENT_MEMORY:
    case TH_EVENT_OUT_OF_MEMORY:
    case TH_EVENT_INSTANT:
    case TH_EVENT_FLOW:
    case TH_EVENT_METADATA:
    case TH_EVENT_COUNTER:
    case TH_EVENT_TRACE_SPAN:
      return EventClass::kCount;
    default:
      return EventClass::kOther;
  }
}

namespace profile_internal {

// Column `name` of `t` when it has `type`, else nullptr.
template <typename T>
const T* Column(const th_table* t, const char* name, uint32_t type) {
  if (!t) return nullptr;
  for (uint32_t c = 0; c < t->column_count; ++c)
    if (std::strcmp(t->columns[c].name, name) == 0)
      return t->columns[c].values.type == type ? static_cast<const T*>(t->columns[c].values.data)
                                               : nullptr;
  return nullptr;
}

// The kept steps of every trace from the `steps` table; "" or the error.
inline std::string ReadSteps(const std::vector<ProfileTrace>& traces, const th_table* steps,
                             const std::string& label, const DiffOptions& options, Profile* p) {
  std::map<int64_t, size_t> trace_of_rank;
  for (size_t t = 0; t < traces.size(); ++t) trace_of_rank[traces[t].rank] = t;
  if (!steps) return "diff: side " + label + " has no steps table";
  auto ints = [&](const char* n) { return Column<int64_t>(steps, n, TH_TYPE_I64); };
  auto texts = [&](const char* n) { return Column<const char*>(steps, n, TH_TYPE_STRING); };
  const int64_t *rank = ints("rank"), *number = ints("step"), *ts = ints("ts"), *dur = ints("dur"),
                *warm = ints("warmup"), *host_ts = ints("host_ts"), *host_dur = ints("host_dur");
  const char* const* source = texts("source");
  const char* const* kind = texts("kind");
  if (!rank || !number || !ts || !dur || !warm || !source || !kind || !host_ts || !host_dur)
    return "diff: side " + label + ": the steps table lacks a column";
  std::vector<bool> has_steps(traces.size(), false);
  for (uint64_t i = 0; i < steps->row_count; ++i) {
    auto it = trace_of_rank.find(rank[i]);
    if (it == trace_of_rank.end()) continue;
    has_steps[it->second] = true;
    if (p->step_source.empty()) p->step_source = source[i];
    if (std::string_view(kind[i]) == "inferred") p->inferred = true;
    if (options.hta) {
      p->steps.push_back({it->second, rank[i], number[i], host_ts[i], host_dur[i]});
      continue;
    }
    if (warm[i] != 0 && !options.all_steps) {
      ++p->warmup_left_out;
      continue;
    }
    p->steps.push_back({it->second, rank[i], number[i], ts[i], dur[i]});
  }
  // A rank without steps: one step over all its events.
  for (size_t t = 0; t < traces.size(); ++t) {
    if (has_steps[t]) continue;
    const ProfileTrace& tr = traces[t];
    int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
    for (uint64_t e = 0; e < tr.events; ++e) {
      lo = std::min(lo, tr.ts[e]);
      hi = std::max(hi, tr.ts[e] + std::max<int64_t>(tr.dur[e], 0));
    }
    if (lo > hi) continue;
    p->steps.push_back({t, tr.rank, -1, lo, hi - lo + 1});
    p->step_source = "none";
  }
  std::stable_sort(p->steps.begin(), p->steps.end(), [](const auto& x, const auto& y) {
    return x.trace != y.trace ? x.trace < y.trace : x.ts < y.ts;
  });
  if (options.hta)  // the first step of each rank
    p->steps.erase(std::unique(p->steps.begin(), p->steps.end(),
                               [](const auto& x, const auto& y) { return x.trace == y.trace; }),
                   p->steps.end());
  return "";
}

// Each kept step's categories from the `step_breakdown` table, by (rank, ts).
inline void ReadCategories(const th_table* sb, Profile* p) {
  const int64_t* rank = Column<int64_t>(sb, "rank", TH_TYPE_I64);
  const int64_t* ts = Column<int64_t>(sb, "ts", TH_TYPE_I64);
  if (!rank || !ts) return;
  std::array<const int64_t*, kCategoryCount> cats{};
  for (size_t c = 0; c < kCategoryCount; ++c)
    if (!(cats[c] = Column<int64_t>(sb, kCategoryNames[c], TH_TYPE_I64))) return;
  std::map<std::pair<int64_t, int64_t>, uint64_t> row;
  for (uint64_t i = 0; i < sb->row_count; ++i) row[{rank[i], ts[i]}] = i;
  for (ProfileStep& s : p->steps) {
    auto it = row.find({s.rank, s.ts});
    if (it == row.end()) continue;
    s.has_categories = true;
    for (size_t c = 0; c < kCategoryCount; ++c) s.categories[c] = cats[c][it->second];
  }
}

inline size_t RowOf(Profile* p, EventClass cls, const std::string& name) {
  auto [it, fresh] = p->row_index.try_emplace(RowKey(cls, name), p->rows.size());
  if (fresh) {
    ProfileRow r;
    r.cls = cls;
    r.name = name;
    r.count.assign(p->steps.size(), 0);
    r.time_ns.assign(p->steps.size(), 0);
    p->rows.push_back(std::move(r));
  }
  return it->second;
}

inline bool IsGpuActivity(uint32_t kind) {
  return kind == TH_EVENT_KERNEL || kind == TH_EVENT_MEMCPY || kind == TH_EVENT_MEMSET;
}

// Counts the input shape signature of op_inputs row `op` of `tr` into row r;
// `cache` holds the trace's (dims, types) string id pairs.
inline void CountSignature(const ProfileTrace& tr, uint32_t op,
                           std::unordered_map<uint64_t, uint32_t>* cache, Profile* p,
                           ProfileRow* r) {
  const uint64_t key = (static_cast<uint64_t>(tr.op_input_dims[op]) << 32) | tr.op_input_types[op];
  auto [it, fresh] = cache->try_emplace(key, 0);
  if (fresh) {
    std::string text(tr.string(tr.op_input_dims[op]));
    const std::string_view types = tr.string(tr.op_input_types[op]);
    if (!text.empty() && !types.empty()) text += ' ';
    text += types;
    auto [at, added] = p->signature_index.try_emplace(std::move(text),
                                                      static_cast<uint32_t>(p->signatures.size()));
    if (added) p->signatures.push_back(at->first);
    it->second = at->second;
  }
  ++r->signatures[it->second];
  ++p->shaped_events;
}

// Counts one trace's events into the rows; `first`..`last` are its steps.
inline void CountTrace(const ProfileTrace& tr, size_t first, size_t last,
                       const DiffOptions& options, Profile* p) {
  std::vector<int64_t> starts;
  for (size_t s = first; s < last; ++s) starts.push_back(p->steps[s].ts);
  auto step_of = [&](int64_t ts) -> size_t {
    auto it = std::upper_bound(starts.begin(), starts.end(), ts);
    if (it == starts.begin()) return SIZE_MAX;
    size_t s = first + static_cast<size_t>(it - starts.begin()) - 1;
    return ts < p->steps[s].ts + p->steps[s].dur ? s : SIZE_MAX;
  };
  // Row per (class, name id), resolved once.
  std::unordered_map<uint64_t, size_t> row_of_name;
  auto add = [&](EventClass cls, uint32_t name, size_t s, int64_t dur) -> ProfileRow& {
    uint64_t key = (static_cast<uint64_t>(cls) << 32) | name;
    auto [it, fresh] = row_of_name.try_emplace(key, 0);
    if (fresh) {
      const std::string_view raw = tr.string(name);
      it->second = RowOf(p, cls, options.hta ? std::string(raw) : NormaliseName(raw));
    }
    ProfileRow& r = p->rows[it->second];
    ++r.count[s];
    r.time_ns[s] += dur;
    return r;
  };
  constexpr uint32_t kNone = 0xFFFFFFFFu;
  std::vector<uint32_t> launch(tr.events, kNone);
  for (uint64_t i = 0; i < tr.launches; ++i) launch[tr.launched[i]] = tr.launch[i];
  std::vector<uint32_t> op_input(tr.op_inputs ? tr.events : 0, kNone);
  for (uint64_t i = 0; i < tr.op_inputs; ++i)
    if (tr.op_input_event[i] < tr.events) op_input[tr.op_input_event[i]] = static_cast<uint32_t>(i);
  std::unordered_map<uint64_t, uint32_t> signature_of;  // (dims, types) ids -> signature
  const bool all_classes = options.all_classes || options.hta;
  constexpr uint8_t kSkip = TH_EVENT_FLAG_END_MARKER | TH_EVENT_FLAG_NO_DURATION;
  for (uint64_t e = 0; e < tr.events; ++e) {
    const EventClass cls = ClassOfKind(tr.kind[e], all_classes);
    if (cls == EventClass::kCount || (tr.flags && (tr.flags[e] & kSkip))) continue;
    size_t s = SIZE_MAX;
    if (!IsGpuActivity(tr.kind[e]))
      s = step_of(tr.ts[e]);
    else if (launch[e] != kNone)
      s = step_of(tr.ts[launch[e]]);
    else if (!options.hta)
      s = step_of(tr.ts[e]);
    if (s == SIZE_MAX) continue;
    ProfileRow& r = add(cls, tr.name[e], s, std::max<int64_t>(tr.dur[e], 0));
    if (!op_input.empty() && op_input[e] != kNone)
      CountSignature(tr, op_input[e], &signature_of, p, &r);
  }
  if (options.hta) return;  // HTA has no HLO rows
  for (uint64_t i = 0; i < tr.labels; ++i) {
    const uint32_t e = tr.label_event[i];
    if (tr.label_hlo_op[i] == 0) continue;
    if (tr.track[e] < tr.tracks && tr.track_kind[tr.track[e]] == TH_TRACK_CPU) continue;
    const size_t s = step_of(tr.ts[e]);
    if (s != SIZE_MAX)
      add(EventClass::kHloOp, tr.label_hlo_op[i], s, std::max<int64_t>(tr.dur[e], 0));
  }
}

}  // namespace profile_internal

// The profile of one side from its traces and the `steps` and
// `step_breakdown` tables of those traces (step_breakdown may be null: the
// attribution is then not available). Returns "" or the error (a side
// without a steps table, a steps table without a column); `label` names the
// side in it.
inline std::string BuildSideProfile(const std::vector<ProfileTrace>& traces, const th_table* steps,
                                    const th_table* step_breakdown, const std::string& label,
                                    const DiffOptions& options, Profile* out) {
  *out = Profile{};
  std::string error = profile_internal::ReadSteps(traces, steps, label, options, out);
  if (!error.empty()) return error;
  if (step_breakdown) profile_internal::ReadCategories(step_breakdown, out);
  size_t first = 0;
  while (first < out->steps.size()) {
    size_t last = first;
    while (last < out->steps.size() && out->steps[last].trace == out->steps[first].trace) ++last;
    profile_internal::CountTrace(traces[out->steps[first].trace], first, last, options, out);
    first = last;
  }
  return "";
}

}  // namespace th::diff

#endif  // TRACEHOUND_DIFF_DIFF_PROFILE_H_
