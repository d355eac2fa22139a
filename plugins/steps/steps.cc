// steps: the steps of each rank and where they come from, with the warm-up
// steps kept apart from the steady state.
//
// Sources, first that applies per rank (option `source` forces one):
//   pattern        events whose name matches the `pattern` regex
//   profiler_step  ProfilerStep#N on the host, each ended at the end of the
//                  GPU work it launched (as the PyTorch profiler plugin does)
//   xla_step       the "Steps" line of an XProf device plane
//   xla_module     executions of the dominant module on "XLA Modules" lines
//   inferred       the period of the kernel sequence on the busiest GPU stream
// Publishes table "steps" (one row per rank and step) for later plugins.
#include <tracehound/sdk.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

using th::sdk::Context;
using th::sdk::Declaration;
using th::sdk::Trace;

struct Step {
  int64_t number = 0;
  int64_t ts = 0, dur = 0;            // the step's window, ns
  int64_t host_ts = 0, host_dur = 0;  // the marker itself (= window when there is none)
};

struct RankSteps {
  std::string source;     // profiler_step, xla_step, xla_module, pattern, inferred, none
  double confidence = 1;  // 1 for markers; the period match for inferred steps
  std::vector<Step> steps;
  int64_t warmup = 0;
};

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

int64_t Median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// Keeps the outermost of nested or overlapping windows (sorted by ts).
std::vector<Step> TopLevel(std::vector<Step> steps) {
  std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
    return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur;
  });
  std::vector<Step> out;
  for (const Step& s : steps)
    if (out.empty() || s.ts >= out.back().ts + out.back().dur) out.push_back(s);
  return out;
}

// Events matching `re` (cached per name id); step number from the first
// capture group when it is an integer, else the ordinal.
std::vector<Step> PatternSteps(const Trace& t, const std::regex& re) {
  std::unordered_map<uint32_t, std::pair<bool, std::optional<int64_t>>> cache;
  std::vector<Step> found;
  std::vector<bool> numbered;
  for (uint64_t i = 0; i < t.size(); ++i) {
    if (t.dur(i) <= 0) continue;
    uint32_t k = t.kind(i);
    if (k == TH_EVENT_FLOW || k == TH_EVENT_METADATA || k == TH_EVENT_COUNTER) continue;
    auto [it, fresh] = cache.try_emplace(t.name_id(i));
    if (fresh) {
      std::string name(t.name(i));
      std::smatch m;
      it->second.first = std::regex_search(name, m, re);
      if (it->second.first && m.size() > 1 && m[1].matched)
        it->second.second = ParseInt(m[1].str());
    }
    if (!it->second.first) continue;
    Step s;
    s.number = it->second.second.value_or(-1);
    s.ts = s.host_ts = t.ts(i);
    s.dur = s.host_dur = t.dur(i);
    found.push_back(s);
  }
  std::vector<Step> out = TopLevel(std::move(found));
  bool all_numbered =
      std::all_of(out.begin(), out.end(), [](const Step& s) { return s.number >= 0; });
  for (size_t i = 0; i < out.size(); ++i)
    if (!all_numbered) out[i].number = static_cast<int64_t>(i);
  return out;
}

// ProfilerStep#N windows; with `extend`, step i runs from max(its start, the
// previous step's end) to max(its end, the end of the GPU work launched
// inside it): the PyTorch profiler plugin's step time.
std::vector<Step> ProfilerSteps(const Trace& t, bool extend) {
  std::vector<Step> out;
  for (uint64_t s = 0; s < t.step_count(); ++s) {
    const th_step& st = t.step(s);
    Step x;
    x.number = st.number;
    x.ts = x.host_ts = st.ts;
    x.dur = x.host_dur = st.dur;
    out.push_back(x);
  }
  std::sort(out.begin(), out.end(), [](const Step& a, const Step& b) { return a.ts < b.ts; });
  if (!extend || out.empty()) return out;
  std::vector<int64_t> starts;
  for (const Step& s : out) starts.push_back(s.host_ts);
  std::vector<int64_t> device_end(out.size(), std::numeric_limits<int64_t>::min());
  for (uint64_t e = 0; e < t.edge_count(); ++e) {
    if (t.edge_kind(e) != TH_EDGE_LAUNCH) continue;
    uint32_t dst = t.edge_dst(e);
    if (!t.is_gpu_activity(dst)) continue;
    int64_t launch = t.ts(t.edge_src(e));
    auto it = std::upper_bound(starts.begin(), starts.end(), launch);
    if (it == starts.begin()) continue;
    size_t s = static_cast<size_t>(it - starts.begin()) - 1;
    if (launch >= out[s].host_ts + out[s].host_dur) continue;
    device_end[s] = std::max(device_end[s], t.end(dst));
  }
  int64_t prev_end = out.front().host_ts;
  for (size_t s = 0; s < out.size(); ++s) {
    int64_t begin = std::max(prev_end, out[s].host_ts);
    int64_t end = std::max(out[s].host_ts + out[s].host_dur, device_end[s]);
    end = std::max(end, begin);
    out[s].ts = begin;
    out[s].dur = end - begin;
    prev_end = end;
  }
  return out;
}

