// overlap: per rank and per ProfilerStep, how much of the communication
// kernels' time is hidden behind computation kernels, and how much is exposed.
//
//   comm    = |U(communication kernels)|       comp = |U(computation kernels)|
//   overlap = |U(comm) ∩ U(comp)| = comm + comp - |U(comm ∪ comp)|
//   overlap_pct = 100 overlap / comm           exposed_comm = comm - overlap
//
// computed with the host's interval union, one group per (rank, window).
// `definition: hta` reproduces HTA 0.6.1's get_comm_comp_overlap (its kernel
// classes by name, whole-µs rounding of fractional traces, kernels without a
// launch event dropped) so the two can be compared number for number.
#include <tracehound/format.h>
#include <tracehound/sdk.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "collective_model.h"

namespace {

using th::collectives::kNoStep;
using th::collectives::kNoTime;
using th::collectives::StepIndex;
using th::sdk::Context;
using th::sdk::Declaration;

using th::sdk::KernelClass;

enum class Class { kNone, kComm, kComp };

Class Of(KernelClass c) {
  return c == KernelClass::kComm   ? Class::kComm
         : c == KernelClass::kComp ? Class::kComp
                                   : Class::kNone;
}

// tracehound: the host's kernel classes (the kernel class table, a pipeline's
// kernel_classes: included), over every GPU activity: COMM is communication
// (a kernel carrying collective metadata too), COMP computation, MEM neither.
Class TracehoundClass(const th::sdk::Trace& t, uint64_t i, const std::vector<bool>& has_meta) {
  if (!t.is_gpu_activity(i)) return Class::kNone;
  if (has_meta[i]) return Class::kComm;
  return Of(t.kernel_class(i));
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// HTA 0.6.1: every row with a stream (kernels, memcpy/memset, syncs) in HTA's
// kernel types, the table's hta rule set (COMMUNICATION, then MEMORY and the
// COMPUTATION exclusion list, neither here, then COMPUTATION).
Class HtaClass(const th::sdk::Trace& t, uint64_t i) {
  const uint32_t k = t.kind(i);
  if (k != TH_EVENT_KERNEL && k != TH_EVENT_MEMCPY && k != TH_EVENT_MEMSET &&
      k != TH_EVENT_GPU_SYNC && k != TH_EVENT_GPU_EVENT)
    return Class::kNone;
  if (t.track_of(i).stream < 0) return Class::kNone;
  return Of(t.hta_kernel_class(i));
}

// HTA's cutoff: the start of the last row named ProfilerStep#N, the GPU-side
// gpu_user_annotation copies of the steps included (they can start after the
// host step has ended; then HTA drops nothing).
int64_t HtaCutoff(const th::sdk::Trace& t) {
  int64_t cutoff = kNoTime;
  for (uint64_t i = 0; i < t.size(); ++i) {
    const uint32_t k = t.kind(i);
    if (k == TH_EVENT_METADATA || k == TH_EVENT_FLOW) continue;
    if (StartsWith(t.name(i), "ProfilerStep#")) cutoff = std::max(cutoff, t.ts(i));
  }
  return cutoff;
}

int64_t FloorUs(int64_t ns) { return (ns >= 0 ? ns : ns - 999) / 1000 * 1000; }
int64_t CeilUs(int64_t ns) { return -FloorUs(-ns); }

// The tables it publishes.
th::sdk::Schema OverlapTable() {
  return th::sdk::Schema("overlap")
      .View("overlap")
      .Int("rank")
      .Int("step")
      .Int("comm", "ns")
      .Int("comp", "ns")
      .Int("overlap", "ns")
      .Int("exposed_comm", "ns")
      .Int("span", "ns")
      .Real("overlap_pct", "%")
      .Real("exposed_pct", "%");
}

// The finding of a rank whose communication is not hidden: one title for
// every rank, so the report groups the ranks into one cause. Times in ns.
th::sdk::Finding ExposedCommunication(const th::sdk::Scope& scope, int64_t comm, int64_t overlap,
                                      int64_t span, double overlap_pct, double exposed_pct) {
  const auto ns = [](int64_t v) { return static_cast<double>(v); };
  return th::sdk::Finding(th::sdk::P2, "communication not hidden behind computation")
      .What("rank " + std::to_string(scope.rank) + ": " + th::sdk::Fixed(exposed_pct, 1) +
            "% of GPU time is exposed communication: " + th::sdk::Fixed(overlap_pct, 1) +
            "% of the communication kernels' time (" + th::sdk::Millis(ns(comm)) +
            ") runs under computation; " + th::sdk::Millis(ns(comm - overlap)) +
            " does not, in a GPU span of " + th::sdk::Millis(ns(span)) + ".")
      .Suggest(
          "overlap communication with computation (bucketed/async "
          "collectives, prefetching the next all-gather), or shrink it")
      .In(scope)
      .Evidence("exposed_comm", ns(comm - overlap), "ns", th::sdk::kMeasured)
      .Evidence("comm_time", ns(comm), "ns", th::sdk::kMeasured)
      .Evidence("overlap_pct", overlap_pct, "%", th::sdk::kMeasured)
      .Evidence("gpu_span", ns(span), "ns", th::sdk::kMeasured)
      .Evidence("exposed_share_of_span", exposed_pct, "%", th::sdk::kMeasured)
      .TimeLost(ns(comm - overlap));
}

class Overlap final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("overlap", "1.0.0", th::sdk::kAnalyzer,
                       "Communication/computation overlap per rank and step: the share of "
                       "communication kernel time hidden behind computation, and the exposed "
                       "communication time (kernel classes: NCCL/RCCL, DeepEP, NVSHMEM, MSCCL++, "
                       "one-sided copies ...)")
        .Reads({"events", "tracks", "profiler_steps", "gpu_args", "collective_args", "name_classes",
                "class_rules", "graph_capture", "event_launches"})
        .Publishes(OverlapTable())
        .Option("definition", "tracehound",
                "tracehound (exact ns, the kernel class table) or hta (HTA 0.6.1's "
                "get_comm_comp_overlap, its kernel types and quirks included)",
                {"tracehound", "hta"})
        .Option("exclude_last_step", true,
                "with 2+ ProfilerSteps, leave kernels launched in or after the last one out of "
                "the rank totals (the profiler usually stops inside it), as HTA does")
        .Option("exposed_threshold_pct", 10.0,
                "report a rank whose exposed communication exceeds this share of its GPU span")
        .Range(0, 100);
  }

