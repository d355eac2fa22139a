// Changes ranked by the critical path, on a one-rank trace written by the
// test with known causes, every figure by hand. The step (µs): aten::mm
// [10,110) launches gemm_k1 into an empty stream 7 at 20 (runs [40,240));
// cudaStreamSynchronize [110,410) waits for it; aten::add [420,480) launches
// add_k2 at 430 (runs [445,545), launch delay 15), side_slow_kernel on
// stream 9 at 450 ([460,500), never gating) and an all-reduce at 460 that
// queues behind add_k2 on stream 7 ([550,1550), 1 ms exposed). The path:
// 10 host + 20 launch + 200 gemm_k1 + (sync wait) + 10 host + 15 launch +
// 100 add_k2 + 5 gap + 1000 all-reduce = 1360 µs; waits 180; elapsed 1540.
// What-ifs: without communication the longest path is 360 (the same path up
// to add_k2 and its gap); without compute 1130 (mm's 100 µs of host then
// add's 10 + 15 + 5 + 1000); without launch overhead 1325; without kernel
// gaps 1355; without host 1340. Then on ../shared/data (skipped when absent):
// HTA's cuda_event_sync trace with one cause per category (the invariants),
// and the 8-rank DLRM capture with the plugins' own findings.
#include "core/report/path_changes.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/report/analysis_report.h"
#include "core/report/html_report.h"
#include "core/report/json_writer.h"
#include "core/report/path_changes_text.h"
#include "tests/plugins/critical-path/test_support.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

using testing::Col;

std::string X(const char* cat, const std::string& name, int pid, int tid, int64_t ts, int64_t dur,
              const std::string& args = "") {
  return R"({"ph": "X", "cat": ")" + std::string(cat) + R"(", "name": ")" + name + R"(", "pid": )" +
         std::to_string(pid) + R"(, "tid": )" + std::to_string(tid) + R"(, "ts": )" +
         std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + R"(, "args": {)" + args + "}}";
}
std::string Corr(int c) { return R"("correlation": )" + std::to_string(c); }
std::string OnStream(int stream, int c) {
  return R"("device": 0, "stream": )" + std::to_string(stream) + ", " + Corr(c);
}

const char kAllReduce[] =
    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)";

std::string Trace() {
  std::vector<std::string> e = {
      X("user_annotation", "ProfilerStep#1", 1, 1, 0, 5000),
      X("cpu_op", "aten::mm", 1, 1, 10, 100),
      X("cuda_runtime", "cudaLaunchKernel", 1, 1, 20, 10, Corr(1)),
      X("kernel", "gemm_k1", 0, 7, 40, 200, OnStream(7, 1)),
      X("cuda_runtime", "cudaStreamSynchronize", 1, 1, 110, 300, Corr(2)),
      X("cuda_sync", "Stream Sync", 0, 7, 110, 300, OnStream(7, 2)),
      X("cpu_op", "aten::add", 1, 1, 420, 60),
      X("cuda_runtime", "cudaLaunchKernel", 1, 1, 430, 10, Corr(3)),
      X("kernel", "add_k2", 0, 7, 445, 100, OnStream(7, 3)),
      X("cuda_runtime", "cudaLaunchKernel", 1, 1, 450, 5, Corr(4)),
      X("kernel", "side_slow_kernel", 0, 9, 460, 40, OnStream(9, 4)),
      X("cuda_runtime", "cudaLaunchKernel", 1, 1, 460, 5, Corr(5)),
      X("kernel", kAllReduce, 0, 7, 550, 1000, OnStream(7, 5)),
  };
  std::string out = R"({"traceEvents": [)";
  for (size_t i = 0; i < e.size(); ++i) out += (i ? ",\n" : "") + e[i];
  return out + "]}";
}

Finding Cause(const char* plugin, const char* title, int64_t stream, const char* suggestion = "") {
  Finding f;
  f.plugin = plugin;
  f.severity = FindingSeverity::kP1;
  f.title = title;
  f.suggestion = suggestion;
  f.scope.rank = 0;
  f.scope.stream = stream;
  return f;
}

