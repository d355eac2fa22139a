// The critical-path plugin with and without its what-ifs (each path's longest
// path again with one of 5 categories at 0), and the report's changes ranked
// by the critical path, on the 8-rank DLRM capture of ../shared/data and on
// HTA's df_index_resolver trace (one rank, 5 ProfilerSteps, 54 MB of JSON).
// Medians of repetitions: the machine is shared, see benchmarks/RESULTS.md.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "core/report/path_changes.h"

namespace {

struct Input {
  std::unique_ptr<th::TraceSet> set;
  th::PluginResults base;  // the collectives plugin's tables
};

std::shared_ptr<const th::LoadedPlugin> Load(const std::string& library) {
  auto p = th::LoadPluginLibrary(std::string(TRACEHOUND_PLUGIN_DIR) + "/" + library);
  if (!p.ok()) {
    std::fprintf(stderr, "%s\n", p.status().message().c_str());
    std::abort();
  }
  return *p;
}

// null when ../shared/data lacks the file.
const Input* InputOf(const std::string& relative) {
  static std::map<std::string, std::unique_ptr<Input>> kept;
  auto it = kept.find(relative);
  if (it != kept.end()) return it->second.get();
  auto set = th::LoadTraceSet({std::string(TRACEHOUND_SHARED_DATA) + "/" + relative}, {});
  std::unique_ptr<Input> in;
  if (set.ok()) {
    in = std::make_unique<Input>();
    in->set = std::make_unique<th::TraceSet>(std::move(*set));
    if (!th::RunPlugin(*Load("th_collectives.so"), *in->set, {}, &in->base).ok()) std::abort();
  }
  return kept.emplace(relative, std::move(in)).first->second.get();
}

const char* const kInputs[] = {
    "param/et_replay/tests/data/dlrm_kineto.tar.gz",
    "hta/tests/data/df_index_resolver/df_index_resolver.json.gz",
};

void BM_CriticalPath(benchmark::State& state) {
  const Input* in = InputOf(kInputs[state.range(0)]);
  if (!in) {
    state.SkipWithError("../shared/data absent: no trace to run on");
    return;
  }
  static const auto plugin = Load("th_critical_path.so");
  const std::map<std::string, th::OptionValue> options = {{"what_if", state.range(1) != 0}};
  size_t paths = 0, events = 0;
  for (auto _ : state) {
    th::PluginResults r = in->base;
    if (!th::RunPlugin(*plugin, *in->set, options, &r).ok()) std::abort();
    paths = r.tables.at("critical_path").rows;
    events = r.tables.at("critical_path_events").rows;
  }
  state.counters["paths"] = static_cast<double>(paths);
  state.counters["path_events"] = static_cast<double>(events);
}
BENCHMARK(BM_CriticalPath)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->ArgNames({"trace", "what_if"})
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

void BM_ChangesByPath(benchmark::State& state) {
  const Input* in = InputOf(kInputs[state.range(0)]);
  if (!in) {
    state.SkipWithError("../shared/data absent: no trace to run on");
    return;
  }
  th::PluginResults r = in->base;
  if (!th::RunPlugin(*Load("th_critical_path.so"), *in->set, {}, &r).ok()) std::abort();
  // One cause per path category over every rank.
  for (const char* plugin : {"kernel-stats", "collectives", "idle-launch", "op-stats"}) {
    th::Finding f;
    f.plugin = plugin;
    f.title = "a cause";
    r.findings.push_back(f);
  }
  for (auto _ : state) benchmark::DoNotOptimize(th::RankChangesByPath(*in->set, r).changes.size());
}
BENCHMARK(BM_ChangesByPath)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("trace")
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