bool IsDeviceTrack(const Trace& t, const th_track& tr) {
  return t.String(tr.process_name).starts_with("/device:");
}

// XProf "Steps" lines: one event per step (name = the step's group id), the
// devices merged by step number.
std::vector<Step> XlaStepLine(const Trace& t) {
  std::map<int64_t, Step> by_number;
  std::vector<uint32_t> tracks;
  for (uint32_t k = 0; k < t.track_count(); ++k)
    if (t.String(t.track(k).thread_name) == "Steps" && IsDeviceTrack(t, t.track(k)))
      tracks.push_back(k);
  if (tracks.empty()) return {};
  std::map<uint32_t, int64_t> ordinal;
  for (uint64_t i = 0; i < t.size(); ++i) {
    uint32_t k = t.track_index(i);
    if (std::find(tracks.begin(), tracks.end(), k) == tracks.end() || t.dur(i) <= 0) continue;
    int64_t n = ParseInt(t.name(i)).value_or(ordinal[k]);
    ++ordinal[k];
    auto [it, fresh] = by_number.try_emplace(n);
    Step& s = it->second;
    if (fresh) {
      s.number = n;
      s.ts = t.ts(i);
      s.dur = t.dur(i);
    } else {
      int64_t end = std::max(s.ts + s.dur, t.end(i));
      s.ts = std::min(s.ts, t.ts(i));
      s.dur = end - s.ts;
    }
  }
  std::vector<Step> out;
  for (auto& [n, s] : by_number) {
    s.host_ts = s.ts;
    s.host_dur = s.dur;
    out.push_back(s);
  }
  std::sort(out.begin(), out.end(), [](const Step& a, const Step& b) { return a.ts < b.ts; });
  return out;
}

// Executions of the dominant module (largest summed time) on the "XLA
// Modules" lines; the k-th executions of the devices that ran it most often
// are merged into step k.
std::vector<Step> XlaModuleSteps(const Trace& t) {
  std::vector<bool> module_track(t.track_count(), false);
  bool any = false;
  for (uint32_t k = 0; k < t.track_count(); ++k) {
    if (t.String(t.track(k).thread_name) == "XLA Modules" && IsDeviceTrack(t, t.track(k)))
      module_track[k] = any = true;
  }
  if (!any) return {};
  // The module tracks' events, from the importer's track order (not a pass
  // over every event of the trace).
  auto for_each_module_event = [&](auto visit) {
    for (uint32_t k = 0; k < t.track_count(); ++k) {
      if (!module_track[k]) continue;
      const Trace::TrackEvents events = t.track_events(k);
      for (uint32_t n = 0; n < events.size(); ++n)
        if (t.dur(events[n]) > 0) visit(k, events[n]);
    }
  };
  std::map<std::string, int64_t> total;
  for_each_module_event([&](uint32_t, uint32_t i) { total[std::string(t.name(i))] += t.dur(i); });
  if (total.empty()) return {};
  std::string dominant =
      std::max_element(total.begin(), total.end(), [](const auto& a, const auto& b) {
        return a.second < b.second;
      })->first;
  std::map<uint32_t, std::vector<std::pair<int64_t, int64_t>>> runs;  // track -> (ts, end)
  for_each_module_event([&](uint32_t k, uint32_t i) {
    if (t.name(i) == dominant) runs[k].emplace_back(t.ts(i), t.end(i));
  });
  size_t most = 0;
  for (auto& [k, r] : runs) {
    std::sort(r.begin(), r.end());
    most = std::max(most, r.size());
  }
  std::vector<Step> out(most);
  for (size_t s = 0; s < most; ++s) {
    int64_t b = std::numeric_limits<int64_t>::max(), e = std::numeric_limits<int64_t>::min();
    for (const auto& [k, r] : runs) {
      if (r.size() != most) continue;
      b = std::min(b, r[s].first);
      e = std::max(e, r[s].second);
    }
    out[s].number = static_cast<int64_t>(s);
    out[s].ts = out[s].host_ts = b;
    out[s].dur = out[s].host_dur = e - b;
  }
  return out;
}

