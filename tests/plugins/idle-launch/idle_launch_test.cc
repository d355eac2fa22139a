// idle-launch on traces written by the test (every number by hand): the three
// gap classes, HTA's step window and whole-µs rounding, what the launching
// thread did during a long gap, launch delays, kernels shorter than their
// launch, the launch queue; a trace of CUDA graph capture is skipped.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "tests/support/derived_values.h"
#include "tests/support/synthetic_traces.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

const LoadedPlugin& Plugin() {
  static const std::shared_ptr<const LoadedPlugin> plugin = [] {
    auto p = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/th_idle_launch.so");
    EXPECT_TRUE(p.ok()) << p.status().message();
    return *p;
  }();
  return *plugin;
}

using th::testing::Col;

PluginResults RunOn(const std::string& name, const std::string& json,
                    const std::map<std::string, OptionValue>& options = {}) {
  auto set = LoadTraceSet({testing::WriteTempFile(name, json)}, LoadOptions{});
  EXPECT_TRUE(set.ok()) << set.status().message();
  PluginResults r;
  Status s = RunPlugin(Plugin(), *set, options, &r);
  EXPECT_TRUE(s.ok()) << s.message();
  return r;
}

// Stream 7, times in µs. Launch thread tid 1.
//   k1 [100,110) launched at 90.
//   k2 [115,125) launched at 95, before k1 ended: gap 5 < 30 -> kernel-wait.
//   k3 [140,150) launched at 130, after k2 ended at 125: gap 15 -> host-wait.
//   k4 [200,210) launched at 141, before k3 ended: gap 50 >= 30 -> other.
//   k5 [212,215) has no launch event: gap 2 -> kernel-wait (no launch).
// During the host-wait gap [125,140) the thread ran slow_op [111,129) (its
// child aten::item [112,120) ends before the gap), then aten::mm [129.5,131)
// around the launch call [130,131).
constexpr const char* kGaps = R"({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "slow_op", "pid": 1, "tid": 1, "ts": 111, "dur": 18},
  {"ph": "X", "cat": "cpu_op", "name": "aten::item", "pid": 1, "tid": 1, "ts": 112, "dur": 8},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 129.5, "dur": 1.5},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 90, "dur": 3, "args": {"correlation": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 95, "dur": 3, "args": {"correlation": 2}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 130, "dur": 1, "args": {"correlation": 3}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 141, "dur": 20, "args": {"correlation": 4}},
  {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 100, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 115, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 140, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 3}},
  {"ph": "X", "cat": "kernel", "name": "k4", "pid": 0, "tid": 7, "ts": 200, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 4}},
  {"ph": "X", "cat": "kernel", "name": "k5", "pid": 0, "tid": 7, "ts": 212, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 99}}
]})";

TEST(IdleLaunch, GapClasses) {
  PluginResults r = RunOn("gaps.json", kGaps);
  const DerivedTable& t = r.tables.at("idle_breakdown");
  ASSERT_EQ(t.rows, 1u);
  EXPECT_EQ(Col<int64_t>(t, "stream")[0], 7);
  EXPECT_EQ(Col<int64_t>(t, "activities")[0], 5);
  EXPECT_EQ(Col<int64_t>(t, "span")[0], 115000);
  EXPECT_EQ(Col<int64_t>(t, "host_wait")[0], 15000);
  EXPECT_EQ(Col<int64_t>(t, "kernel_wait")[0], 7000);
  EXPECT_EQ(Col<int64_t>(t, "other")[0], 50000);
  EXPECT_EQ(Col<int64_t>(t, "idle")[0], 72000);
  EXPECT_EQ(Col<int64_t>(t, "host_wait_gaps")[0], 1);
  EXPECT_EQ(Col<int64_t>(t, "kernel_wait_gaps")[0], 2);
  EXPECT_EQ(Col<int64_t>(t, "other_gaps")[0], 1);
  EXPECT_EQ(Col<int64_t>(t, "no_launch_gaps")[0], 1);
  EXPECT_EQ(Col<int64_t>(t, "no_launch_idle")[0], 2000);
  EXPECT_DOUBLE_EQ(Col<double>(t, "host_wait_pct")[0], 100.0 * 15 / 72);
  EXPECT_DOUBLE_EQ(Col<double>(t, "idle_share_of_span")[0], 100.0 * 72 / 115);
  // 15 of 115 µs = 13% of the span is host-wait: above the 10% default.
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].title, "GPU stream waits on the host (launch-bound)");
  EXPECT_EQ(r.findings[0].scope.stream, 7);
}

