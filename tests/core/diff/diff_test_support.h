// Diff test helpers: a fixture trace loaded, the built steps and
// step-breakdown plugins run on it, and a diff of two such sides.
#pragma once

#include <memory>
#include <string>

#include "core/diff/diff_runs.h"
#include "tests/plugins/steps/plugin_run.h"
#include "tests/support/diff_fixture.h"

namespace th::diff::testing {

struct Side {
  TraceSet traces;
  PluginResults results;
  DiffSide side;
};

inline std::unique_ptr<Side> LoadSide(const std::vector<std::string>& inputs,
                                      const std::string& label) {
  auto s = std::make_unique<Side>();
  auto set = LoadTraceSet(inputs, LoadOptions{});
  if (!set.ok()) throw std::runtime_error(set.status().message());
  s->traces = std::move(*set);
  s->results = th::testing::RunSteps(s->traces, {}, true);
  s->side = {&s->traces, &s->results, label, {label == "A" ? "a.json" : "b.json"}};
  return s;
}

inline std::unique_ptr<Side> FixtureSide(const th::testing::DiffFixture& f,
                                         const std::string& label) {
  static int n = 0;
  const std::string path = th::testing::WriteTempFile("diff_" + std::to_string(++n) + ".json",
                                                      th::testing::DiffFixtureTrace(f));
  return LoadSide({path}, label);
}

inline DiffResult Diff(const Side& a, const Side& b, const DiffOptions& o = {}) {
  auto r = DiffRuns(a.side, b.side, o);
  if (!r.ok()) throw std::runtime_error(r.status().message());
  return std::move(*r);
}

}  // namespace th::diff::testing
