#include "core/diff/diff_runs.h"

#include <algorithm>
#include <string_view>

#include "core/diff/diff_aggregate.h"
#include "core/diff/diff_attribution.h"
#include "core/diff/diff_shapes.h"
#include "core/diff/diff_tree.h"
#include "core/plugin/plugin_host.h"

namespace th::diff {
namespace {

// Step pairs: the i-th trace of A with the i-th of B, their k-th kept steps
// together, at most max_step_pairs in all.
std::vector<StepPair> AlignSteps(const DiffSide& sa, const Profile& a, const DiffSide& sb,
                                 const Profile& b, const DiffOptions& options) {
  std::vector<StepPair> out;
  const size_t traces = std::min(sa.traces->traces.size(), sb.traces->traces.size());
  for (size_t t = 0; t < traces; ++t) {
    std::vector<const ProfileStep*> xa, xb;
    for (const ProfileStep& s : a.steps)
      if (s.trace == t) xa.push_back(&s);
    for (const ProfileStep& s : b.steps)
      if (s.trace == t) xb.push_back(&s);
    for (size_t k = 0; k < std::min(xa.size(), xb.size()); ++k) {
      if (static_cast<int64_t>(out.size()) >= options.max_step_pairs) return out;
      StepPair p;
      p.a_rank = xa[k]->rank;
      p.a_step = xa[k]->step;
      p.b_rank = xb[k]->rank;
      p.b_step = xb[k]->step;
      StepTree ta = BuildStepTree(*sa.traces->traces[t], xa[k]->ts, xa[k]->dur);
      StepTree tb = BuildStepTree(*sb.traces->traces[t], xb[k]->ts, xb[k]->dur);
      AlignTrees(ta, tb, options, &p);
      out.push_back(std::move(p));
    }
  }
  return out;
}

std::map<std::string, OptionValue> Defaults(const LoadedPlugin& p) {
  std::map<std::string, OptionValue> out;
  for (const OptionDeclaration& o : p.declaration.options) out[o.name] = o.default_value;
  return out;
}

}  // namespace

StatusOr<DiffResult> DiffRuns(const DiffSide& a, const DiffSide& b, const DiffOptions& options) {
  if (options.threshold_ns < 0 || options.max_structural < 0 || options.max_step_pairs < 0)
    return InvalidInput("diff: thresholds and limits must not be negative");
  auto pa = BuildProfile(a, options);
  if (!pa.ok()) return pa.status();
  auto pb = BuildProfile(b, options);
  if (!pb.ok()) return pb.status();
  DiffResult r;
  r.options = options;
  r.a = Summarise(a, *pa);
  r.b = Summarise(b, *pb);
  r.warnings = ParityWarnings(r.a, r.b);
  for (std::string& w : ShapeWarnings(*pa, *pb)) r.warnings.push_back(std::move(w));
  r.aggregate = AggregateRows(*pa, *pb, options);
  r.totals = ClassTotals(*pa, *pb);
  r.structure = AlignSteps(a, *pa, b, *pb, options);
  r.attribution = Attribute(*pa, *pb);
  return r;
}

StatusOr<PluginResults> RunDiffPlugins(const TraceSet& traces, const PluginRegistry& registry) {
  PluginResults results;
  for (const char* id : {"steps", "step-breakdown"}) {
    const LoadedPlugin* p = registry.Find(id);
    if (!p) return NotFound(std::string("diff: plugin '") + id + "' not found on the plugin path");
    PluginRunContext context;
    context.echo_log = false;
    Status s = RunPlugin(*p, traces, Defaults(*p), &results, context);
    // Without step-breakdown the diff goes on, its attribution not available.
    if (!s.ok() && std::string_view(id) == "steps") return s;
  }
  return results;
}

}  // namespace th::diff
