// step-breakdown on small hand-written traces whose every number is worked out
// by hand below: the priority categories of each step, HTA's temporal split
// per step and per rank (with HTA's filter on the last ProfilerStep), kernel
// type regions, syncs, HTA's whole-µs rounding, the warm-up / steady summary.
#include <gtest/gtest.h>

#include <sstream>

#include "tests/plugins/steps/plugin_run.h"

namespace th {
namespace {

using testing::Column;
using testing::LoadJson;
using testing::RunSteps;

std::string Ev(const std::string& cat, const std::string& name, int pid, int tid, double ts,
               double dur, const std::string& args = "") {
  std::ostringstream o;
  o << R"({"ph":"X","cat":")" << cat << R"(","name":")" << name << R"(","pid":)" << pid
    << R"(,"tid":)" << tid << R"(,"ts":)" << ts << R"(,"dur":)" << dur;
  if (!args.empty()) o << R"(,"args":{)" << args << "}";
  o << "}";
  return o.str();
}

// A runtime call on the host (tid 1) and the GPU activity it launched.
std::string Launch(const std::string& api, int corr, double ts, double dur, const std::string& cat,
                   const std::string& name, int stream, double gts, double gdur) {
  std::string c = std::to_string(corr);
  return Ev("cuda_runtime", api, 10, 1, ts, dur, R"("correlation":)" + c) + ",\n" +
         Ev(cat, name, 0, stream, gts, gdur,
            R"("device":0,"stream":)" + std::to_string(stream) + R"(,"correlation":)" + c);
}

std::string Kineto(const std::vector<std::string>& events) {
  std::string out = R"({"schemaVersion":1,"distributedInfo":{"rank":0,"world_size":1},)"
                    R"("traceEvents":[)";
  for (size_t i = 0; i < events.size(); ++i) out += (i ? ",\n" : "\n") + events[i];
  return out + "]}";
}

// Three steps (µs). Step 1 [0, 100) holds one of each category:
//   [0,10) dataloader  [10,15) CPU  [15,20) runtime  [20,22) CPU  [22,52) kernel
//   [52,55) communication (nccl:all_reduce)  [55,65) NCCL kernel  [65,70) memcpy
//   [70,72) runtime  [72,75) other  [75,80) memset  [80,85) other  [85,90) CPU
//   (python)  [90,100) other.
// Step 2 (host [100,200)) launches a kernel running [150,230): its window is
// [100,230). Step 3 (host [200,300)) starts at 230; its kernel runs [240,260).
std::string ThreeSteps() {
  return Kineto({
      Ev("user_annotation", "ProfilerStep#1", 10, 1, 0, 100),
      Ev("user_annotation", "ProfilerStep#2", 10, 1, 100, 100),
      Ev("user_annotation", "ProfilerStep#3", 10, 1, 200, 100),
      Ev("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 10, 1, 0, 10),
      Ev("cpu_op", "aten::mm", 10, 1, 10, 30),
      Launch("cudaLaunchKernel", 1, 15, 5, "kernel", "gemm", 7, 22, 30),
      Launch("cudaMemcpyAsync", 3, 45, 5, "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 9, 60,
             10),
      Ev("cpu_op", "nccl:all_reduce", 10, 1, 52, 6),
      Launch("cudaLaunchKernel", 2, 53, 1, "kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 8,
             55, 10),
      Launch("cudaMemsetAsync", 4, 70, 2, "gpu_memset", "Memset (Device)", 7, 75, 5),
      Ev("python_function", "model.py(10): forward", 10, 1, 85, 5),
      Ev("cpu_op", "aten::mm", 10, 1, 100, 40),
      Launch("cudaLaunchKernel", 5, 105, 5, "kernel", "gemm", 7, 150, 80),
      Ev("cpu_op", "aten::relu", 10, 1, 200, 20),
      Launch("cudaLaunchKernel", 6, 210, 5, "kernel", "relu_kernel", 7, 240, 20),
      Ev("cpu_op", "aten::add", 10, 1, 270, 10),
  });
}

int64_t Us(double us) { return static_cast<int64_t>(us * 1000); }

TEST(StepBreakdown, CategoriesByPriorityAddUpToEachStep) {
  TraceSet set = LoadJson("three_steps.json", ThreeSteps());
  PluginResults r = RunSteps(set, {}, true);
  const DerivedTable& t = r.tables.at("step_breakdown");
  ASSERT_EQ(t.rows, 3u);
  EXPECT_EQ(Column<int64_t>(t, "step"), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(Column<int64_t>(t, "dur"), (std::vector<int64_t>{Us(100), Us(130), Us(70)}));
  auto row = [&](const char* c) { return Column<int64_t>(t, c); };
  EXPECT_EQ(row("kernel"), (std::vector<int64_t>{Us(40), Us(80), Us(20)}));
  EXPECT_EQ(row("memcpy"), (std::vector<int64_t>{Us(5), 0, 0}));
  EXPECT_EQ(row("memset"), (std::vector<int64_t>{Us(5), 0, 0}));
  EXPECT_EQ(row("communication"), (std::vector<int64_t>{Us(3), 0, 0}));
  // Step 2: the runtime call inside aten::relu [200,220) lies under the kernel.
  EXPECT_EQ(row("runtime"), (std::vector<int64_t>{Us(7), Us(5), 0}));
  EXPECT_EQ(row("dataloader"), (std::vector<int64_t>{Us(10), 0, 0}));
  EXPECT_EQ(row("cpu_exec"), (std::vector<int64_t>{Us(12), Us(35), Us(10)}));
  EXPECT_EQ(row("other"), (std::vector<int64_t>{Us(18), Us(10), Us(40)}));
  // HTA's split of each step: busy = union of GPU rows.
  EXPECT_EQ(row("idle"), (std::vector<int64_t>{Us(50), Us(50), Us(50)}));
  EXPECT_EQ(row("compute"), (std::vector<int64_t>{Us(30), Us(80), Us(20)}));
  EXPECT_EQ(row("non_compute"), (std::vector<int64_t>{Us(20), 0, 0}));
  EXPECT_DOUBLE_EQ(Column<double>(t, "kernel_pct")[0], 40.0);
  EXPECT_DOUBLE_EQ(Column<double>(t, "other_pct")[2], 100.0 * 40 / 70);
  EXPECT_EQ(t.Find("kernel")->unit, "ns");
  EXPECT_EQ(t.Find("kernel_pct")->unit, "%");
  EXPECT_EQ(Column<std::string>(t, "phase"),
            (std::vector<std::string>{"warmup", "steady", "steady"}));
  EXPECT_EQ(Column<std::string>(t, "kind"), (std::vector<std::string>(3, "measured")));
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_TRUE(r.checks[0].passed) << r.checks[0].detail;
  EXPECT_EQ(r.checks[0].plugin, "step-breakdown");

  // Warm-up and steady state apart: never averaged together.
  const DerivedTable& s = r.tables.at("step_breakdown_summary");
  auto find = [&](const std::string& phase, const std::string& part) {
    for (size_t k = 0; k < s.rows; ++k)
      if (Column<std::string>(s, "phase")[k] == phase && Column<std::string>(s, "part")[k] == part)
        return k;
    ADD_FAILURE() << "no summary row " << phase << " " << part;
    return size_t{0};
  };
  size_t w = find("warmup", "step_time"), st = find("steady", "step_time");
  EXPECT_EQ(Column<int64_t>(s, "steps")[w], 1);
  EXPECT_EQ(Column<int64_t>(s, "mean")[w], Us(100));
  EXPECT_EQ(Column<int64_t>(s, "steps")[st], 2);
  EXPECT_EQ(Column<int64_t>(s, "ranks")[st], 1);
  EXPECT_EQ(Column<int64_t>(s, "mean")[st], Us(100));
  EXPECT_EQ(Column<int64_t>(s, "min")[st], Us(70));
  EXPECT_EQ(Column<int64_t>(s, "max")[st], Us(130));
  size_t k = find("steady", "kernel");
  EXPECT_DOUBLE_EQ(Column<double>(s, "min_pct")[k], 100.0 * 20 / 70);
  EXPECT_DOUBLE_EQ(Column<double>(s, "max_pct")[k], 100.0 * 80 / 130);
  EXPECT_DOUBLE_EQ(Column<double>(s, "mean_pct")[k], (100.0 * 20 / 70 + 100.0 * 80 / 130) / 2);
  EXPECT_EQ(Column<std::string>(s, "kind")[k], "measured");
  bool metric = false;
  for (const Metric& m : r.metrics)
    if (m.plugin == "step-breakdown" && m.name == "steady_kernel_pct_mean") {
      metric = true;
      EXPECT_EQ(m.unit, "%");
      EXPECT_EQ(m.kind, NumberKind::kMeasured);
    }
  EXPECT_TRUE(metric);
}

// Nested host ops: a child adds nothing where its enclosing op already counts
// for its category (or a higher one), but a child of a higher-priority
// category (the data loader inside an op) counts, and so does the part of a
// child past its parent's end. Step [0, 100): aten::outer [0,60) holds
// aten::inner [10,30), which holds the data loader [15,25), which holds
// aten::deep [16,18); aten::tail [50,70) starts inside aten::outer and ends
// after it.
TEST(StepBreakdown, NestedOpsCountOncePerCategory) {
  TraceSet set = LoadJson(
      "nested.json",
      Kineto({Ev("user_annotation", "ProfilerStep#1", 10, 1, 0, 100),
              Ev("cpu_op", "aten::outer", 10, 1, 0, 60), Ev("cpu_op", "aten::inner", 10, 1, 10, 20),
              Ev("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 10, 1, 15,
                 10),
              Ev("cpu_op", "aten::deep", 10, 1, 16, 2),
              Ev("cpu_op", "aten::tail", 10, 1, 50, 20)}));
  PluginResults r = RunSteps(set, {}, true);
  const DerivedTable& t = r.tables.at("step_breakdown");
  ASSERT_EQ(t.rows, 1u);
  EXPECT_EQ(Column<int64_t>(t, "dataloader"), (std::vector<int64_t>{Us(10)}));
  EXPECT_EQ(Column<int64_t>(t, "cpu_exec"), (std::vector<int64_t>{Us(60)}));
  EXPECT_EQ(Column<int64_t>(t, "other"), (std::vector<int64_t>{Us(30)}));
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_TRUE(r.checks[0].passed) << r.checks[0].detail;
}

TEST(StepBreakdown, RankLevelFollowsHtaAndLeavesTheLastStepOut) {
  TraceSet set = LoadJson("three_steps.json", ThreeSteps());
  PluginResults r = RunSteps(set, {}, true);
  // HTA keeps the GPU rows launched before ProfilerStep#3 starts (200 µs):
  // relu_kernel [240,260) is out. Span [22,230); busy 30 + 15 + 5 + 80.
  const DerivedTable& tb = r.tables.at("temporal_breakdown");
  ASSERT_EQ(tb.rows, 1u);
  EXPECT_EQ(Column<int64_t>(tb, "kernel_time")[0], Us(208));
  EXPECT_EQ(Column<int64_t>(tb, "idle")[0], Us(78));
  EXPECT_EQ(Column<int64_t>(tb, "compute")[0], Us(110));
  EXPECT_EQ(Column<int64_t>(tb, "non_compute")[0], Us(20));
  EXPECT_DOUBLE_EQ(Column<double>(tb, "idle_pct")[0], 100.0 * 78 / 208);
  EXPECT_EQ(Column<int64_t>(tb, "gpu_rows")[0], 5);
  EXPECT_EQ(Column<int64_t>(tb, "gpu_rows_left_out")[0], 1);

  // Regions where exactly these kernel types run: COMM alone [55,60),
  // COMM + MEM [60,65), MEM alone [65,70) and [75,80).
  const DerivedTable& kt = r.tables.at("kernel_type_breakdown");
  std::map<std::string, int64_t> all;
  std::map<std::string, double> share;
  for (size_t k = 0; k < kt.rows; ++k) {
    if (Column<int64_t>(kt, "rank")[k] != -1) continue;
    all[Column<std::string>(kt, "kernel_type")[k]] = Column<int64_t>(kt, "time")[k];
    share[Column<std::string>(kt, "kernel_type")[k]] = Column<double>(kt, "share")[k];
  }
  EXPECT_EQ(all, (std::map<std::string, int64_t>{{"COMPUTATION", Us(110)},
                                                 {"COMMUNICATION", Us(5)},
                                                 {"COMMUNICATION overlapping MEMORY", Us(5)},
                                                 {"MEMORY", Us(10)}}));
  EXPECT_DOUBLE_EQ(share["COMPUTATION"], 100.0 * 110 / 130);

  // include_last_step: relu_kernel is back.
  PluginResults last = RunSteps(set, {}, true, {{"include_last_step", true}});
  const DerivedTable& tl = last.tables.at("temporal_breakdown");
  EXPECT_EQ(Column<int64_t>(tl, "kernel_time")[0], Us(238));
  EXPECT_EQ(Column<int64_t>(tl, "compute")[0], Us(130));
  EXPECT_EQ(Column<int64_t>(tl, "gpu_rows_left_out")[0], 0);
}

TEST(StepBreakdown, SyncsOnAStreamAreGpuRowsButNoKernelType) {
  // No ProfilerStep: nothing filtered. A Stream Sync on stream 7 counts as
  // busy; a Context Sync (stream -1) does not; a kernel whose name holds
  // "Sync" is busy but neither compute nor any kernel type (HTA's OTHER).
  TraceSet set = LoadJson(
      "syncs.json",
      Kineto(
          {Ev("kernel", "gemm", 0, 7, 0, 10, R"("device":0,"stream":7,"correlation":1)"),
           Ev("cuda_sync", "Stream Sync", 0, 7, 20, 10, R"("device":0,"stream":7,"correlation":2)"),
           Ev("kernel", "grid_Sync_kernel", 0, 7, 30, 5,
              R"("device":0,"stream":7,"correlation":3)"),
           Ev("cuda_sync", "Context Sync", 0, -1, 40, 20,
              R"("device":0,"stream":-1,"correlation":4)")}));
  PluginResults r = RunSteps(set, {}, true);
  const DerivedTable& tb = r.tables.at("temporal_breakdown");
  ASSERT_EQ(tb.rows, 1u);
  EXPECT_EQ(Column<int64_t>(tb, "kernel_time")[0], Us(35));
  EXPECT_EQ(Column<int64_t>(tb, "idle")[0], Us(10));
  EXPECT_EQ(Column<int64_t>(tb, "compute")[0], Us(10));
  EXPECT_EQ(Column<int64_t>(tb, "non_compute")[0], Us(15));
  const DerivedTable& kt = r.tables.at("kernel_type_breakdown");
  ASSERT_EQ(kt.rows, 2u);  // rank 0 and all ranks: COMPUTATION only
  EXPECT_EQ(Column<std::string>(kt, "kernel_type")[1], "COMPUTATION");
  EXPECT_DOUBLE_EQ(Column<double>(kt, "share")[1], 100.0);
  // Without steps the per-step tables are empty, not missing.
  EXPECT_EQ(r.tables.at("step_breakdown").rows, 0u);
  EXPECT_EQ(r.tables.at("step_breakdown_summary").rows, 0u);
}

TEST(StepBreakdown, HtaMicrosecondRoundingOnRequest) {
  // Fractional µs: HTA rounds each start up and each end down.
  TraceSet set = LoadJson(
      "fractional.json",
      Kineto({Ev("kernel", "a", 0, 7, 1.5, 2.2, R"("device":0,"stream":7,"correlation":1)"),
              Ev("kernel", "b", 0, 7, 10.2, 2.7, R"("device":0,"stream":7,"correlation":2)")}));
  PluginResults exact = RunSteps(set, {}, true);
  const DerivedTable& e = exact.tables.at("temporal_breakdown");
  EXPECT_EQ(Column<int64_t>(e, "kernel_time")[0], 11400);
  EXPECT_EQ(Column<int64_t>(e, "idle")[0], 6500);
  PluginResults rounded = RunSteps(set, {}, true, {{"hta_us_rounding", true}});
  const DerivedTable& h = rounded.tables.at("temporal_breakdown");
  EXPECT_EQ(Column<int64_t>(h, "kernel_time")[0], 10000);  // [2,3) and [11,12)
  EXPECT_EQ(Column<int64_t>(h, "idle")[0], 8000);
  EXPECT_DOUBLE_EQ(Column<double>(h, "idle_pct")[0], 80.0);
}

TEST(StepBreakdown, InferredStepsMakeInferredNumbers) {
  std::vector<std::string> events;
  double ts = 0;
  for (int s = 0; s < 4; ++s) {
    ts += 20;
    for (const char* k : {"embed", "gemm", "softmax"}) {
      events.push_back(Ev("kernel", k, 0, 7, ts, 10, R"("device":0,"stream":7)"));
      ts += 11;
    }
  }
  TraceSet set = LoadJson("inferred.json", Kineto(events));
  PluginResults r = RunSteps(set, {}, true);
  const DerivedTable& t = r.tables.at("step_breakdown");
  ASSERT_GE(t.rows, 3u);
  EXPECT_EQ(Column<std::string>(t, "kind"), std::vector<std::string>(t.rows, "inferred"));
  for (const Metric& m : r.metrics)
    if (m.plugin == "step-breakdown" && m.name.starts_with("steady_")) {
      EXPECT_EQ(m.kind, NumberKind::kInferred) << m.name;
    }
}

TEST(StepBreakdown, NeedsTheStepsTable) {
  TraceSet set = LoadJson("three_steps.json", ThreeSteps());
  PluginResults r;
  const LoadedPlugin& sb = testing::BuiltPlugin("th_step_breakdown.so");
  Status s = RunPlugin(sb, set, testing::OptionsOf(sb, {}), &r);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("add 'steps: {}'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace th