TEST(IdleLaunch, ThresholdMovesOtherToKernelWait) {
  PluginResults r =
      RunOn("gaps_threshold.json", kGaps,
            {{"kernel_wait_threshold_ns", int64_t{60000}}, {"host_wait_finding_pct", 50.0}});
  const DerivedTable& t = r.tables.at("idle_breakdown");
  EXPECT_EQ(Col<int64_t>(t, "host_wait")[0], 15000);
  EXPECT_EQ(Col<int64_t>(t, "kernel_wait")[0], 57000);
  EXPECT_EQ(Col<int64_t>(t, "other")[0], 0);
  EXPECT_TRUE(r.findings.empty());
}

TEST(IdleLaunch, LongGapShowsWhatTheLaunchingThreadDid) {
  PluginResults r = RunOn("gaps_long.json", kGaps, {{"long_gap_ns", int64_t{10000}}});
  const DerivedTable& t = r.tables.at("long_gaps");
  ASSERT_EQ(t.rows, 2u);  // 50 µs (other), then 15 µs (host-wait)
  EXPECT_EQ(Col<int64_t>(t, "dur")[0], 50000);
  EXPECT_EQ(Col<std::string>(t, "category")[0], "other");
  EXPECT_EQ(Col<int64_t>(t, "dur")[1], 15000);
  EXPECT_EQ(Col<int64_t>(t, "begin")[1], 125000);
  EXPECT_EQ(Col<std::string>(t, "category")[1], "host_wait");
  EXPECT_EQ(Col<std::string>(t, "next_activity")[1], "k3");
  EXPECT_EQ(Col<int64_t>(t, "thread")[1], 1);
  // slow_op 4 µs of self time in the gap, the launch call 1 µs, aten::mm 0.5;
  // the thread was busy 4 + 1.5 µs of the 15.
  EXPECT_EQ(Col<std::string>(t, "top_event")[1], "slow_op");
  EXPECT_EQ(Col<int64_t>(t, "top_event_self")[1], 4000);
  EXPECT_EQ(Col<int64_t>(t, "thread_busy")[1], 5500);
  EXPECT_EQ(Col<std::string>(t, "thread_top_events")[1],
            "slow_op (4.0 us); cudaLaunchKernel (1.0 us); aten::mm (0.5 us)");
  // The 50 µs gap before k4: k4's launch call [141,161) covers 11 µs of it.
  EXPECT_EQ(Col<std::string>(t, "next_activity")[0], "k4");
  EXPECT_EQ(Col<int64_t>(t, "thread_busy")[0], 11000);
  EXPECT_EQ(Col<std::string>(t, "top_event")[0], "cudaLaunchKernel");
}

// The trace of kGaps with each thread's and stream's events written in two
// runs out of time order (later ones first): the same gaps, launches and
// queue as in start order.
TEST(IdleLaunch, ActivitiesOutOfFileOrderGiveTheSameFigures) {
  const std::string shuffled = R"({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "k4", "pid": 0, "tid": 7, "ts": 200, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 4}},
  {"ph": "X", "cat": "kernel", "name": "k5", "pid": 0, "tid": 7, "ts": 212, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 99}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 129.5, "dur": 1.5},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 130, "dur": 1, "args": {"correlation": 3}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 141, "dur": 20, "args": {"correlation": 4}},
  {"ph": "X", "cat": "cpu_op", "name": "slow_op", "pid": 1, "tid": 1, "ts": 111, "dur": 18},
  {"ph": "X", "cat": "cpu_op", "name": "aten::item", "pid": 1, "tid": 1, "ts": 112, "dur": 8},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 90, "dur": 3, "args": {"correlation": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 95, "dur": 3, "args": {"correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 100, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 115, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 140, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 3}}
]})";
  PluginResults sorted = RunOn("gaps_sorted.json", kGaps, {{"long_gap_ns", int64_t{10000}}});
  PluginResults r = RunOn("gaps_shuffled.json", shuffled, {{"long_gap_ns", int64_t{10000}}});
  for (const char* table : {"idle_breakdown", "long_gaps", "launch_stats", "queue_length"}) {
    const DerivedTable& a = sorted.tables.at(table);
    const DerivedTable& b = r.tables.at(table);
    ASSERT_EQ(a.rows, b.rows) << table;
    ASSERT_GT(a.rows, 0u) << table;
    for (const DerivedColumn& c : a.columns)
      EXPECT_EQ(c.values, b.Find(c.name.c_str())->values) << table << "." << c.name;
  }
  EXPECT_EQ(Col<int64_t>(r.tables.at("idle_breakdown"), "host_wait")[0], 15000);
  EXPECT_EQ(Col<int64_t>(r.tables.at("long_gaps"), "thread_busy")[1], 5500);
}

