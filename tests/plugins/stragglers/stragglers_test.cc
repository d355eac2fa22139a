// stragglers on multi-rank traces written by the test, where the straggler,
// the waits and the clock offsets are known; on traces from the synthetic
// generator (core/synth) with and without a slow rank; and end to end on the
// real multi-rank sets (the 8-rank DLRM capture, HTA's sampled rank pair),
// beside HTA's get_potential_stragglers.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <map>
#include <set>
#include <string>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "core/synth/kineto_generator.h"
#include "tests/support/derived_values.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

const LoadedPlugin& Plugin() {
  static const std::shared_ptr<const LoadedPlugin> plugin = [] {
    auto p = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/th_stragglers.so");
    EXPECT_TRUE(p.ok()) << p.status().message();
    return *p;
  }();
  return *plugin;
}

using th::testing::Col;

size_t RankRow(const DerivedTable& t, int64_t rank) {
  for (size_t r = 0; r < t.rows; ++r)
    if (Col<int64_t>(t, "rank")[r] == rank) return r;
  ADD_FAILURE() << "no row for rank " << rank;
  return 0;
}

// A data-parallel job written rank by rank. Per step, `collectives` times:
// every rank computes (kernel "gemm", launched inside its host op "aten::mm"),
// then calls an all-reduce whose kernel starts when the rank arrives and ends
// on every rank `transfer` µs after the last arrival. The straggler computes
// `extra` µs longer inside "aten::slow_op" running "slow_kernel". Each rank's
// clock is shifted by `skew[r]` µs; small deterministic jitter elsewhere.
struct Job {
  int ranks = 4, steps = 4, collectives = 3;
  int straggler = -1;
  int extra = 400;
  int transfer = 50;
  std::vector<int> skew;
};

std::vector<std::string> WriteJob(const Job& job, const std::string& tag) {
  std::vector<std::string> events(job.ranks);
  auto add = [&](int r, const std::string& e) {
    events[r] += (events[r].empty() ? "" : ",\n") + e;
  };
  auto x = [](const char* cat, const std::string& name, int pid, int tid, int64_t ts, int64_t dur,
              const std::string& args) {
    return R"({"ph": "X", "cat": ")" + std::string(cat) + R"(", "name": ")" + name +
           R"(", "pid": )" + std::to_string(pid) + R"(, "tid": )" + std::to_string(tid) +
           R"(, "ts": )" + std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) +
           R"(, "args": {)" + args + "}}";
  };
  int64_t t = 1000;
  int corr = 1;
  for (int s = 0; s < job.steps; ++s) {
    const int64_t step_start = t;
    for (int c = 0; c < job.collectives; ++c) {
      std::vector<int64_t> arrive(job.ranks);
      for (int r = 0; r < job.ranks; ++r) {
        const int64_t comp = 300 + (r * 7 + c * 3 + s) % 5 + (r == job.straggler ? job.extra : 0);
        arrive[r] = t + comp;
      }
      const int64_t last = *std::max_element(arrive.begin(), arrive.end());
      const int64_t end = last + job.transfer;
      for (int r = 0; r < job.ranks; ++r) {
        const int64_t k = job.skew.empty() ? 0 : job.skew[r];
        const int64_t comp = arrive[r] - t;
        const bool slow = r == job.straggler;
        const std::string op = slow ? "aten::slow_op" : "aten::mm";
        const std::string kernel = slow ? "slow_kernel" : "gemm";
        // The host op runs while the GPU computes and holds both launches.
        const int64_t host = t;
        add(r, x("cpu_op", op, 1, 1, host + k, comp - 1, ""));
        add(r, x("cuda_runtime", "cudaLaunchKernel", 1, 1, host + 1 + k, 2,
                 R"("correlation": )" + std::to_string(corr)));
        add(r, x("kernel", kernel, 0, 7, t + k, comp,
                 R"("device": 0, "stream": 7, "correlation": )" + std::to_string(corr)));
        add(r, x("cuda_runtime", "cudaLaunchKernel", 1, 1, host + 3 + k, 1,
                 R"("correlation": )" + std::to_string(corr + 1)));
        add(r, x("kernel",
                 "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
                 0, 20, arrive[r] + k, end - arrive[r],
                 R"("device": 0, "stream": 20, "correlation": )" + std::to_string(corr + 1)));
      }
      corr += 2;
      t = end;
    }
    t += 100;
    for (int r = 0; r < job.ranks; ++r) {
      const int64_t k = job.skew.empty() ? 0 : job.skew[r];
      add(r, x("user_annotation", "ProfilerStep#" + std::to_string(s + 1), 1, 1, step_start + k,
               t - step_start, ""));
    }
  }
  std::vector<std::string> files;
  for (int r = 0; r < job.ranks; ++r)
    files.push_back(testing::WriteTempFile(tag + "_rank" + std::to_string(r) + ".json",
                                           R"({"distributedInfo": {"rank": )" + std::to_string(r) +
                                               R"(, "world_size": )" + std::to_string(job.ranks) +
                                               R"(}, "traceEvents": [)" + events[r] + "]}"));
  return files;
}