  void Run(Context& ctx) override {
    const bool hta = ctx.GetString("definition") == "hta";
    const bool exclude_last = hta || ctx.GetBool("exclude_last_step");  // HTA always does
    const double threshold = ctx.GetDouble("exposed_threshold_pct");

    // Groups: per trace, one for the rank window (its totals) and one per step.
    struct Group {
      int64_t rank, step;  // step = -1 for the rank window
      size_t trace;
    };
    std::vector<Group> groups;
    // Intervals of both classes in one set of columns, each under the slot
    // 2 × group + class (0 communication, 1 computation): one union over the
    // slots gives each group's per-class unions, one over the groups their
    // union together (unions do not depend on the order of intervals).
    std::vector<uint32_t> slot;
    std::vector<int64_t> b_all, e_all;
    auto add = [&](uint32_t g, Class c, int64_t b, int64_t e) {
      if (e < b) return;  // HTA's rounding can make an event negative; it merges nothing
      slot.push_back(2 * g + (c == Class::kComm ? 0 : 1));
      b_all.push_back(b);
      e_all.push_back(e);
    };

    const auto& traces = ctx.traces();
    for (size_t ti = 0; ti < traces.size(); ++ti) {
      const th::sdk::Trace& t = traces[ti];
      if (t.capture().dominates) {
        ctx.Skip(t,
                 "the trace records CUDA/HIP graph capture: most launched kernels never ran "
                 "in it, so there is no executed communication to overlap");
        continue;
      }
      StepIndex steps(t);
      std::vector<bool> has_meta(t.size(), false);
      for (uint64_t r = 0; r < t.collective_count(); ++r) has_meta[t.collective_event(r)] = true;
      // HTA rounds every event to whole µs when any timestamp is fractional.
      bool round = false;
      if (hta)
        for (uint64_t i = 0; i < t.size() && !round; ++i)
          round = t.kind(i) != TH_EVENT_METADATA && t.ts(i) % 1000 != 0;
      // The rank window ends where the last step starts (2+ distinct steps).
      std::vector<int64_t> numbers = steps.Numbers();
      int64_t cutoff = kNoTime;
      if (exclude_last && numbers.size() >= 2) cutoff = steps.steps().back().ts;
      if (hta && numbers.size() >= 2) cutoff = HtaCutoff(t);
      const auto window = static_cast<uint32_t>(groups.size());
      groups.push_back({t.rank(), -1, ti});
      std::vector<uint32_t> step_group;
      for (int64_t n : numbers) {
        step_group.push_back(static_cast<uint32_t>(groups.size()));
        groups.push_back({t.rank(), n, ti});
      }
      size_t hint = 0;
      uint64_t launch_cursor = 0;
      // Every event either definition classifies (kernels, memcpy, memset,
      // syncs, GPU events) has a gpu_args row, in event order.
      for (uint64_t r = 0; r < t.gpu_rows(); ++r) {
        const uint64_t i = t.gpu_event(r);
        Class c = hta ? HtaClass(t, i) : TracehoundClass(t, i, has_meta);
        if (c == Class::kNone) continue;
        int64_t b = t.ts(i), e = t.end(i);
        if (round) {
          b = CeilUs(b);
          e = FloorUs(t.end(i));
        }
        const int64_t launch = steps.LaunchTs(i, launch_cursor);
        bool in_window = true;
        if (cutoff != kNoTime) {
          // HTA keeps a GPU row only when its launch is a host row before the
          // cutoff; tracehound keeps kernels launched before the capture too
          // (no launch event: they ran at the start of the window).
          if (launch != kNoTime)
            in_window = launch < cutoff;
          else
            in_window = !hta && t.ts(i) < cutoff;
        }
        if (in_window) add(window, c, b, e);
        int64_t step = launch != kNoTime ? steps.StepAt(launch, hint) : steps.StepAt(t.ts(i), hint);
        if (step != kNoStep) {
          size_t s = std::lower_bound(numbers.begin(), numbers.end(), step) - numbers.begin();
          add(step_group[s], c, b, e);
        }
      }
    }

    const size_t n = groups.size();
    const std::vector<int64_t> by_class = ctx.IntervalUnion(slot, b_all, e_all, 2 * n);
    std::vector<int64_t> comm(n), comp(n), first(n, INT64_MAX), last(n, INT64_MIN), count(n, 0);
    for (size_t g = 0; g < n; ++g) comm[g] = by_class[2 * g], comp[g] = by_class[2 * g + 1];
    for (size_t k = 0; k < slot.size(); ++k) {  // the slot's group, its first and last instant
      slot[k] /= 2;
      first[slot[k]] = std::min(first[slot[k]], b_all[k]);
      last[slot[k]] = std::max(last[slot[k]], e_all[k]);
      ++count[slot[k]];
    }
    const std::vector<int64_t> both = ctx.IntervalUnion(slot, b_all, e_all, n);

    std::vector<int64_t> rank_col, step_col, comm_col, comp_col, overlap_col, exposed_col, span_col;
    std::vector<double> pct_col, exposed_pct_col;
    for (size_t g = 0; g < n; ++g) {
      const int64_t ov = comm[g] + comp[g] - both[g];
      const int64_t span = count[g] ? last[g] - first[g] : 0;
      rank_col.push_back(groups[g].rank);
      step_col.push_back(groups[g].step);
      comm_col.push_back(comm[g]);
      comp_col.push_back(comp[g]);
      overlap_col.push_back(ov);
      exposed_col.push_back(comm[g] - ov);
      span_col.push_back(span);
      // No communication: the ratio is not observed (NaN), not 0.
      double pct = comm[g] > 0 ? 100.0 * static_cast<double>(ov) / static_cast<double>(comm[g])
                               : std::nan("");
      if (hta && comm[g] > 0) pct = std::round(pct * 100) / 100;  // HTA's 2 decimals
      pct_col.push_back(pct);
      exposed_pct_col.push_back(span > 0 ? 100.0 * static_cast<double>(comm[g] - ov) /
                                               static_cast<double>(span)
                                         : std::nan(""));
      if (groups[g].step != -1) continue;
      th::sdk::Scope scope;
      scope.rank = groups[g].rank;
      if (comm[g] > 0) {
        ctx.Metric("overlap_pct", pct, "%", th::sdk::kMeasured, scope);
        ctx.Metric("exposed_comm", static_cast<double>(comm[g] - ov), "ns", th::sdk::kMeasured,
                   scope);
      }
      ctx.Metric("comm_time", static_cast<double>(comm[g]), "ns", th::sdk::kMeasured, scope);
      if (comm[g] > 0 && span > 0 && exposed_pct_col.back() > threshold) {
        ctx.Add(ExposedCommunication(scope, comm[g], ov, span, pct, exposed_pct_col.back()));
      }
    }
    ctx.Publish(th::sdk::Table("overlap")
                    .Int("rank", rank_col)
                    .Int("step", step_col)
                    .Int("comm", comm_col, "ns")
                    .Int("comp", comp_col, "ns")
                    .Int("overlap", overlap_col, "ns")
                    .Int("exposed_comm", exposed_col, "ns")
                    .Int("span", span_col, "ns")
                    .Real("overlap_pct", pct_col, "%")
                    .Real("exposed_pct", exposed_pct_col, "%"));
  }
};

}  // namespace

TH_PLUGIN(Overlap)
