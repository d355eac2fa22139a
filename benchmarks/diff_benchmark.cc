// `tracehound diff` beyond import, on the trace_diff pair of ../shared/data
// (control.json.gz: 34.8 MB of JSON; test.json.gz): the steps and
// step-breakdown plugins on one side, DiffRuns (all three levels) with and
// without writing the JSON, and the diff view's answer of serve
// (DiffViewJson: the step plugins on both sides, DiffRuns, each row's first
// instances, the JSON). Each side is imported once, outside the timings.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/diff/diff_json.h"
#include "core/diff/diff_runs.h"
#include "core/import/trace_loader.h"
#include "core/serve/serve_diff.h"
#include "core/serve/serve_run.h"

namespace {

struct Side {
  th::TraceSet traces;
  th::PluginResults results;
};

struct Pair {
  th::PluginRegistry registry;
  std::unique_ptr<Side> a, b;
};

Pair* Loaded() {
  static Pair* p = [] {
    const std::string dir = std::string(TRACEHOUND_SHARED_DATA) + "/hta/tests/data/trace_diff/";
    if (!std::filesystem::exists(dir)) return static_cast<Pair*>(nullptr);
    auto* pair = new Pair;
    for (const char* id : {"steps", "step-breakdown"})
      if (!pair->registry.LoadPlugin({TRACEHOUND_PLUGIN_DIR}, id).ok())
        return static_cast<Pair*>(nullptr);
    for (auto [side, file] : {std::pair{&pair->a, "control/control.json.gz"},
                              std::pair{&pair->b, "test/test.json.gz"}}) {
      auto set = th::LoadTraceSet({dir + file}, {});
      if (!set.ok()) return static_cast<Pair*>(nullptr);
      *side = std::make_unique<Side>();
      (*side)->traces = std::move(*set);
      auto results = th::diff::RunDiffPlugins((*side)->traces, pair->registry);
      if (!results.ok()) return static_cast<Pair*>(nullptr);
      (*side)->results = std::move(*results);
    }
    return pair;
  }();
  return p;
}

void BM_StepPlugins(benchmark::State& state) {
  Pair* p = Loaded();
  if (!p) return state.SkipWithError("../shared/data or the plugins absent");
  for (auto _ : state)
    benchmark::DoNotOptimize(th::diff::RunDiffPlugins(p->a->traces, p->registry));
}
BENCHMARK(BM_StepPlugins)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DiffRuns(benchmark::State& state) {
  Pair* p = Loaded();
  if (!p) return state.SkipWithError("../shared/data or the plugins absent");
  const th::diff::DiffSide a{&p->a->traces, &p->a->results, "A", {}};
  const th::diff::DiffSide b{&p->b->traces, &p->b->results, "B", {}};
  for (auto _ : state) {
    auto r = th::diff::DiffRuns(a, b, {});
    if (state.range(0)) benchmark::DoNotOptimize(th::diff::DiffJson(*r));
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_DiffRuns)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// The pair as serve holds it: two ServeRuns loaded without an index cache.
std::vector<std::unique_ptr<th::serve::ServeRun>>* ServeRuns() {
  static auto* runs = [] {
    auto* v = new std::vector<std::unique_ptr<th::serve::ServeRun>>;
    const std::string dir = std::string(TRACEHOUND_SHARED_DATA) + "/hta/tests/data/trace_diff/";
    for (const char* file : {"control/control.json.gz", "test/test.json.gz"}) {
      v->push_back(std::make_unique<th::serve::ServeRun>(dir + file, file));
      std::string note;
      if (!th::serve::LoadServeRun(v->back().get(), {}, &note).ok()) {
        v->clear();
        break;
      }
    }
    return v;
  }();
  return runs;
}

void BM_DiffViewJson(benchmark::State& state) {
  Pair* p = Loaded();
  auto* runs = ServeRuns();
  if (!p || runs->size() != 2) return state.SkipWithError("../shared/data or the plugins absent");
  const th::serve::DiffPluginsSource plugins = [p](const th::TraceSet& traces) {
    return th::diff::RunDiffPlugins(traces, p->registry);
  };
  size_t bytes = 0;
  for (auto _ : state) {
    auto json = th::serve::DiffViewJson(*(*runs)[0], 0, *(*runs)[1], 1, plugins);
    if (!json.ok()) return state.SkipWithError(json.status().message().c_str());
    bytes = json->size();
  }
  state.counters["answer_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_DiffViewJson)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