PluginResults RunStragglers(const std::vector<std::string>& files,
                            const std::map<std::string, OptionValue>& options = {}) {
  PluginResults r;
  auto set = LoadTraceSet(files, LoadOptions{});
  EXPECT_TRUE(set.ok()) << set.status().message();
  if (set.ok()) {
    EXPECT_TRUE(RunPlugin(Plugin(), *set, options, &r).ok());
  }
  return r;
}

std::set<int64_t> HtaCandidates(const PluginResults& r) {
  std::set<int64_t> out;
  const DerivedTable& h = r.tables.at("stragglers_hta");
  for (size_t i = 0; i < h.rows; ++i)
    if (Col<int64_t>(h, "candidate")[i]) out.insert(Col<int64_t>(h, "rank")[i]);
  return out;
}

TEST(Stragglers, FindsTheSlowRankAndWhatItDid) {
  Job job;
  job.straggler = 2;
  PluginResults r = RunStragglers(WriteJob(job, "slow"));
  const DerivedTable& t = r.tables.at("stragglers");
  ASSERT_EQ(t.rows, 4u);
  const size_t s = RankRow(t, 2);
  EXPECT_EQ(Col<int64_t>(t, "straggler")[s], 1);
  EXPECT_EQ(Col<int64_t>(t, "arrived_last")[s], 12);  // every collective
  EXPECT_GE(Col<double>(t, "z")[s], 3.5);
  EXPECT_EQ(Col<int64_t>(t, "steps_flagged")[s], 4);
  // It arrives 400 µs after the median rank (± the jitter).
  EXPECT_NEAR(Col<double>(t, "lateness")[s], 400e3, 5e3);
  for (int64_t other : {0, 1, 3}) EXPECT_EQ(Col<int64_t>(t, "straggler")[RankRow(t, other)], 0);
  // One finding, about rank 2, with a confidence: (1 - p) x 4/5 steps x clock.
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.severity, FindingSeverity::kP1);
  EXPECT_EQ(f.scope.rank, 2);
  EXPECT_NEAR(f.confidence, 0.8, 0.01);
  EXPECT_NE(f.what.find("aten::slow_op"), std::string::npos) << f.what;
  // Compute vs wait per step: the straggler computes most and never waits;
  // the others wait about its extra 400 µs at each of 3 collectives.
  const DerivedTable& st = r.tables.at("straggler_steps");
  for (size_t i = 0; i < st.rows; ++i) {
    const int64_t rank = Col<int64_t>(st, "rank")[i];
    if (rank == 2) {
      EXPECT_EQ(Col<int64_t>(st, "wait")[i], 0);
      EXPECT_GE(Col<int64_t>(st, "compute")[i], 3 * 700000);
    } else {
      EXPECT_NEAR(Col<int64_t>(st, "wait")[i], 3 * 400000, 3 * 10000);
    }
  }
  // While the others waited it ran slow_kernel, under aten::slow_op.
  const DerivedTable& a = r.tables.at("straggler_activity");
  bool kernel = false, op = false;
  for (size_t i = 0; i < a.rows; ++i) {
    EXPECT_EQ(Col<int64_t>(a, "rank")[i], 2);
    kernel |= Col<std::string>(a, "source")[i] == "kernel" &&
              Col<std::string>(a, "name")[i] == "slow_kernel" && Col<double>(a, "share")[i] > 95;
    op |= Col<std::string>(a, "source")[i] == "host" &&
          Col<std::string>(a, "name")[i] == "aten::slow_op";
  }
  EXPECT_TRUE(kernel);
  EXPECT_TRUE(op);
  // HTA's late-start heuristic agrees here (k = 2 names rank 2 and one more).
  EXPECT_TRUE(HtaCandidates(r).count(2));
}

