// The autograd profiler's bare-array Chrome trace (PyTorch without Kineto):
// kinds, steps, exact times, what it lacks in the trust table, and errors.
#include "core/import/kineto/autograd_profiler.h"

#include <gtest/gtest.h>

#include "core/import/common/byte_source.h"
#include "core/import/kineto/kineto_importer.h"

namespace th::kineto {
namespace {

StatusOr<std::unique_ptr<Trace>> Import(const std::string& json) {
  auto src = MakeMemorySource("legacy.json", json);
  ImportOptions opt;
  opt.chunk_bytes = 4096;
  return ImportKinetoJson(*src, opt);
}

// What torch 1.13's export_chrome_trace writes without Kineto: two steps.
std::string TwoSteps() {
  std::string s = "[";
  int64_t ts = 100;
  for (int step = 0; step < 2; ++step) {
    if (step) s += ", ";
    s += R"({"name": "ProfilerStep#)" + std::to_string(step) + R"(", "ph": "X", "ts": )" +
         std::to_string(ts) + R"(, "dur": 900, "tid": 1, "pid": "CPU functions", "args": {}}, )";
    s += R"({"name": "aten::linear", "ph": "X", "ts": )" + std::to_string(ts + 10) +
         R"(, "dur": 228, "tid": 1, "pid": "CPU functions", "args": {}})";
    ts += 1000;
  }
  return s + "]";
}

int64_t Trusted(const Trace& t, TrustId id) { return t.trust.Count(id); }

TEST(AutogradProfiler, BareArrayIsReadWithKindsStepsAndExactTimes) {
  auto t = Import(TwoSteps());
  ASSERT_TRUE(t.ok()) << t.status().message();
  const Trace& trace = **t;
  EXPECT_EQ(trace.info.format, "autograd_profiler_json");
  const EventGraph& g = trace.graph;
  ASSERT_EQ(g.events.size(), 4u);
  int annotations = 0, ops = 0;
  for (EventId i = 0; i < g.events.size(); ++i) {
    const std::string_view name = g.strings.Get(g.events.name[i]);
    if (name.starts_with("ProfilerStep#")) {
      EXPECT_EQ(g.events.kind[i], EventKind::kUserAnnotation);
      ++annotations;
    } else {
      EXPECT_EQ(g.events.kind[i], EventKind::kCpuOp) << name;
      EXPECT_EQ(g.events.dur[i], 228000);
      ++ops;
    }
  }
  EXPECT_EQ(annotations, 2);
  EXPECT_EQ(ops, 2);
  ASSERT_EQ(g.steps.size(), 2u);
  EXPECT_EQ(g.steps[1].number, 1);
  EXPECT_EQ(g.steps[0].ts, 100000);
  EXPECT_EQ(g.steps[1].ts, 1100000);
  EXPECT_EQ(g.steps[1].dur, 900000);
  // What the file lacks, said; nothing made up.
  EXPECT_EQ(Trusted(trace, TrustId::kBareEventArray), 1);
  EXPECT_EQ(Trusted(trace, TrustId::kAutogradProfilerTrace), 1);
  EXPECT_FALSE(trace.info.distributed.has_value());
  EXPECT_FALSE(trace.info.base_time_ns.has_value());
  EXPECT_TRUE(trace.info.devices.empty());
  for (const TrustEntry& e : trace.trust.Entries())
    if (e.id == TrustId::kAutogradProfilerTrace) {
      EXPECT_EQ(e.example, "CPU operators only");
    }
}

TEST(AutogradProfiler, CudaFunctionsAreKeptUnmappedAndSaidSo) {
  std::string json = TwoSteps();
  json.pop_back();
  json += R"(, {"name": "aten::mm", "ph": "X", "ts": 300, "dur": 5, "tid": 0,
              "pid": "CUDA functions", "args": {}}])";
  auto t = Import(json);
  ASSERT_TRUE(t.ok()) << t.status().message();
  const EventGraph& g = (*t)->graph;
  for (EventId i = 0; i < g.events.size(); ++i)
    if (g.events.ts[i] == 300000) {
      EXPECT_EQ(g.events.kind[i], EventKind::kOther);
    }
  for (const TrustEntry& e : (*t)->trust.Entries())
    if (e.id == TrustId::kAutogradProfilerTrace) {
      EXPECT_EQ(e.example, "\"CUDA functions\" events kept as kind other (not kernels)");
    }
}

TEST(AutogradProfiler, AnotherToolsPlainArrayIsLeftAsItWas) {
  auto t = Import(R"([{"name": "work", "ph": "X", "ts": 1, "dur": 2, "pid": 7, "tid": 1}])");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)->info.format, "kineto_json");
  EXPECT_EQ((*t)->graph.events.kind[0], EventKind::kOther);
  EXPECT_EQ(Trusted(**t, TrustId::kBareEventArray), 0);
  EXPECT_EQ(Trusted(**t, TrustId::kAutogradProfilerTrace), 0);
}

TEST(AutogradProfiler, TruncatedArrayIsAnErrorWithItsOffset) {
  const std::string json =
      R"([{"name": "a", "ph": "X", "ts": 1, "dur": 2, "tid": 1, "pid": "CPU functions"}, {"name": "b", "ph")";
  auto t = Import(json);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(),
            "legacy.json: input ends inside the traceEvents array (truncated? 1 complete events "
            "before) at text offset " +
                std::to_string(json.size()));
}

TEST(AutogradProfiler, MapReportsWhetherItFoundTheProfilersTracks) {
  EventGraph g;
  EXPECT_FALSE(MapAutogradProfilerEvents(&g));
}

}  // namespace
}  // namespace th::kineto
