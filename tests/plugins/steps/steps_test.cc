// The steps plugin on small hand-written traces (every source, the warm-up
// split, inference from periodic GPU work) and on the real traces in
// ../shared/data (ProfilerStep counts against the oracle; inferred steps
// against the ProfilerStep markers of the same trace; XLA module executions).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "tests/plugins/steps/plugin_run.h"

namespace th {
namespace {

using testing::Column;
using testing::LoadJson;
using testing::Options;
using testing::RunSteps;

// One Chrome-trace event; times in µs.
std::string Ev(const std::string& cat, const std::string& name, int pid, int tid, double ts,
               double dur, const std::string& args = "") {
  std::ostringstream o;
  o << R"({"ph":"X","cat":")" << cat << R"(","name":")" << name << R"(","pid":)" << pid
    << R"(,"tid":)" << tid << R"(,"ts":)" << ts << R"(,"dur":)" << dur;
  if (!args.empty()) o << R"(,"args":{)" << args << "}";
  o << "}";
  return o.str();
}

// A launch on the host (tid 1) and its kernel on stream 7.
std::string Launch(int corr, double ts, const std::string& kernel, double kts, double kdur) {
  std::string c = std::to_string(corr);
  return Ev("cuda_runtime", "cudaLaunchKernel", 10, 1, ts, 2, R"("correlation":)" + c) + ",\n" +
         Ev("kernel", kernel, 0, 7, kts, kdur, R"("device":0,"stream":7,"correlation":)" + c);
}

std::string Kineto(const std::vector<std::string>& events) {
  std::string out = R"({"schemaVersion":1,"distributedInfo":{"rank":0,"world_size":1},)"
                    R"("traceEvents":[)";
  for (size_t i = 0; i < events.size(); ++i) out += (i ? ",\n" : "\n") + events[i];
  return out + "]}";
}

const DerivedTable& StepsOf(const PluginResults& r) { return r.tables.at("steps"); }

TEST(Steps, ProfilerStepsEndWithTheGpuWorkTheyLaunched) {
  TraceSet set = LoadJson(
      "profiler_steps.json",
      Kineto({Ev("user_annotation", "ProfilerStep#1", 10, 1, 0, 100),
              Ev("user_annotation", "ProfilerStep#2", 10, 1, 100, 100),
              Ev("user_annotation", "ProfilerStep#3", 10, 1, 200, 100), Launch(1, 10, "k1", 20, 70),
              Launch(2, 110, "k2", 150, 80), Launch(3, 210, "k3", 240, 20)}));
  PluginResults r = RunSteps(set, {});
  const DerivedTable& t = StepsOf(r);
  ASSERT_EQ(t.rows, 3u);
  EXPECT_EQ(Column<int64_t>(t, "step"), (std::vector<int64_t>{1, 2, 3}));
  // Step 2's kernel runs to 230 µs; step 3 starts there.
  EXPECT_EQ(Column<int64_t>(t, "ts"), (std::vector<int64_t>{0, 100000, 230000}));
  EXPECT_EQ(Column<int64_t>(t, "dur"), (std::vector<int64_t>{100000, 130000, 70000}));
  EXPECT_EQ(Column<int64_t>(t, "host_ts"), (std::vector<int64_t>{0, 100000, 200000}));
  EXPECT_EQ(Column<int64_t>(t, "host_dur"), (std::vector<int64_t>{100000, 100000, 100000}));
  EXPECT_EQ(Column<std::string>(t, "source")[0], "profiler_step");
  EXPECT_EQ(Column<std::string>(t, "kind")[0], "measured");
  // Automatic warm-up: the first step (130 µs is not 1.5 × the median of the rest... of one).
  EXPECT_EQ(Column<int64_t>(t, "warmup"), (std::vector<int64_t>{1, 0, 0}));
  EXPECT_EQ(Column<std::string>(t, "phase"),
            (std::vector<std::string>{"warmup", "steady", "steady"}));
  EXPECT_EQ(t.Find("dur")->unit, "ns");

  // Host windows only.
  PluginResults host = RunSteps(set, {{"extend_to_device", false}});
  EXPECT_EQ(Column<int64_t>(StepsOf(host), "ts"), (std::vector<int64_t>{0, 100000, 200000}));
  EXPECT_EQ(Column<int64_t>(StepsOf(host), "dur"), (std::vector<int64_t>{100000, 100000, 100000}));
}

TEST(Steps, WarmupIsTheFirstStepAndTheOutliersAfterIt) {
  std::vector<std::string> events;
  double ts = 0;
  int n = 1;
  for (double d : {100, 90, 20, 21, 20, 22}) {
    events.push_back(Ev("user_annotation", "ProfilerStep#" + std::to_string(n++), 10, 1, ts, d));
    ts += d;
  }
  TraceSet set = LoadJson("warmup.json", Kineto(events));
  auto warm = [&](const Options& o) {
    return Column<int64_t>(StepsOf(RunSteps(set, o)), "warmup");
  };
  // 90 > 1.5 × median(20, 21, 20, 22); 20 is not.
  EXPECT_EQ(warm({}), (std::vector<int64_t>{1, 1, 0, 0, 0, 0}));
  EXPECT_EQ(warm({{"warmup_factor", 5.0}}), (std::vector<int64_t>{1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(warm({{"warmup_steps", int64_t{0}}}), (std::vector<int64_t>(6, 0)));
  EXPECT_EQ(warm({{"warmup_steps", int64_t{3}}}), (std::vector<int64_t>{1, 1, 1, 0, 0, 0}));
  EXPECT_EQ(warm({{"warmup_steps", int64_t{9}}}), (std::vector<int64_t>(6, 1)));

  PluginResults r = RunSteps(set, {});
  double warmup_metric = -1, steps_metric = -1;
  for (const Metric& m : r.metrics) {
    if (m.name == "warmup_steps") warmup_metric = m.value;
    if (m.name == "steps") steps_metric = m.value;
  }
  EXPECT_EQ(warmup_metric, 2);
  EXPECT_EQ(steps_metric, 6);

  // A single step is steady: there is nothing to tell it apart from.
  TraceSet one = LoadJson("one_step.json", Kineto({Ev("cpu_op", "ProfilerStep#4", 10, 1, 0, 50)}));
  EXPECT_EQ(Column<int64_t>(StepsOf(RunSteps(one, {})), "warmup"), std::vector<int64_t>{0});
}

TEST(Steps, PatternMarksOneStepPerOutermostMatch) {
  TraceSet set = LoadJson("pattern.json",
                          Kineto({Ev("user_annotation", "ProfilerStep#1", 10, 1, 0, 300),
                                  Ev("user_annotation", "train iteration_7", 10, 1, 0, 50),
                                  Ev("user_annotation", "train iteration_8", 10, 1, 50, 50),
                                  Ev("user_annotation", "train iteration_8 (retry)", 10, 1, 60, 10),
                                  Ev("user_annotation", "train iteration_9", 10, 1, 100, 60)}));
  PluginResults r = RunSteps(set, {{"pattern", std::string(R"(iteration_(\d+))")}});
  const DerivedTable& t = StepsOf(r);
  ASSERT_EQ(t.rows, 3u);
  EXPECT_EQ(Column<int64_t>(t, "step"), (std::vector<int64_t>{7, 8, 9}));
  EXPECT_EQ(Column<int64_t>(t, "dur"), (std::vector<int64_t>{50000, 50000, 60000}));
  EXPECT_EQ(Column<std::string>(t, "source")[0], "pattern");

  // Without a numeric group: numbered in order.
  PluginResults plain = RunSteps(set, {{"pattern", std::string("^train ")}});
  EXPECT_EQ(Column<int64_t>(StepsOf(plain), "step"), (std::vector<int64_t>{0, 1, 2}));

  // Forcing another source ignores the pattern.
  PluginResults forced = RunSteps(
      set, {{"pattern", std::string("iteration")}, {"source", std::string("profiler_step")}});
  EXPECT_EQ(Column<std::string>(StepsOf(forced), "source"),
            std::vector<std::string>{"profiler_step"});

  EXPECT_THROW(RunSteps(set, {{"pattern", std::string("iteration_(")}}), std::runtime_error);
  try {
    RunSteps(set, {{"source", std::string("pattern")}});
    ADD_FAILURE() << "source pattern without a pattern must fail";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("needs the option pattern"), std::string::npos)
        << e.what();
  }
}

// GPU work only: a partial step, then 5 steps of emb, L, L, L, opt, each after
// a 50 µs idle gap (the host preparing the next batch).
std::string PeriodicGpuTrace(int steps) {
  std::vector<std::string> events;
  double ts = 0;
  auto kernel = [&](const std::string& name, double dur) {
    events.push_back(Ev("kernel", name, 0, 7, ts, dur, R"("device":0,"stream":7)"));
    ts += dur + 1;
  };
  kernel("layer_gemm", 10);
  kernel("optimizer_step", 5);
  for (int s = 0; s < steps; ++s) {
    ts += 50;
    kernel("embedding_fwd", 4);
    for (int l = 0; l < 3; ++l) kernel("layer_gemm", 10);
    kernel("optimizer_step", 5);
  }
  return Kineto(events);
}

TEST(Steps, InferredFromThePeriodOfTheKernelSequence) {
  TraceSet set = LoadJson("periodic.json", PeriodicGpuTrace(5));
  PluginResults r = RunSteps(set, {});
  const DerivedTable& t = StepsOf(r);
  ASSERT_EQ(t.rows, 5u);
  EXPECT_EQ(Column<std::string>(t, "source")[0], "inferred");
  EXPECT_EQ(Column<std::string>(t, "kind")[0], "inferred");
  EXPECT_GE(Column<double>(t, "confidence")[0], 0.8);
  // Steps start at the embedding kernel (after the idle gap), one period apart.
  const auto& ts = Column<int64_t>(t, "ts");
  const auto& dur = Column<int64_t>(t, "dur");
  EXPECT_EQ(ts[0], 17000 + 50000);  // after the partial step and the gap
  for (size_t s = 0; s + 1 < t.rows; ++s) EXPECT_EQ(dur[s], ts[s + 1] - ts[s]);
  EXPECT_EQ(dur[0], 50000 + 5000 + 3 * 11000 + 6000);
  EXPECT_EQ(dur[4], 5000 + 3 * 11000 + 5000);  // the last one ends with its work
  bool confidence_metric = false;
  for (const Metric& m : r.metrics)
    if (m.name == "step_inference_confidence") {
      confidence_metric = true;
      EXPECT_EQ(m.kind, NumberKind::kInferred);
      EXPECT_EQ(m.unit, "ratio");
    }
  EXPECT_TRUE(confidence_metric);

  EXPECT_EQ(StepsOf(RunSteps(set, {{"infer", false}})).rows, 0u);
  // Too few repetitions to see a period.
  TraceSet two = LoadJson("two_periods.json", PeriodicGpuTrace(1));
  EXPECT_EQ(StepsOf(RunSteps(two, {})).rows, 0u);
}

// JAX's trace.json.gz (format xprof_json): an "XLA Modules" line and a
// "Steps" line on a device plane.
std::string XprofJson(bool steps_line) {
  std::string ev;
  auto add = [&](int tid, const std::string& name, double ts, double dur) {
    ev += R"({"ph":"X","pid":1,"tid":)" + std::to_string(tid) + R"(,"ts":)" + std::to_string(ts) +
          R"(,"dur":)" + std::to_string(dur) + R"(,"name":")" + name + R"("},)";
  };
  add(1, "jit_init(1)", 0, 10);
  for (int k = 0; k < 3; ++k) {
    add(1, "jit_train_step(5)", 20 + 50 * k, 40);
    add(2, "fusion.1", 20 + 50 * k, 30);
    if (steps_line) add(3, std::to_string(12 + k), 18 + 50 * k, 45);
  }
  add(1, "jit_eval(9)", 200, 5);
  return std::string(
             R"({"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[)") +
         R"({"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:TPU:0"}},)" +
         R"({"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"XLA Modules"}},)" +
         R"({"ph":"M","pid":1,"tid":2,"name":"thread_name","args":{"name":"XLA Ops"}},)" +
         R"({"ph":"M","pid":1,"tid":3,"name":"thread_name","args":{"name":"Steps"}},)" +
         R"({"ph":"M","pid":701,"name":"process_name","args":{"name":"/host:CPU"}},)" + ev + "{}]}";
}

TEST(Steps, XlaStepsLineThenTheDominantModule) {
  TraceSet modules = LoadJson("host.trace.json", XprofJson(false));
  ASSERT_EQ(modules.traces[0]->info.format, "xprof_json");
  PluginResults rm = RunSteps(modules, {});
  const DerivedTable& m = StepsOf(rm);
  ASSERT_EQ(m.rows, 3u);
  EXPECT_EQ(Column<std::string>(m, "source")[0], "xla_module");
  EXPECT_EQ(Column<int64_t>(m, "step"), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(Column<int64_t>(m, "ts"), (std::vector<int64_t>{20000, 70000, 120000}));
  EXPECT_EQ(Column<int64_t>(m, "dur"), (std::vector<int64_t>(3, 40000)));

  TraceSet lines = LoadJson("steps.trace.json", XprofJson(true));
  PluginResults rs = RunSteps(lines, {});
  const DerivedTable& s = StepsOf(rs);
  ASSERT_EQ(s.rows, 3u);
  EXPECT_EQ(Column<std::string>(s, "source")[0], "xla_step");
  EXPECT_EQ(Column<int64_t>(s, "step"), (std::vector<int64_t>{12, 13, 14}));
  EXPECT_EQ(Column<int64_t>(s, "ts"), (std::vector<int64_t>{18000, 68000, 118000}));
  // The module executions on request.
  PluginResults forced = RunSteps(lines, {{"source", std::string("xla_module")}});
  EXPECT_EQ(Column<int64_t>(StepsOf(forced), "ts"), (std::vector<int64_t>{20000, 70000, 120000}));
}

TEST(Steps, NoMarkerAndNoGpuWorkGivesNoSteps) {
  TraceSet set = LoadJson("cpu_only.json", Kineto({Ev("cpu_op", "aten::add", 10, 1, 0, 5)}));
  PluginResults r = RunSteps(set, {});
  EXPECT_EQ(StepsOf(r).rows, 0u);
  EXPECT_TRUE(r.findings.empty());
}

// ---- Real traces -----------------------------------------------------------

std::vector<std::string> OracleKinetoTraces() {
  std::vector<std::string> out;
  std::string data = testing::SharedDataDir();
  if (data.empty()) return out;
  const std::string suffix = ".hta.json";  // the Kineto traces with GPU work
  for (const auto& e : std::filesystem::recursive_directory_iterator(data + "/expected")) {
    std::string p = e.path().string();
    if (p.size() > suffix.size() && p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(std::filesystem::relative(p, data + "/expected").string());
  }
  for (std::string& s : out) s.resize(s.size() - suffix.size());
  std::sort(out.begin(), out.end());
  return out;
}

int64_t MedianOf(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

TEST(StepsRealTraces, ProfilerStepsMatchTheOracleAndInferenceFindsThem) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: real-trace steps tests skipped";
  std::vector<std::string> traces = OracleKinetoTraces();
  ASSERT_GE(traces.size(), 40u);
  int compared_inference = 0;
  for (const std::string& rel : traces) {
    SCOPED_TRACE(rel);
    auto set = LoadTraceSet({data + "/" + rel}, LoadOptions{});
    ASSERT_TRUE(set.ok()) << set.status().message();
    // Distinct ProfilerStep#N per file from the oracle (archives: per member).
    simdjson::dom::parser parser;
    simdjson::dom::element o = parser.load(data + "/expected/" + rel + ".oracle.json").value();
    size_t want = 0;
    auto distinct = [](simdjson::dom::element member) {
      std::set<int64_t> n;
      for (auto s : member["profiler_steps"]["steps"].get_array()) n.insert(s.get_int64().value());
      return n.size();
    };
    if (o["kind"].get_string().value() == "tar") {
      for (auto m : o["members"].get_array()) want += distinct(m);
    } else {
      want = distinct(o);
    }
    PluginResults markers = RunSteps(*set, {{"source", std::string("profiler_step")}});
    const DerivedTable& m = StepsOf(markers);
    EXPECT_EQ(m.rows, want);
    // A window starts no earlier than its marker and ends no earlier than it
    // (it may start after the marker's end when the GPU runs a step behind).
    const auto& ts = Column<int64_t>(m, "ts");
    const auto& dur = Column<int64_t>(m, "dur");
    const auto& hts = Column<int64_t>(m, "host_ts");
    const auto& hdur = Column<int64_t>(m, "host_dur");
    const auto& rank = Column<int64_t>(m, "rank");
    for (size_t k = 0; k < m.rows; ++k) {
      EXPECT_GE(ts[k], hts[k]);
      EXPECT_GE(ts[k] + dur[k], hts[k] + hdur[k]);
      if (k > 0 && rank[k] == rank[k - 1]) {
        EXPECT_GE(ts[k], ts[k - 1] + dur[k - 1]);  // no overlap within a rank
      }
    }
    // With three or more markers, inference (markers ignored) finds about as
    // many steps, of about the same length.
    if (set->traces.size() != 1 || m.rows < 3) continue;
    ++compared_inference;
    PluginResults inferred = RunSteps(*set, {{"source", std::string("inferred")}});
    const DerivedTable& i = StepsOf(inferred);
    EXPECT_LE(std::llabs(static_cast<int64_t>(i.rows) - static_cast<int64_t>(m.rows)), 1);
    int64_t want_median = MedianOf(dur);
    int64_t got_median = MedianOf(Column<int64_t>(i, "dur"));
    EXPECT_NEAR(static_cast<double>(got_median), static_cast<double>(want_median),
                0.1 * static_cast<double>(want_median));
    if (i.rows) {
      EXPECT_GE(Column<double>(i, "confidence")[0], 0.9);
    }
  }
  EXPECT_EQ(compared_inference, 9);
}

TEST(StepsRealTraces, TpuCaptureStepsAreTheDominantModuleExecutions) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: real-trace steps tests skipped";
  auto set =
      LoadTraceSet({data + "/xprof/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb"}, {});
  ASSERT_TRUE(set.ok()) << set.status().message();
  PluginResults r = RunSteps(*set, {});
  const DerivedTable& t = StepsOf(r);
  // jit_f (99.5% of device time) runs 100 times on each of the 4 TPU cores.
  ASSERT_EQ(t.rows, 100u);
  EXPECT_EQ(Column<std::string>(t, "source")[0], "xla_module");
  EXPECT_EQ(Column<int64_t>(t, "warmup")[0], 1);
}

}  // namespace
}  // namespace th