// Steps from the periodicity of the GPU activity on the busiest stream.
//
// Phase 1: candidates. A name occurring c >= 3 times at nearly equal
// distances L in the sequence (every gap within max(1, L/10) of the median)
// marks a period of L activities.
// Phase 2: the period's match: the share of positions i whose name equals the
// name at i + L (one step with an extra kernel costs about 1/steps).
// Phase 3: the anchor: highest match, then the largest mean idle gap before
// its occurrences (steps tend to start after the host catches up), then the
// shorter period. Steps run from one occurrence to the next; the last one to
// the end of the stream's work when a whole period follows it.
struct Inference {
  std::vector<Step> steps;
  double match = 0;
};

Inference InferSteps(const Trace& t) {
  std::map<uint32_t, uint64_t> per_track;
  for (uint64_t i = 0; i < t.size(); ++i)
    if (t.is_gpu_activity(i)) ++per_track[t.track_index(i)];
  if (per_track.empty()) return {};
  uint32_t busiest =
      std::max_element(per_track.begin(), per_track.end(), [](const auto& a, const auto& b) {
        return a.second < b.second;
      })->first;
  std::vector<uint64_t> seq;
  for (uint64_t i = 0; i < t.size(); ++i)
    if (t.is_gpu_activity(i) && t.track_index(i) == busiest) seq.push_back(i);
  std::stable_sort(seq.begin(), seq.end(),
                   [&](uint64_t a, uint64_t b) { return t.ts(a) < t.ts(b); });
  const size_t n = seq.size();
  if (n < 3) return {};
  std::vector<uint32_t> name(n);
  std::vector<int64_t> gap_before(n, 0);
  int64_t busy_until = std::numeric_limits<int64_t>::min();
  for (size_t i = 0; i < n; ++i) {
    name[i] = t.name_id(seq[i]);
    if (i > 0) gap_before[i] = std::max<int64_t>(0, t.ts(seq[i]) - busy_until);
    busy_until = std::max(busy_until, t.end(seq[i]));
  }

  std::unordered_map<uint32_t, std::vector<uint32_t>> positions;
  for (size_t i = 0; i < n; ++i) positions[name[i]].push_back(static_cast<uint32_t>(i));
  struct Candidate {
    uint32_t name;
    int64_t period;
    double mean_gap;
  };
  std::vector<Candidate> candidates;
  std::map<int64_t, int64_t> support;  // period -> names
  for (const auto& [id, pos] : positions) {
    if (pos.size() < 3) continue;
    std::vector<int64_t> gaps;
    for (size_t k = 1; k < pos.size(); ++k) gaps.push_back(pos[k] - pos[k - 1]);
    int64_t period = Median(gaps);
    int64_t tol = std::max<int64_t>(1, period / 10);
    if (std::any_of(gaps.begin(), gaps.end(),
                    [&](int64_t g) { return std::llabs(g - period) > tol; }))
      continue;
    double gap = 0;
    for (uint32_t p : pos) gap += static_cast<double>(gap_before[p]);
    candidates.push_back({id, period, gap / static_cast<double>(pos.size())});
    ++support[period];
  }
  if (candidates.empty()) return {};
  // Evaluate at most 128 periods, the best supported ones.
  std::vector<std::pair<int64_t, int64_t>> periods(support.begin(), support.end());
  std::sort(periods.begin(), periods.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (periods.size() > 128) periods.resize(128);
  std::map<int64_t, double> match;
  for (const auto& [period, names] : periods) {
    auto l = static_cast<size_t>(period);
    if (l == 0 || l >= n) continue;
    size_t same = 0;
    for (size_t i = 0; i + l < n; ++i) same += name[i] == name[i + l];
    match[period] = static_cast<double>(same) / static_cast<double>(n - l);
  }
  const Candidate* best = nullptr;
  double best_match = -1;
  for (const Candidate& c : candidates) {
    auto m = match.find(c.period);
    if (m == match.end()) continue;
    bool better = !best || m->second > best_match + 0.005 ||
                  (m->second > best_match - 0.005 &&
                   (c.mean_gap > best->mean_gap ||
                    (c.mean_gap == best->mean_gap &&
                     (c.period < best->period ||
                      (c.period == best->period &&
                       positions[c.name].front() < positions[best->name].front())))));
    if (better) {
      best = &c;
      best_match = m->second;
    }
  }
  constexpr double kMinMatch = 0.8;
  if (!best || best_match < kMinMatch) return {};
  const std::vector<uint32_t>& pos = positions[best->name];
  Inference out;
  out.match = best_match;
  int64_t tol = std::max<int64_t>(1, best->period / 10);
  for (size_t k = 0; k < pos.size(); ++k) {
    Step s;
    s.number = static_cast<int64_t>(k);
    s.ts = t.ts(seq[pos[k]]);
    if (k + 1 < pos.size()) {
      s.dur = t.ts(seq[pos[k + 1]]) - s.ts;
    } else {
      if (static_cast<int64_t>(n - pos[k]) < best->period - tol) break;
      int64_t end = s.ts;
      for (size_t i = pos[k]; i < n; ++i) end = std::max(end, t.end(seq[i]));
      s.dur = end - s.ts;
    }
    s.host_ts = s.ts;
    s.host_dur = s.dur;
    out.steps.push_back(s);
  }
  return out;
}

// Warm-up count of one rank. Automatic (-1): none for a single step; else the
// first step, and each step after it while it lasts more than `factor` times
// the median of the steps after it (at most half of the steps).
int64_t Warmup(const std::vector<Step>& steps, int64_t option, double factor) {
  const auto n = static_cast<int64_t>(steps.size());
  if (option >= 0) return std::min(option, n);
  if (n <= 1) return 0;
  int64_t w = 1;
  while (w < n - 1 && 2 * (w + 1) <= n) {
    std::vector<int64_t> rest;
    for (int64_t k = w + 1; k < n; ++k) rest.push_back(steps[static_cast<size_t>(k)].dur);
    if (static_cast<double>(steps[static_cast<size_t>(w)].dur) <=
        factor * static_cast<double>(Median(rest)))
      break;
    ++w;
  }
  return w;
}

// The tables it publishes.
th::sdk::Schema StepsTable() {
  return th::sdk::Schema("steps")
      .View("steps")
      .Int("rank")
      .Int("step")
      .Int("ts", "ns")
      .Int("dur", "ns")
      .Int("host_ts", "ns")
      .Int("host_dur", "ns")
      .Int("warmup")
      .Text("phase")
      .Text("source")
      .Text("kind")
      .Real("confidence", "ratio");
}

class Steps final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("steps", "1.0.0", th::sdk::kAnalyzer,
                       "Steps per rank from ProfilerStep#N, XLA Steps lines or module executions, "
                       "a name pattern, or inferred from the periodicity of GPU work; warm-up "
                       "steps kept apart from the steady state")
        .Reads({"events", "tracks", "track_events", "track_order", "edges", "profiler_steps"})
        .Publishes(StepsTable())
        .Option("source", "auto",
                "where steps come from: auto (pattern if set, then profiler_step, xla_step, "
                "xla_module, then inferred), or only the one named",
                {"auto", "pattern", "profiler_step", "xla_step", "xla_module", "inferred"})
        .Option("pattern", "",
                "ECMAScript regex on event names; each outermost matching event is one step, "
                "numbered by the first capture group when it is an integer")
        .Option("infer", true,
                "infer steps from the periodicity of GPU activity when the trace has no marker")
        .Option("extend_to_device", true,
                "ProfilerStep#N: a step ends when the GPU work it launched ends, and starts no "
                "earlier than the previous step's end (the PyTorch profiler plugin's step time)")
        .Option("warmup_steps", int64_t{-1},
                "warm-up steps at the start of each rank; -1 = automatic: the first step (when "
                "there are two or more) and the steps after it while they are duration outliers")
        .Min(-1)
        .Option("warmup_factor", 1.5,
                "automatic warm-up: a step after the first is warm-up while it lasts more than "
                "this multiple of the median of the steps after it")
        .Min(1);
  }

  void Run(Context& ctx) override {
    const std::string source = ctx.GetString("source");
    const std::string pattern = ctx.GetString("pattern");
    const bool infer = ctx.GetBool("infer");
    const bool extend = ctx.GetBool("extend_to_device");
    const int64_t warmup_option = ctx.GetInt("warmup_steps");
    const double factor = ctx.GetDouble("warmup_factor");
    std::optional<std::regex> re;
    if (!pattern.empty()) {
      try {
        re.emplace(pattern, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        throw std::invalid_argument("steps: option pattern '" + pattern +
                                    "' is not a valid regex: " + e.what());
      }
    } else if (source == "pattern") {
      throw std::invalid_argument("steps: source 'pattern' needs the option pattern");
    }
    auto wants = [&](const char* s) { return source == "auto" || source == s; };

    std::vector<RankSteps> ranks;
    for (const Trace& t : ctx.traces()) {
      RankSteps r;
      auto take = [&](std::vector<Step> s, const char* name) {
        if (!r.steps.empty() || s.empty()) return;
        r.steps = std::move(s);
        r.source = name;
      };
      if (re && wants("pattern")) take(PatternSteps(t, *re), "pattern");
      if (wants("profiler_step")) take(ProfilerSteps(t, extend), "profiler_step");
      if (wants("xla_step")) take(XlaStepLine(t), "xla_step");
      if (wants("xla_module")) take(XlaModuleSteps(t), "xla_module");
      if (r.steps.empty() && (source == "inferred" || (source == "auto" && infer))) {
        Inference inf = InferSteps(t);
        take(std::move(inf.steps), "inferred");
        if (r.source == "inferred") r.confidence = inf.match;
      }
      if (r.steps.empty()) {
        r.source = "none";
        ctx.Warn("steps: rank " + std::to_string(t.rank()) + " (" + std::string(t.path()) +
                 "): no step marker" + (infer ? " and no periodic GPU work" : "") + "; no steps");
      }
      r.warmup = Warmup(r.steps, warmup_option, factor);
      ranks.push_back(std::move(r));
    }
    // One warm-up count for every rank (the largest), so step numbers line up.
    int64_t warmup = 0;
    for (const RankSteps& r : ranks) warmup = std::max(warmup, r.warmup);

    std::vector<int64_t> rank_col, number, ts, dur, host_ts, host_dur, warm;
    std::vector<std::string> source_col, phase, kind;
    std::vector<double> confidence;
    for (size_t i = 0; i < ranks.size(); ++i) {
      RankSteps& r = ranks[i];
      const Trace& t = ctx.traces()[i];
      const auto count = static_cast<int64_t>(r.steps.size());
      // Automatic warm-up always leaves a steady state; an explicit count is taken as given.
      r.warmup = warmup_option < 0 ? std::min(warmup, std::max<int64_t>(count - 1, 0))
                                   : std::min(warmup, count);
      const bool inferred = r.source == "inferred";
      std::vector<int64_t> steady;
      for (size_t s = 0; s < r.steps.size(); ++s) {
        const Step& st = r.steps[s];
        bool is_warm = static_cast<int64_t>(s) < r.warmup;
        rank_col.push_back(t.rank());
        number.push_back(st.number);
        ts.push_back(st.ts);
        dur.push_back(st.dur);
        host_ts.push_back(st.host_ts);
        host_dur.push_back(st.host_dur);
        warm.push_back(is_warm);
        source_col.push_back(r.source);
        phase.push_back(is_warm ? "warmup" : "steady");
        kind.push_back(inferred ? "inferred" : "measured");
        confidence.push_back(r.confidence);
        if (!is_warm) steady.push_back(st.dur);
      }
      th::sdk::Scope scope;
      scope.rank = t.rank();
      auto k = inferred ? th::sdk::kInferred : th::sdk::kMeasured;
      ctx.Metric("steps", static_cast<double>(r.steps.size()), "count", k, scope);
      ctx.Metric("warmup_steps", static_cast<double>(r.warmup), "count", k, scope);
      if (!steady.empty())
        ctx.Metric("steady_step_time_median", static_cast<double>(Median(steady)), "ns", k, scope);
      if (inferred) ctx.Metric("step_inference_confidence", r.confidence, "ratio", k, scope);
      ctx.Log("steps: rank " + std::to_string(t.rank()) + ": " + std::to_string(r.steps.size()) +
              " steps (" + r.source + "), " + std::to_string(r.warmup) + " warm-up");
    }
    ctx.Publish(th::sdk::Table("steps")
                    .Int("rank", rank_col)
                    .Int("step", number)
                    .Int("ts", ts, "ns")
                    .Int("dur", dur, "ns")
                    .Int("host_ts", host_ts, "ns")
                    .Int("host_dur", host_dur, "ns")
                    .Int("warmup", warm)
                    .Text("phase", phase)
                    .Text("source", source_col)
                    .Text("kind", kind)
                    .Real("confidence", confidence, "ratio"));
  }
};

}  // namespace

TH_PLUGIN(Steps)