// A step annotation that crosses a Python frame instead of nesting in it (as
// Kineto writes ProfilerStep#N): the time of the host-wait gap [30,60) goes to
// the innermost running event, the step, not to the frame around both.
TEST(IdleLaunch, LongGapWithCrossingSlices) {
  PluginResults r = RunOn("crossing.json", R"({"traceEvents": [
    {"ph": "X", "cat": "python_function", "name": "main.py(1): <module>", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "python_function", "name": "profiler.py(9): step", "pid": 1, "tid": 1, "ts": 5, "dur": 15},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 10, "dur": 80},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 1, "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 55, "dur": 1, "args": {"correlation": 2}},
    {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 20, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 60, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 2}}
  ]})",
                          {{"long_gap_ns", int64_t{10000}}});
  const DerivedTable& t = r.tables.at("long_gaps");
  ASSERT_EQ(t.rows, 1u);
  EXPECT_EQ(Col<std::string>(t, "category")[0], "host_wait");
  EXPECT_EQ(Col<int64_t>(t, "thread_busy")[0], 30000);
  EXPECT_EQ(Col<std::string>(t, "thread_top_events")[0],
            "ProfilerStep#1 (29.0 us); cudaLaunchKernel (1.0 us)");
}

TEST(IdleLaunch, LaunchDelaysShortKernelsAndQueue) {
  PluginResults r = RunOn("gaps_launch.json", kGaps);
  const DerivedTable& t = r.tables.at("launch_stats");
  ASSERT_EQ(t.rows, 1u);
  // Delays: 10, 20, 10, 59 µs (k5 has no launch).
  EXPECT_EQ(Col<int64_t>(t, "launches")[0], 4);
  EXPECT_EQ(Col<int64_t>(t, "launch_delay_total")[0], 99000);
  EXPECT_EQ(Col<int64_t>(t, "launch_delay_max")[0], 59000);
  EXPECT_EQ(Col<int64_t>(t, "launch_delay_p50")[0], 10000);
  EXPECT_EQ(Col<int64_t>(t, "launch_call_time")[0], 27000);
  EXPECT_EQ(Col<int64_t>(t, "launch_delay_outliers")[0], 0);
  EXPECT_EQ(Col<int64_t>(t, "launch_call_outliers")[0], 0);
  // k4 runs 10 µs, its launch call 20 µs.
  EXPECT_EQ(Col<int64_t>(t, "kernels")[0], 4);
  EXPECT_EQ(Col<int64_t>(t, "kernels_shorter_than_launch")[0], 1);
  const DerivedTable& b = r.tables.at("launch_bound_kernels");
  ASSERT_EQ(b.rows, 1u);
  EXPECT_EQ(Col<std::string>(b, "name")[0], "k4");
  EXPECT_EQ(Col<int64_t>(b, "launch_call_time")[0], 20000);
  // Queue: +1 at 90 and 95, -1 at 110 and 125, +1 at 130 and 141, -1 at 150
  // and 210: at most 2 outstanding, mean over [90, 210) = (1*5 + 2*15 +
  // 1*15 + 0*5 + 1*11 + 2*9 + 1*60) / 120.
  EXPECT_EQ(Col<int64_t>(t, "queue_max")[0], 2);
  EXPECT_DOUBLE_EQ(Col<double>(t, "queue_mean")[0], 139.0 / 120);
  EXPECT_EQ(Col<int64_t>(t, "time_at_queue_limit")[0], 0);
  const DerivedTable& q = r.tables.at("queue_length");
  ASSERT_EQ(q.rows, 100u);
  EXPECT_EQ(Col<int64_t>(q, "begin")[0], 90000);
  EXPECT_EQ(Col<int64_t>(q, "width")[0], 1200);
  EXPECT_EQ(Col<int64_t>(q, "max")[5], 2);   // [96, 97.2) µs
  EXPECT_EQ(Col<int64_t>(q, "max")[30], 0);  // [126, 127.2) µs
}