TEST(Stragglers, ClockOffsetsAreEstimatedAndRemovedBeforeComparingRanks) {
  Job job;
  job.straggler = 2;
  job.skew = {0, 5000, 0, -3000};  // rank 1's clock 5 ms ahead, rank 3's 3 ms behind
  PluginResults r = RunStragglers(WriteJob(job, "skew"));
  const DerivedTable& t = r.tables.at("stragglers");
  EXPECT_NEAR(Col<double>(t, "clock_offset")[RankRow(t, 1)], 5000e3, 1);
  EXPECT_NEAR(Col<double>(t, "clock_offset")[RankRow(t, 3)], -3000e3, 1);
  EXPECT_NEAR(Col<double>(t, "clock_offset")[RankRow(t, 0)], 0, 1);
  EXPECT_EQ(Col<int64_t>(t, "straggler")[RankRow(t, 2)], 1);
  EXPECT_EQ(Col<int64_t>(t, "straggler")[RankRow(t, 1)], 0);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].scope.rank, 2);
  // Pinned difference: HTA compares raw start times, so the rank whose clock
  // runs 5 ms ahead looks like the latest starter everywhere.
  std::set<int64_t> hta = HtaCandidates(r);
  EXPECT_TRUE(hta.count(1));
}

TEST(Stragglers, BalancedRanksGiveNoFinding) {
  Job job;  // no straggler: only ±2 µs jitter
  PluginResults r = RunStragglers(WriteJob(job, "even"));
  const DerivedTable& t = r.tables.at("stragglers");
  ASSERT_EQ(t.rows, 4u);
  for (size_t i = 0; i < t.rows; ++i) EXPECT_EQ(Col<int64_t>(t, "straggler")[i], 0);
  EXPECT_TRUE(r.findings.empty());
}

TEST(Stragglers, TwoRanksGetNoRobustZOnlyStepCounts) {
  Job job;
  job.ranks = 2;
  job.steps = 6;
  job.straggler = 1;
  auto files = WriteJob(job, "pair");
  PluginResults r = RunStragglers(files);
  const DerivedTable& t = r.tables.at("stragglers");
  EXPECT_TRUE(std::isnan(Col<double>(t, "z")[RankRow(t, 1)]));
  EXPECT_EQ(Col<int64_t>(t, "arrived_last")[RankRow(t, 1)], 18);
  EXPECT_EQ(Col<int64_t>(t, "steps_latest")[RankRow(t, 1)], 6);
  // min_ranks = 3 by default: two ranks are only a candidate.
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(Col<int64_t>(t, "straggler")[RankRow(t, 1)], 0);
  // Opted in: latest in 6 of 6 steps (p = 1/64) is a finding, confidence capped at 0.5.
  PluginResults two = RunStragglers(files, {{"min_ranks", int64_t{2}}});
  ASSERT_EQ(two.findings.size(), 1u);
  EXPECT_EQ(two.findings[0].scope.rank, 1);
  EXPECT_LE(two.findings[0].confidence, 0.5);
  // 4 of 4 steps (p = 1/16) is not enough.
  job.steps = 4;
  EXPECT_TRUE(RunStragglers(WriteJob(job, "pair4"), {{"min_ranks", int64_t{2}}}).findings.empty());
}

TEST(Stragglers, SyntheticGeneratorSlowRank) {
  synth::Scenario s;
  s.ranks = 4;
  s.steps = 4;
  s.kernels_per_step = 40;
  s.memory_events = false;
  s.straggler_rank = 3;
  auto files = synth::WriteKinetoTraces(s, testing::TempDir() + "/synth_slow", false, nullptr);
  ASSERT_TRUE(files.ok()) << files.status().message();
  PluginResults r = RunStragglers(*files);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].scope.rank, 3);
  const DerivedTable& t = r.tables.at("stragglers");
  EXPECT_EQ(Col<int64_t>(t, "straggler")[RankRow(t, 3)], 1);

  s.straggler_rank = -1;
  auto even = synth::WriteKinetoTraces(s, testing::TempDir() + "/synth_even", false, nullptr);
  ASSERT_TRUE(even.ok());
  EXPECT_TRUE(RunStragglers(*even).findings.empty());
}

// --- The real multi-rank sets --------------------------------------------