struct Fixture {
  std::unique_ptr<TraceSet> set;
  PluginResults results;
};

// The trace, the critical-path plugin's tables (when `with_path`) and four
// causes: launch-bound kernels on stream 7, the exposed all-reduce, the slow
// side-stream kernel (named), aten::add's host time (by its time range); and
// a fifth scoped to a step the trace does not have.
Fixture Build(bool with_path) {
  Fixture fx;
  auto set = LoadTraceSet({testing::WriteTempFile("path_changes.json", Trace())}, LoadOptions{});
  EXPECT_TRUE(set.ok()) << set.status().message();
  fx.set = std::make_unique<TraceSet>(std::move(*set));
  if (with_path) fx.results = testing::RunCriticalPath(*fx.set, {}, false);
  Finding launch = Cause("idle-launch", "launch-bound small kernels", 7);
  launch.saving_ns = 900'000;  // the largest saving, not the largest share of the path
  fx.results.findings.push_back(launch);
  Finding ar = Cause("collectives", "exposed all-reduce", -1, "overlap it with the backward pass");
  ar.saving_ns = 500'000;
  fx.results.findings.push_back(ar);
  fx.results.findings.push_back(Cause("kernel-stats", "side_slow_kernel is slow", 9));
  Finding add = Cause("op-stats", "aten::add holds the host", -1);
  add.range = {{420'000, 480'000}};
  fx.results.findings.push_back(add);
  // Its steps hold no path of the trace (step 1 only): not ranked.
  Finding later = Cause("cuda-sync", "host blocked in step 2", -1);
  later.scope.step_first = later.scope.step_last = 2;
  fx.results.findings.push_back(later);
  return fx;
}