TEST(IdleLaunch, QueueAtLimitIsAFinding) {
  PluginResults r = RunOn("gaps_limit.json", kGaps,
                          {{"queue_limit", int64_t{2}}, {"host_wait_finding_pct", 100.0}});
  const DerivedTable& t = r.tables.at("launch_stats");
  EXPECT_EQ(Col<int64_t>(t, "time_at_queue_limit")[0], 24000);  // [95,110) + [141,150)
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].title, "launch queue full");
}

// Two steps; a kernel launched in the last step and one with no launch event
// are left out by window=steps (HTA's window), kept by window=trace.
constexpr const char* kSteps = R"({"traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 80, "dur": 200},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 280, "dur": 200},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 90, "dur": 3, "args": {"correlation": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 150, "dur": 3, "args": {"correlation": 2}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 300, "dur": 3, "args": {"correlation": 3}},
  {"ph": "X", "cat": "kernel", "name": "early", "pid": 0, "tid": 7, "ts": 50, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 0}},
  {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 100, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 160, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 310, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 3}}
]})";

TEST(IdleLaunch, StepsWindowIsHtas) {
  PluginResults all = RunOn("steps_all.json", kSteps);
  const DerivedTable& a = all.tables.at("idle_breakdown");
  EXPECT_EQ(Col<int64_t>(a, "activities")[0], 4);
  // early -> k1: 40 µs, k1 launched at 90 after early ended: host-wait;
  // k1 -> k2: 50 host-wait; k2 -> k3: 140 host-wait.
  EXPECT_EQ(Col<int64_t>(a, "other")[0], 0);
  EXPECT_EQ(Col<int64_t>(a, "host_wait")[0], 230000);
  PluginResults steps = RunOn("steps_window.json", kSteps, {{"window", std::string("steps")}});
  const DerivedTable& s = steps.tables.at("idle_breakdown");
  EXPECT_EQ(Col<int64_t>(s, "activities")[0], 2);
  EXPECT_EQ(Col<int64_t>(s, "other")[0], 0);
  EXPECT_EQ(Col<int64_t>(s, "host_wait")[0], 50000);
  EXPECT_EQ(Col<int64_t>(s, "span")[0], 70000);
}

// Fractional µs: HTA 0.6 rounds every event to whole µs (ts up, end down).
//   k1 [100.4, 110.6) -> [101, 110); k2 [115.9, 120.4) -> [116, 120).
//   k2's launch call starts at 110.5, before k1's end 110.6 (kernel-wait),
//   but after its rounded end 110 once rounded up to 111 (host-wait).
constexpr const char* kFractional = R"({"traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 90, "dur": 3, "args": {"correlation": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110.5, "dur": 3, "args": {"correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 100.4, "dur": 10.2, "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 115.9, "dur": 4.5, "args": {"device": 0, "stream": 7, "correlation": 2}}
]})";

TEST(IdleLaunch, HtaRoundingOfFractionalTraces) {
  PluginResults ns = RunOn("frac_ns.json", kFractional);
  const DerivedTable& a = ns.tables.at("idle_breakdown");
  EXPECT_EQ(Col<int64_t>(a, "kernel_wait")[0], 5300);
  EXPECT_EQ(Col<int64_t>(a, "host_wait")[0], 0);
  PluginResults hta = RunOn("frac_hta.json", kFractional, {{"hta_rounding", true}});
  const DerivedTable& h = hta.tables.at("idle_breakdown");
  EXPECT_EQ(Col<int64_t>(h, "host_wait")[0], 6000);
  EXPECT_EQ(Col<int64_t>(h, "kernel_wait")[0], 0);
  EXPECT_EQ(Col<int64_t>(h, "span")[0], 19000);
  // Launch statistics stay exact under the rounding option.
  EXPECT_EQ(Col<int64_t>(hta.tables.at("launch_stats"), "launch_delay_total")[0], 15800);
}