TEST(StragglersRealData, DlrmEightRanksBesideHta) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: DLRM stragglers test skipped";
  PluginResults r = RunStragglers({data + "/param/et_replay/tests/data/dlrm_kineto.tar.gz"});
  const DerivedTable& t = r.tables.at("stragglers");
  ASSERT_EQ(t.rows, 8u);
  for (size_t i = 0; i < t.rows; ++i)
    std::printf(
        "[stragglers] dlrm rank %lld: offset %6.2f µs, last %lld/8, lateness %8.1f µs, "
        "z %5.2f\n",
        static_cast<long long>(Col<int64_t>(t, "rank")[i]), Col<double>(t, "clock_offset")[i] / 1e3,
        static_cast<long long>(Col<int64_t>(t, "arrived_last")[i]),
        Col<double>(t, "lateness")[i] / 1e3, Col<double>(t, "z")[i]);
  // All 8 ranks on one host: the offsets are within a few µs.
  for (size_t i = 0; i < t.rows; ++i) EXPECT_LT(std::abs(Col<double>(t, "clock_offset")[i]), 5e3);
  // tracehound: rank 7, last at 5 of 8 collectives, robust z > 3.5 over one step.
  const size_t s7 = RankRow(t, 7);
  EXPECT_EQ(Col<int64_t>(t, "straggler")[s7], 1);
  EXPECT_EQ(Col<int64_t>(t, "arrived_last")[s7], 5);
  EXPECT_GE(Col<double>(t, "z")[s7], 3.5);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].scope.rank, 7);
  EXPECT_NEAR(r.findings[0].confidence, 0.5, 0.01);  // one step: consistency 1/2
  std::printf("[stragglers] dlrm finding: %s\n  %s\n", r.findings[0].title.c_str(),
              r.findings[0].what.c_str());

  // HTA's answer, read from its result file: [2, 7]; our HTA emulation gives
  // the same two ranks. Pinned difference: HTA always names k = 2 ranks (the
  // two latest starters of one selected kernel); rank 2's lateness is not an
  // outlier across the 8 collectives, so tracehound names rank 7 only.
  simdjson::dom::parser parser;
  simdjson::dom::element hta =
      parser.load(data + "/expected/param/et_replay/tests/data/dlrm_kineto.tar.gz.hta.json")
          .value();
  std::set<int64_t> want;
  for (simdjson::dom::element v :
       hta.at_pointer("/calls/get_potential_stragglers/result").get_array())
    want.insert(v.get_int64().value());
  EXPECT_EQ(want, (std::set<int64_t>{2, 7}));
  EXPECT_EQ(HtaCandidates(r), want);
  EXPECT_EQ(Col<int64_t>(t, "straggler")[RankRow(t, 2)], 0);
}

TEST(StragglersRealData, HtaSampledRankPair) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: rank-pair stragglers test skipped";
  const std::string dir = data + "/hta/tests/data/trace_filter/";
  PluginResults r = RunStragglers({dir + "sampled_rank-0.json.gz", dir + "sampled_rank-1.json.gz"});
  const DerivedTable& t = r.tables.at("stragglers");
  ASSERT_EQ(t.rows, 2u);
  // Two of 128 ranks: no robust z; rank 1 starts last at 7 of 10 collectives
  // (p = 0.17 by chance): a candidate, not a finding. The all-to-all ends
  // disagree by ms (the other 126 ranks are not in the set), so the clock
  // estimate is loose and the confidence low.
  const size_t s1 = RankRow(t, 1);
  EXPECT_TRUE(std::isnan(Col<double>(t, "z")[s1]));
  EXPECT_EQ(Col<int64_t>(t, "arrived_last")[s1], 7);
  EXPECT_NEAR(Col<double>(t, "p_chance")[s1], 0.171875, 1e-6);
  EXPECT_TRUE(r.findings.empty());
  double residual = 0;
  for (const Metric& m : r.metrics)
    if (m.name == "clock_residual") residual = m.value;
  EXPECT_GT(residual, 1e6);  // > 1 ms
  std::set<int64_t> hta = HtaCandidates(r);
  std::printf("[stragglers] rank pair: HTA emulation names %zu rank(s):", hta.size());
  for (int64_t h : hta) std::printf(" %lld", static_cast<long long>(h));
  std::printf("\n");
}

}  // namespace
}  // namespace th
