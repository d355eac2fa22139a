#include "core/diff/diff_profile.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string_view>
#include <utility>

#include "core/diff/diff_names.h"

namespace th::diff {
namespace {

template <typename T>
const std::vector<T>* Col(const DerivedTable& t, const char* name) {
  const DerivedColumn* c = t.Find(name);
  if (!c) return nullptr;
  return std::get_if<std::vector<T>>(&c->values);
}

const DerivedTable* FindTable(const PluginResults& r, const char* name) {
  auto it = r.tables.find(name);
  return it == r.tables.end() ? nullptr : &it->second;
}

// The kept steps of every trace from the `steps` table.
Status ReadSteps(const DiffSide& side, const DiffOptions& options, Profile* p) {
  const TraceSet& set = *side.traces;
  std::map<int64_t, size_t> trace_of_rank;
  for (size_t t = 0; t < set.traces.size(); ++t) trace_of_rank[set.traces[t]->info.rank] = t;
  const DerivedTable* steps = side.results ? FindTable(*side.results, "steps") : nullptr;
  if (!steps) return InvalidInput("diff: side " + side.label + " has no steps table");
  auto rank = Col<int64_t>(*steps, "rank"), number = Col<int64_t>(*steps, "step"),
       ts = Col<int64_t>(*steps, "ts"), dur = Col<int64_t>(*steps, "dur"),
       warm = Col<int64_t>(*steps, "warmup"), host_ts = Col<int64_t>(*steps, "host_ts"),
       host_dur = Col<int64_t>(*steps, "host_dur");
  auto source = Col<std::string>(*steps, "source"), kind = Col<std::string>(*steps, "kind");
  if (!rank || !number || !ts || !dur || !warm || !source || !kind || !host_ts || !host_dur)
    return InvalidInput("diff: side " + side.label + ": the steps table lacks a column");
  std::vector<bool> has_steps(set.traces.size(), false);
  for (size_t i = 0; i < steps->rows; ++i) {
    auto it = trace_of_rank.find((*rank)[i]);
    if (it == trace_of_rank.end()) continue;
    has_steps[it->second] = true;
    if (p->step_source.empty()) p->step_source = (*source)[i];
    if ((*kind)[i] == "inferred") p->inferred = true;
    if (options.hta) {
      p->steps.push_back({it->second, (*rank)[i], (*number)[i], (*host_ts)[i], (*host_dur)[i]});
      continue;
    }
    if ((*warm)[i] != 0 && !options.all_steps) {
      ++p->warmup_left_out;
      continue;
    }
    p->steps.push_back({it->second, (*rank)[i], (*number)[i], (*ts)[i], (*dur)[i]});
  }
  // A rank without steps: one step over all its events.
  for (size_t t = 0; t < set.traces.size(); ++t) {
    if (has_steps[t]) continue;
    const EventColumns& ev = set.traces[t]->graph.events;
    int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
    for (size_t e = 0; e < ev.size(); ++e) {
      lo = std::min(lo, ev.ts[e]);
      hi = std::max(hi, ev.ts[e] + std::max<int64_t>(ev.dur[e], 0));
    }
    if (lo > hi) continue;
    p->steps.push_back({t, set.traces[t]->info.rank, -1, lo, hi - lo + 1});
    p->step_source = "none";
  }
  std::stable_sort(p->steps.begin(), p->steps.end(), [](const auto& x, const auto& y) {
    return x.trace != y.trace ? x.trace < y.trace : x.ts < y.ts;
  });
  if (options.hta)  // the first step of each rank
    p->steps.erase(std::unique(p->steps.begin(), p->steps.end(),
                               [](const auto& x, const auto& y) { return x.trace == y.trace; }),
                   p->steps.end());
  return Ok();
}

// Each kept step's categories from the `step_breakdown` table, by (rank, ts).
void ReadCategories(const DiffSide& side, Profile* p) {
  const DerivedTable* sb = side.results ? FindTable(*side.results, "step_breakdown") : nullptr;
  if (!sb) return;
  auto rank = Col<int64_t>(*sb, "rank"), ts = Col<int64_t>(*sb, "ts");
  if (!rank || !ts) return;
  std::array<const std::vector<int64_t>*, kCategoryCount> cats{};
  for (size_t c = 0; c < kCategoryCount; ++c)
    if (!(cats[c] = Col<int64_t>(*sb, kCategoryNames[c]))) return;
  std::map<std::pair<int64_t, int64_t>, size_t> row;
  for (size_t i = 0; i < sb->rows; ++i) row[{(*rank)[i], (*ts)[i]}] = i;
  for (ProfileStep& s : p->steps) {
    auto it = row.find({s.rank, s.ts});
    if (it == row.end()) continue;
    s.has_categories = true;
    for (size_t c = 0; c < kCategoryCount; ++c) s.categories[c] = (*cats[c])[it->second];
  }
}

size_t RowOf(Profile* p, EventClass cls, const std::string& name) {
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

// Counts the input shape signature of op_inputs row `op` into row r;
// `cache` holds the trace's (dims, types) string id pairs.
void CountSignature(const EventGraph& g, uint32_t op, std::unordered_map<uint64_t, uint32_t>* cache,
                    Profile* p, ProfileRow* r) {
  const OpInputsTable& o = g.op_inputs;
  if (op >= o.size()) return;
  const uint64_t key = (static_cast<uint64_t>(o.input_dims[op]) << 32) | o.input_types[op];
  auto [it, fresh] = cache->try_emplace(key, 0);
  if (fresh) {
    std::string text(g.strings.Get(o.input_dims[op]));
    const std::string_view types = g.strings.Get(o.input_types[op]);
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
void CountTrace(const Trace& trace, size_t first, size_t last, const DiffOptions& options,
                Profile* p) {
  const EventGraph& g = trace.graph;
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
  auto add = [&](EventClass cls, StringId name, size_t s, int64_t dur) -> ProfileRow& {
    uint64_t key = (static_cast<uint64_t>(cls) << 32) | name;
    auto [it, fresh] = row_of_name.try_emplace(key, 0);
    if (fresh) {
      const std::string_view raw = g.strings.Get(name);
      it->second = RowOf(p, cls, options.hta ? std::string(raw) : NormaliseName(raw));
    }
    ProfileRow& r = p->rows[it->second];
    ++r.count[s];
    r.time_ns[s] += dur;
    return r;
  };
  const EventColumns& ev = g.events;
  std::vector<EventId> launch(ev.size(), kNoRow);
  for (size_t i = 0; i < g.edges.size(); ++i)
    if (g.edges.kind[i] == EdgeKind::kLaunch) launch[g.edges.dst[i]] = g.edges.src[i];
  const bool all_classes = options.all_classes || options.hta;
  std::unordered_map<uint64_t, uint32_t> signature_of;  // (dims, types) ids -> signature
  for (size_t e = 0; e < ev.size(); ++e) {
    const EventClass cls = ClassOf(ev.kind[e], all_classes);
    if (cls == EventClass::kCount || (ev.flags[e] & (kFlagEndMarker | kFlagNoDuration))) continue;
    size_t s = SIZE_MAX;
    if (!IsGpuActivity(ev.kind[e]))
      s = step_of(ev.ts[e]);
    else if (launch[e] != kNoRow)
      s = step_of(ev.ts[launch[e]]);
    else if (!options.hta)
      s = step_of(ev.ts[e]);
    if (s == SIZE_MAX) continue;
    ProfileRow& r = add(cls, ev.name[e], s, std::max<int64_t>(ev.dur[e], 0));
    if (ev.args_row[e] != kNoRow && ArgsTableOf(ev.kind[e]) == ArgsTable::kOpInputs)
      CountSignature(g, ev.args_row[e], &signature_of, p, &r);
  }
  if (options.hta) return;  // HTA has no HLO rows
  const XlaLabelTable& xla = g.xla_labels;
  for (size_t i = 0; i < xla.size(); ++i) {
    const EventId e = xla.event[i];
    if (xla.hlo_op[i] == kEmptyString) continue;
    const Track& tr = g.tracks[ev.track[e]];
    if (tr.kind == TrackKind::kCpu) continue;
    const size_t s = step_of(ev.ts[e]);
    if (s != SIZE_MAX) add(EventClass::kHloOp, xla.hlo_op[i], s, std::max<int64_t>(ev.dur[e], 0));
  }
}

}  // namespace

std::string RowKey(EventClass cls, const std::string& name) {
  std::string key(1, static_cast<char>('0' + static_cast<int>(cls)));
  key += name;
  return key;
}

EventClass ClassOf(EventKind kind, bool all_classes) {
  switch (kind) {
    case EventKind::kCpuOp:
      return EventClass::kCpuOp;
    case EventKind::kKernel:
    case EventKind::kMemcpy:
    case EventKind::kMemset:
      return EventClass::kGpuKernel;
    default:
      break;
  }
  if (!all_classes) return EventClass::kCount;
  switch (kind) {
    case EventKind::kRuntime:
    case EventKind::kDriver:
      return EventClass::kRuntime;
    case EventKind::kUserAnnotation:
    case EventKind::kGpuUserAnnotation:
      return EventClass::kAnnotation;
    case EventKind::kPythonFunction:
      return EventClass::kPython;
    case EventKind::kMemory:
    case EventKind::kOutOfMemory:
    case EventKind::kInstant:
    case EventKind::kFlow:
    case EventKind::kMetadata:
    case EventKind::kCounter:
    case EventKind::kTraceSpan:
      return EventClass::kCount;
    default:
      return EventClass::kOther;
  }
}

StatusOr<Profile> BuildProfile(const DiffSide& side, const DiffOptions& options) {
  if (!side.traces) return InvalidInput("diff: side " + side.label + " has no traces");
  Profile p;
  Status s = ReadSteps(side, options, &p);
  if (!s.ok()) return s;
  ReadCategories(side, &p);
  size_t first = 0;
  while (first < p.steps.size()) {
    size_t last = first;
    while (last < p.steps.size() && p.steps[last].trace == p.steps[first].trace) ++last;
    CountTrace(*side.traces->traces[p.steps[first].trace], first, last, options, &p);
    first = last;
  }
  return p;
}

}  // namespace th::diff