TEST(IdleLaunch, TraceWithoutGpuActivityPublishesEmptyTables) {
  PluginResults r = RunOn("cpu_only.json", R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]})");
  EXPECT_EQ(r.tables.at("idle_breakdown").rows, 0u);
  EXPECT_EQ(r.tables.at("launch_stats").rows, 0u);
  EXPECT_EQ(r.tables.at("long_gaps").rows, 0u);
  EXPECT_TRUE(r.findings.empty());
}

TEST(IdleLaunch, GraphCaptureTraceIsSkippedWithTheReason) {
  PluginResults r = RunOn("capture.json", testing::kGraphCaptureTrace);
  EXPECT_EQ(r.tables.at("idle_breakdown").rows, 0u);
  EXPECT_EQ(r.tables.at("launch_stats").rows, 0u);
  EXPECT_TRUE(r.findings.empty());
  ASSERT_EQ(r.skips.size(), 1u);
  EXPECT_EQ(r.skips[0].plugin, "idle-launch");
  EXPECT_EQ(r.skips[0].reason,
            "the trace records CUDA/HIP graph capture: most launched kernels never ran in it, so "
            "its streams' idle time and launch delays describe start-up");
}

}  // namespace
}  // namespace th

namespace th {
namespace {

// Issue 15 item 5: a copy-only stream idles by design (it waits for the next
// copy) and is not launch-bound; a compute stream with the same gaps is. A
// rank with two devices names the device in the message.
//   stream 7 (device 0): kernels k1 [100,110), k2 [200,210), launched at 95
//     and 190: 90 µs host-wait of a 110 µs span.
//   stream 9 (device 0): memcpy c1 [100,101), c2 [209,210), launched at 95
//     and 205: 108 µs host-wait of 110 µs, 2 µs of the device's 22 µs busy.
//   stream 3 (device 1): the same kernels as stream 7.
constexpr const char* kCopyStream = R"({"traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 95, "dur": 1, "args": {"correlation": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 190, "dur": 1, "args": {"correlation": 2}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 2, "ts": 95, "dur": 1, "args": {"correlation": 3}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 2, "ts": 205, "dur": 1, "args": {"correlation": 4}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 3, "ts": 95, "dur": 1, "args": {"correlation": 5}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 3, "ts": 190, "dur": 1, "args": {"correlation": 6}},
  {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 100, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 200, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 2}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 9, "ts": 100, "dur": 1, "args": {"device": 0, "stream": 9, "correlation": 3}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH", "pid": 0, "tid": 9, "ts": 209, "dur": 1, "args": {"device": 0, "stream": 9, "correlation": 4}},
  {"ph": "X", "cat": "kernel", "name": "k1", "pid": 1000, "tid": 3, "ts": 100, "dur": 10, "args": {"device": 1, "stream": 3, "correlation": 5}},
  {"ph": "X", "cat": "kernel", "name": "k2", "pid": 1000, "tid": 3, "ts": 200, "dur": 10, "args": {"device": 1, "stream": 3, "correlation": 6}}
]})";

TEST(IdleLaunch, CopyStreamIsJudgedByWhatItCarriesAndTheDeviceIsNamed) {
  PluginResults r = RunOn("copy_stream.json", kCopyStream);
  std::map<int64_t, const Finding*> by_stream;
  for (const Finding& f : r.findings)
    if (f.title == "GPU stream waits on the host (launch-bound)") by_stream[f.scope.stream] = &f;
  ASSERT_EQ(by_stream.count(7), 1u) << "the compute stream is launch-bound";
  EXPECT_EQ(by_stream.count(9), 0u) << "the copy stream idles by design";
  ASSERT_EQ(by_stream.count(3), 1u);
  EXPECT_NE(by_stream[7]->what.find("rank 0 device 0 stream 7 idles"), std::string::npos)
      << by_stream[7]->what;
  EXPECT_NE(by_stream[3]->what.find("rank 0 device 1 stream 3 idles"), std::string::npos)
      << by_stream[3]->what;
  // A copy stream that holds most of its device's busy time is judged again.
  PluginResults all = RunOn("copy_stream_share.json", kCopyStream, {{"min_busy_share_pct", 5.0}});
  bool copy_reported = false;
  for (const Finding& f : all.findings) copy_reported |= f.scope.stream == 9;
  EXPECT_TRUE(copy_reported);
}

}  // namespace
}  // namespace th
