// critical-path on traces written by the test, every number by hand: one
// rank with a launch into an empty queue, a stream synchronisation and a
// second launch (path, split, waits, the invariant, the sync edge); the same
// without its sync event (an info finding, the path still there); two ranks
// computing 1 ms and 3 ms before an all-reduce of 0.5 ms transfer (path
// 3.5 ms gated by rank 1, the same with +-5 ms of clock offset); the exact
// bytes of the published tables.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/report/plugin_results_json.h"
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

// One step (µs): aten::mm [10,110) launches K1 at 20 (runs [40,240) on
// stream 7, queue empty: launch delay 20); cudaStreamSynchronize [110,410)
// waits for K1; aten::add [420,470) launches K2 at 430 (runs [445,545)).
// Path: 10 host + 20 launch + 200 K1 + (sync) + 10 host + 15 launch + 100 K2.
std::string OneRank(bool with_sync) {
  std::vector<std::string> e = {
      X("user_annotation", "ProfilerStep#1", 1, 1, 0, 1000),
      X("cpu_op", "aten::mm", 1, 1, 10, 100),
      X("cuda_runtime", "cudaLaunchKernel", 1, 1, 20, 10, Corr(1)),
      X("kernel", "gemm_k1", 0, 7, 40, 200, OnStream(7, 1)),
      X("cuda_runtime", "cudaStreamSynchronize", 1, 1, 110, 300, Corr(2)),
      X("cpu_op", "aten::add", 1, 1, 420, 50),
      X("cuda_runtime", "cudaLaunchKernel", 1, 1, 430, 10, Corr(3)),
      X("kernel", "add_k2", 0, 7, 445, 100, OnStream(7, 3)),
  };
  if (with_sync) e.push_back(X("cuda_sync", "Stream Sync", 0, 7, 110, 300, OnStream(7, 2)));
  std::string out = R"({"traceEvents": [)";
  for (size_t i = 0; i < e.size(); ++i) out += (i ? ",\n" : "") + e[i];
  return out + "]}";
}

PluginResults RunOne(const std::string& name, const std::string& json) {
  auto set = LoadTraceSet({testing::WriteTempFile(name, json)}, LoadOptions{});
  EXPECT_TRUE(set.ok()) << set.status().message();
  return testing::RunCriticalPath(*set, {}, false);
}

std::map<std::string, int64_t> Categories(const PluginResults& r, int64_t rank) {
  std::map<std::string, int64_t> out;
  const DerivedTable& c = r.tables.at("critical_path_categories");
  for (size_t i = 0; i < c.rows; ++i)
    if (Col<int64_t>(c, "rank")[i] == rank)
      out[Col<std::string>(c, "category")[i]] = Col<int64_t>(c, "time")[i];
  return out;
}