TEST(PathChanges, WhatIfTableExact) {
  const Fixture fx = Build(true);
  const DerivedTable& w = fx.results.tables.at("critical_path_whatif");
  std::map<std::string, std::pair<int64_t, int64_t>> got;
  for (size_t i = 0; i < w.rows; ++i) {
    EXPECT_EQ(Col<int64_t>(w, "step")[i], 1);
    EXPECT_EQ(Col<int64_t>(w, "rank")[i], 0);
    got[Col<std::string>(w, "category")[i]] = {Col<int64_t>(w, "path_before")[i],
                                               Col<int64_t>(w, "path_after")[i]};
  }
  const std::map<std::string, std::pair<int64_t, int64_t>> want = {
      {"communication", {1'360'000, 360'000}},
      {"compute", {1'360'000, 1'130'000}},
      {"host", {1'360'000, 1'340'000}},
      {"kernel_gap", {1'360'000, 1'355'000}},
      {"launch_overhead", {1'360'000, 1'325'000}}};
  EXPECT_EQ(got, want);
  // The spans add up to the path, category by category.
  const DerivedTable& s = fx.results.tables.at("critical_path_spans");
  std::map<std::string, int64_t> by_category;
  for (size_t i = 0; i < s.rows; ++i)
    by_category[Col<std::string>(s, "category")[i]] += Col<int64_t>(s, "time")[i];
  const std::map<std::string, int64_t> want_spans = {{"communication", 1'000'000},
                                                     {"compute", 300'000},
                                                     {"host", 20'000},
                                                     {"kernel_gap", 5'000},
                                                     {"launch_overhead", 35'000}};
  EXPECT_EQ(by_category, want_spans);
}

TEST(PathChanges, RankedByShareWithStepAfter) {
  const Fixture fx = Build(true);
  const PathChanges c = RankChangesByPath(*fx.set, fx.results);
  ASSERT_TRUE(c.available);
  ASSERT_EQ(c.changes.size(), 4u);  // not the cause of step 2
  struct Want {
    std::string plugin;
    int64_t covered, path_after, step_after;
  };
  // Step 1540 µs = path 1360 + waits 180.
  const std::vector<Want> want = {
      {"collectives", 1'000'000, 360'000, 540'000},   // all of communication: the what-if
      {"idle-launch", 40'000, 1'320'000, 1'500'000},  // 35 launch + 5 gap, both whole
      {"op-stats", 10'000, 1'350'000, 1'530'000},     // half of host: half of its 20 µs
      {"kernel-stats", 0, 1'360'000, 1'540'000},      // off the path
  };
  for (size_t i = 0; i < want.size(); ++i) {
    const PathChange& x = c.changes[i];
    EXPECT_EQ(x.finding->plugin, want[i].plugin) << i;
    EXPECT_EQ(x.paths, 1);
    EXPECT_EQ(x.path_ns, 1'360'000);
    EXPECT_EQ(x.step_ns, 1'540'000);
    EXPECT_EQ(x.covered_ns, want[i].covered) << x.finding->plugin;
    EXPECT_DOUBLE_EQ(x.share_median, static_cast<double>(want[i].covered) / 1'360'000);
    EXPECT_EQ(x.path_after_ns, want[i].path_after) << x.finding->plugin;
    EXPECT_EQ(x.step_after_ns, want[i].step_after) << x.finding->plugin;
  }
  EXPECT_EQ(c.changes[0].assumption,
            "the 1.000 ms of communication on the critical path of rank 0 (step 1) disappears; "
            "the next-longest path then takes over: the step takes 540.000 us (path 360.000 us, "
            "the waits on it unchanged)");
  EXPECT_EQ(c.changes[0].knob, "overlap it with the backward pass");  // the finding's own
  EXPECT_EQ(c.changes[3].assumption,
            "none of its time is on the critical path of rank 0 (step 1): the step time does "
            "not change");
}

TEST(PathChanges, WithoutTheCriticalPathTheSectionSaysSo) {
  Fixture fx = Build(false);
  EXPECT_FALSE(RankChangesByPath(*fx.set, fx.results).available);
  AnalysisReport r;
  r.traces = fx.set.get();
  r.results = std::move(fx.results);
  std::ostringstream md;
  WriteReportMarkdown(r, md, {});
  EXPECT_NE(md.str().find("## Changes (*inferred*, not run)\n\nNo critical path in this run (the "
                          "`critical-path` plugin is not in the pipeline): the changes are ranked "
                          "by saving, not by their share of the critical path.\n\nRanked by the "
                          "saving each finding infers"),
            std::string::npos)
      << md.str();
  std::ostringstream html;
  WriteHtmlReportData(r, {}, html);
  EXPECT_NE(
      html.str().find(R"("changes_by_path":{"available":false,"ranked_by":"saving","causes":[]})"),
      std::string::npos);
}

// The bytes every output carries: the JSON fields (the report's and the HTML
// data blob's), the Markdown table and the terminal line.
TEST(PathChanges, OutputBytes) {
  Fixture fx = Build(true);
  AnalysisReport r;
  r.traces = fx.set.get();
  r.results = std::move(fx.results);
  // The JSON of the top cause, as the report and the HTML data blob write it.
  const std::string top =
      R"j({"group":"collectives/group-1","finding":"collectives/1","plugin":"collectives",)j"
      R"j("title":"exposed all-reduce","categories":["communication"],"paths":1,)j"
      R"j("share_median":0.7352941176470589,"share_min":0.7352941176470589,)j"
      R"j("share_max":0.7352941176470589,"step":1,"rank":0,"path_ns":1360000,)j"
      R"j("covered_ns":1000000,"what_if_ns":360000,"path_after_ns":360000,"step_ns":1540000,)j"
      R"j("step_after_ns":540000,"kind":"inferred","assumption":"the 1.000 ms of communication )j"
      R"j(on the critical path of rank 0 (step 1) disappears; the next-longest path then takes )j"
      R"j(over: the step takes 540.000 us (path 360.000 us, the waits on it unchanged)",)j"
      R"j("knob":"overlap it with the backward pass"})j";
  std::ostringstream html;
  WriteHtmlReportData(r, {}, html);
  EXPECT_NE(html.str().find(R"("changes_by_path":{"available":true,"ranked_by":)"
                            R"("critical_path_share","causes":[)" +
                            top + ","),
            std::string::npos);
  std::ostringstream json;
  WriteReportJson(r, json, {});
  EXPECT_NE(json.str().find("\"changes_by_path\": {\n    \"available\": true,\n    \"ranked_by\": "
                            "\"critical_path_share\",\n    \"causes\": [\n      {\n        "
                            "\"group\": \"collectives/group-1\","),
            std::string::npos);
  EXPECT_NE(json.str().find("\"step_after_ns\": 540000,"), std::string::npos);
  std::ostringstream md;
  WriteReportMarkdown(r, md, {});
  EXPECT_NE(
      md.str().find(
          "| cause | path category | share of path (median, range) | step | step after "
          "(*inferred*) | assumption | try |\n| --- | --- | --- | --- | --- | --- | --- |\n"
          "| collectives: exposed all-reduce | communication | 73.5 % (73.5 %–73.5 %, 1 path) | "
          "1.540 ms | 540.000 us | the 1.000 ms of communication on the critical path of rank 0 "
          "(step 1) disappears; the next-longest path then takes over: the step takes 540.000 us "
          "(path 360.000 us, the waits on it unchanged) | overlap it with the backward pass |\n| "
          "idle-launch: launch-bound small kernels | launch_overhead, "
          "kernel_gap | 2.9 % (2.9 %–2.9 %, 1 path) | 1.540 ms | 1.500 ms | the 35.000 us of "
          "launch overhead and the 5.000 us of kernel-to-kernel gaps on the critical path of rank "
          "0 (step 1) disappear; the path shrinks by the what-if's saving scaled to that share "
          "(without any launch overhead: 1.325 ms; without any kernel-to-kernel gaps: 1.355 ms): "
          "the step takes 1.500 ms (path 1.320 ms, the waits on it unchanged) | CUDA graphs, or "
          "torch.compile(mode=\"reduce-overhead\"), to launch the small kernels at once |\n"),
      std::string::npos)
      << md.str();
  EXPECT_EQ(md.str().find("Ranked by the saving each finding infers"), std::string::npos);
  EXPECT_NE(md.str().find("**Cause:** P1 · collectives · exposed all-reduce\n"), std::string::npos);
  std::ostringstream term;
  WriteReportTerminal(r, term, {});
  EXPECT_NE(term.str().find("biggest cause on the critical path (inferred): collectives: exposed "
                            "all-reduce, 73.5 % of rank 0's path (step 1.540 ms -> 540.000 us; "
                            "try overlap it with the backward pass)\n"),
            std::string::npos)
      << term.str();
}

// A real trace (HTA's cuda_event_sync, every ProfilerStep): one cause per path
// category over the whole rank; the section is there and its invariants hold.
TEST(PathChanges, RealTraceInvariants) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data absent: no real trace to check";
  auto set = LoadTraceSet(
      {data + "/hta/tests/data/critical_path/cuda_event_sync/event_sync_trace.json.gz"},
      LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  PluginResults results = testing::RunCriticalPath(*set, {}, false);
  for (const char* plugin : {"kernel-stats", "collectives", "idle-launch", "op-stats"}) {
    Finding f = Cause(plugin, "a cause", -1);
    f.scope.rank = -1;
    results.findings.push_back(f);
  }
  const PathChanges c = RankChangesByPath(*set, results);
  ASSERT_TRUE(c.available);
  ASSERT_EQ(c.changes.size(), 4u);
  // The four causes stand for disjoint categories: on every path, what they
  // cover adds up to at most the path.
  std::map<std::pair<int64_t, int64_t>, int64_t> covered, length;
  for (const PathChange& x : c.changes) {
    EXPECT_EQ(x.per_path.size(), static_cast<size_t>(x.paths));
    for (const PathChange::OnPath& o : x.per_path) {
      covered[{o.step, o.rank}] += o.covered_ns;
      length[{o.step, o.rank}] = o.path_ns;
    }
  }
  ASSERT_FALSE(covered.empty());
  for (const auto& [key, ns] : covered) EXPECT_LE(ns, length[key]);
  for (const PathChange& x : c.changes) {
    EXPECT_GE(x.paths, 1);
    EXPECT_LE(x.share_min, x.share_median);
    EXPECT_LE(x.share_median, x.share_max);
    EXPECT_LE(x.share_max, 1.0);
    EXPECT_LE(x.covered_ns, x.path_ns);
    EXPECT_LE(x.path_after_ns, x.path_ns);
    EXPECT_GE(x.path_after_ns, 0);
    EXPECT_LE(x.step_after_ns, x.step_ns) << x.finding->plugin;
  }
  // Per path: the spans add up to its length, by category, and each what-if
  // is at most the path.
  std::map<std::pair<int64_t, int64_t>, int64_t> spans, path;
  const DerivedTable& s = results.tables.at("critical_path_spans");
  for (size_t i = 0; i < s.rows; ++i)
    spans[{Col<int64_t>(s, "step")[i], Col<int64_t>(s, "rank")[i]}] += Col<int64_t>(s, "time")[i];
  const DerivedTable& p = results.tables.at("critical_path");
  for (size_t i = 0; i < p.rows; ++i)
    if (Col<int64_t>(p, "path")[i] > 0)
      path[{Col<int64_t>(p, "step")[i], Col<int64_t>(p, "rank")[i]}] = Col<int64_t>(p, "path")[i];
  EXPECT_EQ(spans, path);
  const DerivedTable& w = results.tables.at("critical_path_whatif");
  for (size_t i = 0; i < w.rows; ++i)
    EXPECT_LE(Col<int64_t>(w, "path_after")[i], Col<int64_t>(w, "path_before")[i]);
}

// The 8-rank DLRM capture through the plugins whose findings map to the path
// (as a pipeline runs them): the section ranks their causes, every figure
// within its bounds, and the report writes it.
TEST(PathChanges, RealDlrmWithThePluginsFindings) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data absent: the DLRM capture is not there";
  auto set = LoadTraceSet({data + "/param/et_replay/tests/data/dlrm_kineto.tar.gz"}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  PluginResults results;
  for (const char* library :
       {"th_steps.so", "th_collectives.so", "th_overlap.so", "th_idle_launch.so", "th_cuda_sync.so",
        "th_stragglers.so", "th_critical_path.so"}) {
    const Status s = RunPlugin(testing::LoadBuiltin(library), *set, {}, &results);
    ASSERT_TRUE(s.ok()) << library << ": " << s.message();
  }
  const PathChanges c = RankChangesByPath(*set, results);
  ASSERT_TRUE(c.available);
  std::set<std::string> plugins;
  for (const PathChange& x : c.changes) {
    plugins.insert(x.finding->plugin);
    EXPECT_LE(x.share_max, 1.0);
    EXPECT_LE(x.step_after_ns, x.step_ns);
    EXPECT_LE(x.covered_ns, x.path_ns);
    EXPECT_FALSE(x.assumption.empty());
    EXPECT_FALSE(x.knob.empty());
  }
  for (size_t i = 1; i < c.changes.size(); ++i)
    EXPECT_GE(c.changes[i - 1].share_median, c.changes[i].share_median);
  EXPECT_TRUE(plugins.count("overlap") && plugins.count("idle-launch") &&
              plugins.count("cuda-sync"))
      << plugins.size();
  AnalysisReport r;
  r.traces = &*set;
  r.results = std::move(results);
  std::ostringstream md;
  WriteReportMarkdown(r, md, {});
  EXPECT_NE(md.str().find("| cause | path category | share of path (median, range) |"),
            std::string::npos);
}

}  // namespace
}  // namespace th
