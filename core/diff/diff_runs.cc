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

std::map<std::string, OptionValue> Defaults(const LoadedPlugin& p) {
  std::map<std::string, OptionValue> out;
  for (const OptionDeclaration& o : p.declaration.options) out[o.name] = o.default_value;
  return out;
}

}  // namespace

StatusOr<DiffResult> DiffRuns(const DiffSide& a, const DiffSide& b, const DiffOptions& options) {
  if (options.threshold_ns < 0 || options.max_structural < 0 || options.max_step_pairs < 0)
    return InvalidInput("diff: thresholds and limits must not be negative");
  for (const DiffSide* side : {&a, &b})
    if (!side->traces) return InvalidInput("diff: side " + side->label + " has no traces");
  const GraphProfileTraces ga(*a.traces), gb(*b.traces);
  auto pa = BuildProfile(a, ga.traces(), options);
  if (!pa.ok()) return pa.status();
  auto pb = BuildProfile(b, gb.traces(), options);
  if (!pb.ok()) return pb.status();
  DiffResult r;
  r.options = options;
  r.a = Summarise(a, *pa);
  r.b = Summarise(b, *pb);
  r.warnings = ParityWarnings(r.a, r.b);
  for (std::string& w : ShapeWarnings(*pa, *pb)) r.warnings.push_back(std::move(w));
  r.aggregate = AggregateRows(*pa, *pb, options);
  r.totals = ClassTotals(*pa, *pb);
  r.structure = AlignStepPairs(ga.traces(), *pa, gb.traces(), *pb, options);
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
