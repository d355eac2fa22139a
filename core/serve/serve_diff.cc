#include "core/serve/serve_diff.h"

#include <algorithm>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "core/diff/diff_json.h"
#include "core/diff/diff_names.h"
#include "core/diff/diff_profile.h"
#include "core/diff/diff_runs.h"
#include "core/report/json_writer.h"

namespace th::serve {
namespace {

// An instance: its start and end (absolute ns) and its event.
struct Instance {
  int64_t start = 0, end = 0;
  EventId id = 0;
};
using Span = std::optional<Instance>;

// What the view needs of one side: its kept steps and, per aggregate row,
// the raw names and the first instance in each of the first `pairs` steps.
struct SideView {
  std::vector<const diff::ProfileStep*> steps;  // kept steps of the run's trace
  std::vector<std::set<StringId>> names;        // per aggregate row
  std::vector<std::vector<Span>> first;         // per aggregate row, per pair
};

struct Side {
  PluginResults results;
  diff::DiffSide side;
  diff::Profile profile;
};

void Note(SideView* v, size_t row, const EventColumns& ev, EventId e, size_t step) {
  v->names[row].insert(ev.name[e]);
  if (step == SIZE_MAX) return;
  Span& f = v->first[row][step];
  if (!f || ev.ts[e] < f->start)
    f = Instance{ev.ts[e], ev.ts[e] + std::max<int64_t>(ev.dur[e], 0), e};
}

SideView ViewOf(const ServeRun& run, const diff::Profile& profile,
                const std::unordered_map<std::string, size_t>& row_of_key, size_t rows,
                size_t pairs) {
  SideView v;
  for (const diff::ProfileStep& s : profile.steps)
    if (s.trace == 0) v.steps.push_back(&s);
  v.names.resize(rows);
  v.first.assign(rows, std::vector<Span>(pairs));
  // The pair whose step window holds ts, or SIZE_MAX.
  auto pair_of = [&](int64_t ts) {
    for (size_t k = 0; k < pairs; ++k)
      if (ts >= v.steps[k]->ts && ts < v.steps[k]->ts + v.steps[k]->dur) return k;
    return SIZE_MAX;
  };
  const EventGraph& g = run.graph();
  const EventColumns& ev = g.events;
  std::unordered_map<uint64_t, size_t> row_of_name;  // (class, name id) -> row or SIZE_MAX
  auto row_of = [&](diff::EventClass cls, StringId name) {
    const uint64_t key = (static_cast<uint64_t>(cls) << 32) | name;
    auto [it, fresh] = row_of_name.try_emplace(key, SIZE_MAX);
    if (fresh) {
      auto found = row_of_key.find(diff::RowKey(cls, diff::NormaliseName(g.strings.Get(name))));
      if (found != row_of_key.end()) it->second = found->second;
    }
    return it->second;
  };
  for (EventId e = 0; e < ev.size(); ++e) {
    const diff::EventClass cls = diff::ClassOf(ev.kind[e], false);
    if (cls == diff::EventClass::kCount || (ev.flags[e] & (kFlagEndMarker | kFlagNoDuration)))
      continue;
    const size_t row = row_of(cls, ev.name[e]);
    if (row == SIZE_MAX) continue;
    const EventId launch = IsGpuActivity(ev.kind[e]) ? run.LaunchOf(e) : kNoRow;
    Note(&v, row, ev, e, pair_of(launch != kNoRow ? ev.ts[launch] : ev.ts[e]));
  }
  const XlaLabelTable& xla = g.xla_labels;
  for (size_t i = 0; i < xla.size(); ++i) {
    const EventId e = xla.event[i];
    if (xla.hlo_op[i] == kEmptyString || g.tracks[ev.track[e]].kind == TrackKind::kCpu) continue;
    const size_t row = row_of(diff::EventClass::kHloOp, xla.hlo_op[i]);
    if (row != SIZE_MAX) Note(&v, row, ev, e, pair_of(ev.ts[e]));
  }
  return v;
}

void WriteSpan(JsonWriter& w, const ServeRun& run, const Span& s) {
  if (!s) {
    w.Null();
    return;
  }
  w.BeginArray().Int(run.Relative(s->start)).Int(run.Relative(s->end));
  w.Int(static_cast<int64_t>(s->id)).EndArray();
}

void WriteRowSide(JsonWriter& w, const std::string& prefix, const ServeRun& run, const SideView& v,
                  size_t row) {
  std::vector<std::string_view> names;
  for (StringId s : v.names[row]) names.push_back(run.graph().strings.Get(s));
  std::sort(names.begin(), names.end());
  w.Key(prefix + "_names").BeginArray();
  for (std::string_view n : names) w.String(n);
  w.EndArray().Key(prefix + "_first").BeginArray();
  for (const Span& s : v.first[row]) WriteSpan(w, run, s);
  w.EndArray();
}

std::string ViewJson(const ServeRun& a, size_t a_num, const SideView& va, const ServeRun& b,
                     size_t b_num, const SideView& vb, size_t pairs, const std::string& diff) {
  std::ostringstream out;
  {
    JsonWriter w(out, JsonStyle::kCompact);
    w.BeginObject().Field("a", static_cast<int64_t>(a_num)).Field("b", static_cast<int64_t>(b_num));
    w.Key("pairs").BeginArray();
    for (size_t k = 0; k < pairs; ++k) {
      const diff::ProfileStep& sa = *va.steps[k];
      const diff::ProfileStep& sb = *vb.steps[k];
      w.BeginObject().Field("a_step", sa.step).Field("b_step", sb.step);
      w.Field("a_start_ns", a.Relative(sa.ts)).Field("a_end_ns", a.Relative(sa.ts + sa.dur));
      w.Field("b_start_ns", b.Relative(sb.ts)).Field("b_end_ns", b.Relative(sb.ts + sb.dur));
      w.EndObject();
    }
    w.EndArray().Key("rows").BeginArray();
    for (size_t r = 0; r < va.names.size(); ++r) {
      w.BeginObject();
      WriteRowSide(w, "a", a, va, r);
      WriteRowSide(w, "b", b, vb, r);
      w.EndObject();
    }
    w.EndArray().Key("diff");
  }
  std::string text = out.str();
  std::string body = diff;
  while (!body.empty() && (body.back() == '\n' || body.back() == ' ')) body.pop_back();
  return text + body + "}";
}

StatusOr<std::unique_ptr<Side>> SideOf(const ServeRun& run, size_t num, const std::string& label,
                                       const DiffPluginsSource& plugins) {
  const TraceSet* set = run.imported();
  if (!set)
    return InvalidInput("diff: run " + std::to_string(num) +
                        " holds several ranks; the diff view compares runs of one trace");
  auto side = std::make_unique<Side>();
  auto results = plugins(*set);
  if (!results.ok()) return results.status();
  side->results = std::move(*results);
  side->side = {set, &side->results, label, {run.name()}};
  return side;
}

}  // namespace

StatusOr<std::string> DiffViewJson(const ServeRun& a, size_t a_num, const ServeRun& b, size_t b_num,
                                   const DiffPluginsSource& plugins) {
  auto sa = SideOf(a, a_num, "A", plugins);
  if (!sa.ok()) return sa.status();
  auto sb = SideOf(b, b_num, "B", plugins);
  if (!sb.ok()) return sb.status();
  const diff::DiffOptions options;
  auto result = diff::DiffRuns((*sa)->side, (*sb)->side, options);
  if (!result.ok()) return result.status();
  auto pa = diff::BuildProfile((*sa)->side, options);
  if (!pa.ok()) return pa.status();
  auto pb = diff::BuildProfile((*sb)->side, options);
  if (!pb.ok()) return pb.status();
  std::unordered_map<std::string, size_t> row_of_key;
  for (size_t r = 0; r < result->aggregate.size(); ++r)
    row_of_key[diff::RowKey(result->aggregate[r].cls, result->aggregate[r].name)] = r;
  auto kept = [](const diff::Profile& p) {
    return static_cast<size_t>(
        std::count_if(p.steps.begin(), p.steps.end(), [](auto& s) { return s.trace == 0; }));
  };
  const size_t pairs = std::min(kept(*pa), kept(*pb));
  const size_t rows = result->aggregate.size();
  const SideView va = ViewOf(a, *pa, row_of_key, rows, pairs);
  const SideView vb = ViewOf(b, *pb, row_of_key, rows, pairs);
  return ViewJson(a, a_num, va, b, b_num, vb, pairs, diff::DiffJson(*result));
}

DiffViews::~DiffViews() {
  std::map<std::pair<size_t, size_t>, std::unique_ptr<Entry>> entries;
  {
    std::lock_guard lock(mu_);
    entries.swap(entries_);
  }
  for (auto& [key, entry] : entries)
    if (entry->thread.joinable()) entry->thread.join();
}

ApiResponse DiffViews::Answer(const Runs& runs, const QueryParams& params) {
  size_t nums[2];
  const ServeRun* sides[2];
  const char* keys[2] = {"a", "b"};
  for (int k = 0; k < 2; ++k) {
    auto it = params.find(keys[k]);
    const auto n = it == params.end() ? std::nullopt : ParseInt64(it->second);
    if (!n || *n < 0) return ErrorResponse(400, std::string(keys[k]) + ": give a run number");
    ApiResponse error;
    sides[k] = FindReadyRun(runs, it->second, &error);
    if (!sides[k]) return error;
    if (!sides[k]->imported())
      return ErrorResponse(400, std::string(keys[k]) + ": run " + it->second +
                                    " holds several ranks; the diff view compares runs of one "
                                    "trace");
    nums[k] = static_cast<size_t>(*n);
  }
  if (!plugins_) return ErrorResponse(404, "diff: this server runs no plugins");
  std::lock_guard lock(mu_);
  auto& entry = entries_[{nums[0], nums[1]}];
  if (!entry) {
    entry = std::make_unique<Entry>();
    Entry* e = entry.get();
    const ServeRun *a = sides[0], *b = sides[1];
    const size_t an = nums[0], bn = nums[1];
    e->thread = std::thread([this, e, a, b, an, bn] {
      auto text = DiffViewJson(*a, an, *b, bn, plugins_);
      std::lock_guard done(mu_);
      e->ok = text.ok();
      e->text = text.ok() ? std::move(*text) : text.status().message();
      e->done = true;
    });
  }
  if (!entry->done)
    return ErrorResponse(503, "diff: still computing runs " + std::to_string(nums[0]) + " and " +
                                  std::to_string(nums[1]));
  if (!entry->ok) return ErrorResponse(500, "diff: " + entry->text);
  ApiResponse r;
  r.body = entry->text;
  return r;
}

}  // namespace th::serve
