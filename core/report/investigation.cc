#include "core/report/investigation.h"

#include <algorithm>
#include <map>
#include <optional>

#include "core/graph/median.h"
#include "core/graph/xla_data.h"

namespace th {
namespace {

// The first step (in the graph's order) whose window holds a time: a binary
// search when the windows are in time order without overlap (ProfilerStep
// windows are), else a scan. size() when none holds it.
class StepFinder {
 public:
  explicit StepFinder(const std::vector<Step>& steps) : steps_(steps) {
    for (size_t s = 1; s < steps.size() && ordered_; ++s)
      ordered_ = steps[s - 1].dur >= 0 && steps[s - 1].ts + steps[s - 1].dur <= steps[s].ts;
  }
  size_t operator()(int64_t ts) const {
    if (!ordered_) {
      for (size_t s = 0; s < steps_.size(); ++s)
        if (Holds(s, ts)) return s;
      return steps_.size();
    }
    auto after = std::upper_bound(steps_.begin(), steps_.end(), ts,
                                  [](int64_t t, const Step& s) { return t < s.ts; });
    if (after == steps_.begin()) return steps_.size();
    const auto s = static_cast<size_t>(after - steps_.begin()) - 1;
    return Holds(s, ts) ? s : steps_.size();
  }

 private:
  bool Holds(size_t s, int64_t ts) const {
    return ts >= steps_[s].ts && ts < steps_[s].ts + steps_[s].dur;
  }
  const std::vector<Step>& steps_;
  bool ordered_ = true;
};

int64_t MedianStep(const Trace& t) {
  std::vector<int64_t> d;
  for (const Step& s : t.graph.steps) d.push_back(s.dur);
  return Median(std::move(d), EvenMedian::kUpperMiddle);
}

}  // namespace

std::vector<Reconciliation> Reconcile(const TraceSet& set) {
  std::vector<Reconciliation> out;
  // Every GPU event joined to the host call that launched it.
  {
    int64_t gpu = 0, joined = 0;
    for (const auto& t : set.traces) {
      const EventGraph& g = t->graph;
      gpu += static_cast<int64_t>(g.gpu_args.size());
      for (size_t k = 0; k < g.edges.size(); ++k) joined += g.edges.kind[k] == EdgeKind::kLaunch;
    }
    Reconciliation r{"every GPU event joined to a launch", joined == gpu, gpu > 0,
                     std::to_string(joined) + " of " + std::to_string(gpu) +
                         " GPU events have their launch in the capture"};
    if (gpu == 0) r.detail = "no GPU event in the capture";
    out.push_back(r);
  }
  // Kernels per step constant (steady state: the first step is warm-up).
  {
    int64_t lo = INT64_MAX, hi = INT64_MIN, ranks = 0;
    for (const auto& t : set.traces) {
      const EventGraph& g = t->graph;
      if (g.steps.size() < 3) continue;
      ++ranks;
      std::vector<int64_t> per_step(g.steps.size(), 0);
      const StepFinder find_step(g.steps);
      for (size_t k = 0; k < g.edges.size(); ++k) {
        if (g.edges.kind[k] != EdgeKind::kLaunch) continue;
        if (g.events.kind[g.edges.dst[k]] != EventKind::kKernel) continue;
        const size_t s = find_step(g.events.ts[g.edges.src[k]]);
        if (s < per_step.size()) ++per_step[s];
      }
      for (size_t s = 1; s < per_step.size(); ++s) {
        lo = std::min(lo, per_step[s]);
        hi = std::max(hi, per_step[s]);
      }
    }
    Reconciliation r{"kernels per steady-state step constant", lo == hi, ranks > 0, ""};
    r.detail = ranks ? std::to_string(lo) + " to " + std::to_string(hi) +
                           " kernels launched per step after the first, over " +
                           std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks")
                     : "fewer than 3 ProfilerStep windows: nothing to compare";
    out.push_back(r);
  }
  return out;
}

std::vector<Change> RankChanges(const TraceSet& set, const PluginResults& results) {
  std::map<int64_t, const Trace*> by_rank;
  for (const auto& t : set.traces) by_rank[t->info.rank] = t.get();
  std::vector<Change> out;
  for (const Finding& f : results.findings) {
    // The saving it states (Finding::Saving); for a plugin that states none,
    // its first inferred ns evidence named saving*.
    std::optional<double> saving = f.saving_ns;
    for (const Evidence& e : f.evidence) {
      if (saving) break;
      if (e.kind == NumberKind::kInferred && e.unit == "ns" && e.name.rfind("saving", 0) == 0 &&
          e.value > 0)
        saving = e.value;
    }
    if (saving && *saving > 0) {
      Change c;
      c.finding = &f;
      c.saving_ns = *saving;
      const Trace* t = f.scope.rank >= 0 && by_rank.count(f.scope.rank)
                           ? by_rank[f.scope.rank]
                           : (set.traces.empty() ? nullptr : set.traces.front().get());
      if (t && !t->graph.steps.empty()) {
        c.steps = static_cast<int64_t>(t->graph.steps.size());
        c.step_ns = static_cast<double>(MedianStep(*t));
        c.step_after_ns = std::max(0.0, c.step_ns - c.saving_ns / static_cast<double>(c.steps));
      }
      out.push_back(c);
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Change& a, const Change& b) { return a.saving_ns > b.saving_ns; });
  return out;
}

std::vector<OpenQuestion> OpenQuestions(const TraceSet& set) {
  std::vector<OpenQuestion> out;
  bool kineto = false, memory = false, steps = false, python = false, world_gap = false;
  int64_t missing_launch = 0, unattributed = 0, xla = 0;
  for (const auto& t : set.traces) {
    const EventGraph& g = t->graph;
    kineto |= t->info.format == "kineto_json";
    memory |= g.memory_args.size() > 0;
    steps |= !g.steps.empty();
    for (EventId i = 0; i < g.events.size() && !python; ++i)
      python |= g.events.kind[i] == EventKind::kPythonFunction;
    missing_launch += t->trust.Count(TrustId::kKernelWithoutLaunch);
    if (t->info.distributed && t->info.distributed->world_size &&
        *t->info.distributed->world_size > static_cast<int64_t>(set.traces.size()))
      world_gap = true;
    // SummarizeXla's count of GPU events without an instruction, without
    // the rest of its summary.
    if (t->xla.attributed && t->xla.index) {
      ++xla;
      for (size_t r = 0; r < g.gpu_args.size(); ++r)
        unattributed += t->xla.kernel_match[r] == HloMatch::kNone;
    }
  }
  if (!memory && kineto)
    out.push_back({"Is device memory close to capacity, fragmented, or growing across steps?",
                   "torch.profiler.profile(profile_memory=True) (allocator events)"});
  if (!steps && kineto)
    out.push_back({"What does one step cost, and which steps are warm-up?",
                   "a torch.profiler schedule(wait, warmup, active) with prof.step() every "
                   "iteration (ProfilerStep#N windows)"});
  if (!python && kineto)
    out.push_back({"Which Python line launched the slow operators?",
                   "torch.profiler.profile(with_stack=True, record_shapes=True)"});
  if (missing_launch > 0)
    out.push_back({"Which host calls launched the " + std::to_string(missing_launch) +
                       " kernels whose launch is outside the capture?",
                   "start the profiler a step earlier (the kernels were queued before it), or "
                   "enlarge the CUPTI activity buffer"});
  if (world_gap)
    out.push_back({"Which rank is late, and what do the others wait for?",
                   "one capture per rank over the same steps (all ranks, same schedule)"});
  if (xla && unattributed > 0)
    out.push_back({"Which HLO instruction ran the " + std::to_string(unattributed) +
                       " GPU events attribution could not place?",
                   "the same program with XLA command buffers off "
                   "(XLA_FLAGS=--xla_gpu_enable_command_buffer=), so every thunk labels its "
                   "kernels, plus the *.hlo_proto.pb files XProf writes"});
  return out;
}

}  // namespace th