TEST(CriticalPath, OneRankLaunchSyncAndRelaunch) {
  const PluginResults r = RunOne("cp_one.json", OneRank(true));
  const DerivedTable& p = r.tables.at("critical_path");
  ASSERT_EQ(p.rows, 1u);
  EXPECT_EQ(Col<int64_t>(p, "step")[0], 1);
  EXPECT_EQ(Col<int64_t>(p, "rank")[0], 0);
  EXPECT_EQ(Col<int64_t>(p, "path")[0], 355'000);
  EXPECT_EQ(Col<int64_t>(p, "elapsed")[0], 535'000);  // 10 .. 545 µs
  EXPECT_EQ(Col<int64_t>(p, "waits")[0], 180'000);    // 170 sync wait + 10 host idle
  EXPECT_EQ(Col<int64_t>(p, "sync_edges")[0], 1);
  const std::map<std::string, int64_t> want = {
      {"communication", 0}, {"compute", 300'000},        {"host", 20'000}, {"idle", 180'000},
      {"kernel_gap", 0},    {"launch_overhead", 35'000}, {"late_start", 0}};
  EXPECT_EQ(Categories(r, 0), want);
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_TRUE(r.checks[0].passed) << r.checks[0].detail;
  EXPECT_TRUE(r.findings.empty());
  // The events on the path and the time each contributes.
  std::map<std::string, int64_t> events;
  const DerivedTable& ev = r.tables.at("critical_path_events");
  for (size_t i = 0; i < ev.rows; ++i)
    events[Col<std::string>(ev, "name")[i]] += Col<int64_t>(ev, "time")[i];
  const std::map<std::string, int64_t> want_events = {
      {"add_k2", 115'000},     {"aten::add", 10'000},        {"aten::mm", 10'000},
      {"cudaLaunchKernel", 0}, {"cudaStreamSynchronize", 0}, {"gemm_k1", 220'000}};
  EXPECT_EQ(events, want_events);
}

// Correlation ids far apart (a GPU event finds its call by binary search,
// not through the array dense ids use): the same path, event by event.
TEST(CriticalPath, SparseCorrelationIdsGiveTheSamePath) {
  std::string sparse = OneRank(true);
  for (const char* id : {"1", "2", "3"}) {
    const std::string from = std::string(R"("correlation": )") + id,
                      to = from + "000000000007";  // 1 -> 1,000,000,000,007, ...
    for (size_t at = sparse.find(from); at != std::string::npos; at = sparse.find(from, at + 1))
      if (!std::isdigit(static_cast<unsigned char>(sparse[at + from.size()])))
        sparse.replace(at, from.size(), to);
  }
  ASSERT_NE(sparse.find("3000000000007"), std::string::npos);
  const PluginResults dense = RunOne("cp_dense.json", OneRank(true)),
                      far = RunOne("cp_sparse.json", sparse);
  EXPECT_EQ(Col<int64_t>(far.tables.at("critical_path"), "path")[0], 355'000);
  for (const char* table : {"critical_path", "critical_path_events", "critical_path_spans"}) {
    for (const char* column : {"event", "time", "path", "waits", "sync_edges"}) {
      if (const DerivedColumn* c = dense.tables.at(table).Find(column)) {
        EXPECT_EQ(c->values, far.tables.at(table).Find(column)->values) << table << " " << column;
      }
    }
  }
}

// A GPU activity whose duration is negative (a corrupt trace; the trust
// table counts it) has no span: it is left out of its window, as a host event
// lasting 0 is, and the path is that of the trace without it (it crashed the
// plugin before: its end came before its start).
TEST(CriticalPath, AGpuActivityWithANegativeDurationIsLeftOut) {
  for (const auto& [ts, dur] : {std::pair<int, int>{40, -50}, {445, -100}}) {  // K1, then K2
    const std::string name = ts == 40 ? "gemm_k1" : "add_k2";
    const std::string kernel =
        X("kernel", name, 0, 7, ts, ts == 40 ? 200 : 100, OnStream(7, ts == 40 ? 1 : 3));
    std::string negative = OneRank(true), without = OneRank(true);
    ASSERT_NE(negative.find(kernel), std::string::npos);
    negative.replace(negative.find(kernel), kernel.size(),
                     X("kernel", name, 0, 7, ts, dur, OnStream(7, ts == 40 ? 1 : 3)));
    without.erase(without.find(",\n" + kernel), 2 + kernel.size());
    const PluginResults a = RunOne("cp_negative.json", negative),
                        b = RunOne("cp_without.json", without);
    SCOPED_TRACE(name);
    ASSERT_EQ(a.checks.size(), 1u);
    EXPECT_TRUE(a.checks[0].passed) << a.checks[0].detail;
    for (const char* column : {"path", "late_start", "waits", "elapsed", "events"})
      EXPECT_EQ(a.tables.at("critical_path").Find(column)->values,
                b.tables.at("critical_path").Find(column)->values)
          << column;
    EXPECT_EQ(Categories(a, 0), Categories(b, 0));
    for (const std::string& on_path : Col<std::string>(a.tables.at("critical_path_events"), "name"))
      EXPECT_NE(on_path, name);
  }
}

TEST(CriticalPath, WithoutSyncEventsSaysSoAndInfersTheSync) {
  // infer_sync (default): cudaStreamSynchronize waits for K1, which ended
  // last within it: the same path as with the sync event.
  const PluginResults r = RunOne("cp_nosync.json", OneRank(false));
  const DerivedTable& p = r.tables.at("critical_path");
  ASSERT_EQ(p.rows, 1u);
  EXPECT_EQ(Col<int64_t>(p, "path")[0], 355'000);
  EXPECT_EQ(Col<int64_t>(p, "sync_edges")[0], 1);
  EXPECT_EQ(Col<int64_t>(p, "inferred_sync_edges")[0], 1);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].title, "critical path without synchronisation edges on rank 0");
  EXPECT_EQ(r.findings[0].severity, FindingSeverity::kInfo);
  EXPECT_NE(r.findings[0].what.find("inferred from timing"), std::string::npos);
  // Without inference nothing joins K1 to the host: the path ends with K1
  // (10 host + 20 launch + 200 compute).
  auto set = LoadTraceSet({testing::WriteTempFile("cp_nosync2.json", OneRank(false))}, {});
  ASSERT_TRUE(set.ok());
  const PluginResults plain = testing::RunCriticalPath(*set, {{"infer_sync", false}}, false);
  const DerivedTable& q = plain.tables.at("critical_path");
  EXPECT_EQ(Col<int64_t>(q, "path")[0], 230'000);
  EXPECT_EQ(Col<int64_t>(q, "sync_edges")[0], 0);
  ASSERT_EQ(plain.findings.size(), 1u);
  EXPECT_NE(plain.findings[0].what.find("counts as a wait"), std::string::npos);
}

// The plugin's notes, a warning prefixed "warning: ".
std::vector<std::string> PluginNotes(const PluginResults& r) {
  std::vector<std::string> notes;
  for (const Note& n : r.notes)
    if (n.plugin == "critical-path") notes.push_back((n.warning ? "warning: " : "") + n.text);
  return notes;
}

// A trace without the annotation has no window: a warning says so and how to
// take the whole trace, which then gives the same path; never an empty
// result without a word.
TEST(CriticalPath, WithoutTheAnnotationAWarningSaysSo) {
  std::string json = OneRank(true);
  const std::string marker = X("user_annotation", "ProfilerStep#1", 1, 1, 0, 1000) + ",\n";
  ASSERT_NE(json.find(marker), std::string::npos);
  json.erase(json.find(marker), marker.size());
  const PluginResults r = RunOne("cp_nostep.json", json);
  EXPECT_EQ(r.tables.at("critical_path").rows, 0u);
  EXPECT_EQ(PluginNotes(r),
            std::vector<std::string>{
                "warning: rank 0: no host event whose name holds 'ProfilerStep', so no "
                "window and no critical path (annotation: \"\" takes the whole trace)"});
  auto set = LoadTraceSet({testing::WriteTempFile("cp_nostep2.json", json)}, {});
  ASSERT_TRUE(set.ok());
  const PluginResults whole =
      testing::RunCriticalPath(*set, {{"annotation", std::string()}}, false);
  const DerivedTable& p = whole.tables.at("critical_path");
  ASSERT_EQ(p.rows, 1u);
  EXPECT_EQ(Col<int64_t>(p, "step")[0], 0);
  EXPECT_EQ(Col<int64_t>(p, "path")[0], 355'000);
  EXPECT_TRUE(whole.notes.empty());
}

// Rank r starts at start_us[r] (real time) and computes compute_us[r] on
// stream 7 (launched at its start into an empty queue), then an all-reduce
// on the same stream that ends at end_us on every rank (real time): transfer
// = the shortest duration. Each rank's clock is shifted by offset_us[r].
struct TwoRankJob {
  std::vector<int64_t> offset_us = {0, 0}, start_us = {0, 0}, compute_us = {1000, 3000};
  int64_t end_us = 3500;
  std::vector<bool> step_marker = {true, true};  // ProfilerStep#1 on the rank
};

std::vector<std::string> TwoRanks(const TwoRankJob& job, const std::string& tag) {
  std::vector<std::string> files;
  for (int r = 0; r < 2; ++r) {
    const int64_t k = job.offset_us[r] + job.start_us[r], c = job.compute_us[r];
    const int64_t nccl = job.end_us - job.start_us[r] - c;
    std::vector<std::string> e = {
        X("user_annotation", "ProfilerStep#1", 1, 1, k, job.end_us + 1000),
        X("cpu_op", "aten::mm", 1, 1, k, 10),
        X("cuda_runtime", "cudaLaunchKernel", 1, 1, k, 2, Corr(1)),
        X("cuda_runtime", "cudaLaunchKernel", 1, 1, k + 4, 2, Corr(2)),
        X("kernel", "gemm", 0, 7, k, c, OnStream(7, 1)),
        X("kernel",
          "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", 0, 7,
          k + c, nccl, OnStream(7, 2)),
    };
    if (!job.step_marker[r]) e.erase(e.begin());
    std::string out = R"({"distributedInfo": {"rank": )" + std::to_string(r) +
                      R"(, "world_size": 2}, "traceEvents": [)";
    for (size_t i = 0; i < e.size(); ++i) out += (i ? ",\n" : "") + e[i];
    files.push_back(
        testing::WriteTempFile(tag + "_rank" + std::to_string(r) + ".json", out + "]}"));
  }
  return files;
}

PluginResults RunTwo(const TwoRankJob& job, const std::string& tag) {
  auto set = LoadTraceSet(TwoRanks(job, tag), LoadOptions{});
  EXPECT_TRUE(set.ok()) << set.status().message();
  return testing::RunCriticalPath(*set, {});
}

size_t AcrossRow(const DerivedTable& p) {
  for (size_t i = 0; i < p.rows; ++i)
    if (Col<int64_t>(p, "rank")[i] == -1) return i;
  ADD_FAILURE() << "no path across ranks";
  return 0;
}

TEST(CriticalPath, TwoRanksAllReduceGatedByTheSlowRank) {
  const PluginResults r = RunTwo({}, "cp_two");
  const DerivedTable& p = r.tables.at("critical_path");
  const size_t row = AcrossRow(p);
  EXPECT_EQ(Col<int64_t>(p, "path")[row], 3'500'000);
  const DerivedTable& k = r.tables.at("critical_path_collectives");
  ASSERT_EQ(k.rows, 1u);
  EXPECT_EQ(Col<int64_t>(k, "gating_rank")[0], 1);
  EXPECT_EQ(Col<int64_t>(k, "lead")[0], 2'000'000);
  EXPECT_EQ(Col<int64_t>(k, "transfer")[0], 500'000);
  EXPECT_EQ(Col<int64_t>(k, "on_path")[0], 1);
  const std::map<std::string, int64_t> want = {
      {"communication", 500'000}, {"compute", 3'000'000}, {"host", 0},      {"idle", 0},
      {"kernel_gap", 0},          {"launch_overhead", 0}, {"late_start", 0}};
  EXPECT_EQ(Categories(r, -1), want);
  const DerivedTable& share = r.tables.at("critical_path_ranks");
  std::map<int64_t, int64_t> by_rank;
  for (size_t i = 0; i < share.rows; ++i)
    by_rank[Col<int64_t>(share, "rank")[i]] = Col<int64_t>(share, "time")[i];
  EXPECT_EQ(by_rank, (std::map<int64_t, int64_t>{{1, 3'500'000}}));
}

// A rank without the annotation among ranks with it: a warning names it; the
// other rank keeps its path.
TEST(CriticalPath, ARankWithoutTheAnnotationIsNamed) {
  TwoRankJob job;
  job.step_marker = {true, false};
  const PluginResults r = RunTwo(job, "cp_onestep");
  const DerivedTable& p = r.tables.at("critical_path");
  ASSERT_EQ(p.rows, 1u);
  EXPECT_EQ(Col<int64_t>(p, "rank")[0], 0);
  EXPECT_EQ(Col<int64_t>(p, "step")[0], 1);
  EXPECT_EQ(PluginNotes(r),
            std::vector<std::string>{
                "warning: rank 1: no host event whose name holds 'ProfilerStep', so no "
                "window and no critical path (annotation: \"\" takes the whole trace)"});
}

// Every table but the events' own timestamps is the same whatever the clocks.
TEST(CriticalPath, ClockOffsetsDoNotChangeTheAnswer) {
  const PluginResults base = RunTwo({}, "cp_base");
  for (const std::vector<int64_t>& offsets :
       {std::vector<int64_t>{5000, -5000}, std::vector<int64_t>{-5000, 5000}}) {
    TwoRankJob job;
    job.offset_us = offsets;
    const PluginResults r = RunTwo(job, "cp_off" + std::to_string(offsets[0]));
    for (const char* name : {"critical_path", "critical_path_categories", "critical_path_ranks",
                             "critical_path_collectives"}) {
      const DerivedTable& a = base.tables.at(name);
      const DerivedTable& b = r.tables.at(name);
      ASSERT_EQ(a.rows, b.rows) << name;
      for (size_t c = 0; c < a.columns.size(); ++c)
        EXPECT_EQ(a.columns[c].values, b.columns[c].values) << name << "." << a.columns[c].name;
    }
    const DerivedTable& k = r.tables.at("critical_path_collectives");
    EXPECT_EQ(Col<int64_t>(k, "gating_rank")[0], 1);
    const DerivedTable& p = r.tables.at("critical_path");
    EXPECT_EQ(Col<int64_t>(p, "path")[AcrossRow(p)], 3'500'000);
  }
}

// Rank 1 enters the step 2.5 ms after rank 0 (real time), computes 1 ms
// against rank 0's 3 ms and arrives last: it gates the all-reduce through its
// late start (inferred from the clocks aligned on the collective's end), with
// or without +-5 ms of clock offsets.
TEST(CriticalPath, LateStartGatesTheCollective) {
  for (const std::vector<int64_t>& offsets :
       {std::vector<int64_t>{0, 0}, std::vector<int64_t>{5000, -5000}}) {
    TwoRankJob job;
    job.offset_us = offsets;
    job.start_us = {0, 2500};
    job.compute_us = {3000, 1000};
    job.end_us = 4000;
    const PluginResults r = RunTwo(job, "cp_late" + std::to_string(offsets[0]));
    const DerivedTable& k = r.tables.at("critical_path_collectives");
    ASSERT_EQ(k.rows, 1u);
    EXPECT_EQ(Col<int64_t>(k, "gating_rank")[0], 1);
    EXPECT_EQ(Col<int64_t>(k, "lead")[0], 500'000);  // 2.5 + 1 ms against 3 ms
    const DerivedTable& p = r.tables.at("critical_path");
    const size_t row = AcrossRow(p);
    EXPECT_EQ(Col<int64_t>(p, "path")[row], 1'500'000);  // measured: 1 ms + 0.5 ms transfer
    EXPECT_EQ(Col<int64_t>(p, "late_start")[row], 2'500'000);
    EXPECT_EQ(Categories(r, -1).at("late_start"), 2'500'000);
  }
}

// The bytes of everything the plugin reports on the one-rank trace, in the
// canonical JSON (`tracehound test-plugin`'s): tables, check, no finding.
// CRITICAL_PATH_UPDATE_GOLDEN=1 rewrites the golden file.
TEST(CriticalPath, PublishedTablesAsJsonBytes) {
  const PluginResults r = RunOne("cp_bytes.json", OneRank(true));
  std::ostringstream out;
  WritePluginResultsJson(r, out);
  const std::string golden =
      std::string(TRACEHOUND_SOURCE_DIR) + "/tests/data/critical_path/one_rank.golden.json";
  if (std::getenv("CRITICAL_PATH_UPDATE_GOLDEN")) {
    std::ofstream(golden, std::ios::binary) << out.str();
    GTEST_SKIP() << "wrote " << golden;
  }
  EXPECT_EQ(out.str(), testing::ReadFile(golden));
}

}  // namespace
}  // namespace th
