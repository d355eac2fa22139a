// collectives on a 3-rank trace set written by the test (transfer, waits,
// bandwidths by hand; NCCL kernels with and without Kineto metadata, a gloo
// CPU collective), and end to end on the real multi-rank sets: the 8-rank DLRM
// capture and HTA's sampled rank pair.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "tests/support/derived_values.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

const LoadedPlugin& Plugin() {
  static const std::shared_ptr<const LoadedPlugin> plugin = [] {
    auto p = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/th_collectives.so");
    EXPECT_TRUE(p.ok()) << p.status().message();
    return *p;
  }();
  return *plugin;
}

using th::testing::Col;

// One rank's trace: two all-reduces carrying Kineto's metadata (1 M floats,
// process group "0" of 3 ranks), one gloo all-reduce on a worker thread, and
// the c10d:: call that enqueued it (a host call, not a collective).
std::string RankTrace(int rank) {
  // All-reduce #0 ends at 400 µs on every rank; rank r arrives at 100 (r + 1).
  const int start0 = 100 * (rank + 1);
  const int gloo_start = rank == 1 ? 600 : 500;  // gloo: rank 1 arrives 100 µs late
  const int gloo_dur = rank == 1 ? 200 : 300;
  std::string meta = R"("Collective name": "allreduce", "In msg nelems": 1000000,
      "Out msg nelems": 1000000, "Group size": 3, "dtype": "Float", "Process Group Name": "0")";
  std::string k = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)";
  return R"({"distributedInfo": {"rank": )" + std::to_string(rank) +
         R"(, "world_size": 3}, "traceEvents": [
  {"ph": "X", "cat": "kernel", "name": ")" +
         k + R"(", "pid": 0, "tid": 20, "ts": )" + std::to_string(start0) + R"(, "dur": )" +
         std::to_string(400 - start0) + R"(, "args": {"device": 0, "stream": 20, )" + meta + R"(}},
  {"ph": "X", "cat": "kernel", "name": ")" +
         k +
         R"(", "pid": 0, "tid": 20, "ts": 1000, "dur": 50, "args": {"device": 0, "stream": 20, )" +
         meta + R"(}},
  {"ph": "X", "cat": "cpu_op", "name": "c10d::allreduce_", "pid": 1, "tid": 1, "ts": 490, "dur": 5},
  {"ph": "X", "cat": "user_annotation", "name": "gloo:all_reduce", "pid": 1, "tid": 9, "ts": )" +
         std::to_string(gloo_start) + R"(, "dur": )" + std::to_string(gloo_dur) + R"(}
]})";
}

TEST(Collectives, TransferWaitAndBandwidthAcrossRanks) {
  std::vector<std::string> files;
  for (int r = 0; r < 3; ++r)
    files.push_back(
        testing::WriteTempFile("coll_rank" + std::to_string(r) + ".json", RankTrace(r)));
  auto set = LoadTraceSet(files, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  PluginResults r;
  ASSERT_TRUE(RunPlugin(Plugin(), *set, {}, &r).ok());
  const DerivedTable& c = r.tables.at("collectives");
  ASSERT_EQ(c.rows, 3u);  // two NCCL all-reduces, one gloo all-reduce; no c10d:: op
  for (size_t i = 0; i < c.rows; ++i) {
    EXPECT_EQ(Col<std::string>(c, "collective")[i], "allreduce");
    EXPECT_EQ(Col<int64_t>(c, "ranks")[i], 3);
  }
  // NCCL #0: transfer = the shortest duration (rank 2's 100 µs); waits
  // 200 + 100 + 0 µs; rank 2 arrived last; 4 MB in 100 µs = 40 GB/s,
  // bus bandwidth x 2 (3 - 1) / 3.
  EXPECT_EQ(Col<std::string>(c, "backend")[0], "nccl");
  EXPECT_EQ(Col<std::string>(c, "algorithm")[0], "RING_LL");
  EXPECT_EQ(Col<std::string>(c, "dtype")[0], "Float");
  EXPECT_EQ(Col<std::string>(c, "group")[0], "0");
  EXPECT_EQ(Col<int64_t>(c, "bytes")[0], 4000000);
  EXPECT_EQ(Col<int64_t>(c, "transfer")[0], 100000);
  EXPECT_EQ(Col<int64_t>(c, "wait_max")[0], 200000);
  EXPECT_EQ(Col<int64_t>(c, "wait_total")[0], 300000);
  EXPECT_EQ(Col<int64_t>(c, "start_skew")[0], 200000);
  EXPECT_EQ(Col<int64_t>(c, "last_rank")[0], 2);
  EXPECT_DOUBLE_EQ(Col<double>(c, "algbw")[0], 40.0);
  EXPECT_DOUBLE_EQ(Col<double>(c, "busbw")[0], 40.0 * 4 / 3);
  EXPECT_EQ(Col<std::string>(c, "bw_basis")[0], "transfer");
  // gloo (the CPU collective, matched by thread and order): transfer 200 µs,
  // ranks 0 and 2 wait 100 µs each for rank 1; no message size in the view.
  size_t g = Col<std::string>(c, "backend")[1] == "gloo" ? 1 : 2;
  EXPECT_EQ(Col<std::string>(c, "backend")[g], "gloo");
  EXPECT_EQ(Col<int64_t>(c, "transfer")[g], 200000);
  EXPECT_EQ(Col<int64_t>(c, "wait_total")[g], 200000);
  EXPECT_EQ(Col<int64_t>(c, "last_rank")[g], 1);
  EXPECT_EQ(Col<int64_t>(c, "bytes")[g], -1);
  EXPECT_TRUE(std::isnan(Col<double>(c, "busbw")[g]));
  // Per rank and collective: rank 0 waited 200 µs at NCCL #0 and 100 µs at gloo.
  const DerivedTable& rr = r.tables.at("collective_ranks");
  EXPECT_EQ(rr.rows, 9u);
  std::map<int64_t, int64_t> wait;
  for (size_t i = 0; i < rr.rows; ++i)
    wait[Col<int64_t>(rr, "rank")[i]] += Col<int64_t>(rr, "wait")[i];
  EXPECT_EQ(wait[0], 300000);
  EXPECT_EQ(wait[1], 100000);
  EXPECT_EQ(wait[2], 100000);
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_TRUE(r.checks[0].passed) << r.checks[0].detail;
  // No steps: each rank's time is its GPU span, [100, 1050) µs for rank 0,
  // [200, 1050) for rank 1, [300, 1050) for rank 2 (2550 µs in all); 500 µs
  // of waiting is 19.6 % > 10 %: one finding.
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_NE(r.findings[0].title.find("19.6%"), std::string::npos) << r.findings[0].title;
}

TEST(Collectives, OneRankHasNoTransferButAByteCountAndALowerBound) {
  auto set = LoadTraceSet({testing::WriteTempFile("coll_one.json", RankTrace(0))}, LoadOptions{});
  ASSERT_TRUE(set.ok());
  PluginResults r;
  ASSERT_TRUE(RunPlugin(Plugin(), *set, {}, &r).ok());
  const DerivedTable& c = r.tables.at("collectives");
  ASSERT_EQ(c.rows, 3u);
  EXPECT_EQ(Col<int64_t>(c, "transfer")[0], -1);  // not measured, not 0
  EXPECT_EQ(Col<int64_t>(c, "bytes")[0], 4000000);
  EXPECT_DOUBLE_EQ(Col<double>(c, "algbw")[0], 4e6 / 300e3);  // over its own 300 µs
  EXPECT_EQ(Col<std::string>(c, "bw_basis")[0], "own duration (lower bound)");
  EXPECT_TRUE(r.checks.empty());
  EXPECT_TRUE(r.findings.empty());
}

TEST(Collectives, MissingCollectiveOnARankFailsTheCheck) {
  std::string rank2 = RankTrace(2);
  // Rank 2 lost its second NCCL all-reduce.
  size_t at = rank2.find(R"("ts": 1000)");
  size_t begin = rank2.rfind(R"({"ph")", at);
  size_t end = rank2.find("}},", at) + 3;
  rank2.erase(begin, end - begin);
  auto set = LoadTraceSet({testing::WriteTempFile("miss_rank0.json", RankTrace(0)),
                           testing::WriteTempFile("miss_rank1.json", RankTrace(1)),
                           testing::WriteTempFile("miss_rank2.json", rank2)},
                          LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  PluginResults r;
  ASSERT_TRUE(RunPlugin(Plugin(), *set, {}, &r).ok());
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_FALSE(r.checks[0].passed);
  EXPECT_NE(r.checks[0].detail.find("1 not on every rank"), std::string::npos)
      << r.checks[0].detail;
}

// --- The real multi-rank sets --------------------------------------------

TEST(CollectivesRealData, DlrmEightRanks) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: DLRM collectives test skipped";
  auto set = LoadTraceSet({data + "/param/et_replay/tests/data/dlrm_kineto.tar.gz"}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set->traces.size(), 8u);
  PluginResults r;
  ASSERT_TRUE(RunPlugin(Plugin(), *set, {}, &r).ok());
  const DerivedTable& c = r.tables.at("collectives");
  // 5 all-to-all send/recv kernels and 3 all-reduces per rank, all matched
  // (no Kineto metadata: by stream, name and order).
  ASSERT_EQ(c.rows, 8u);
  int allreduce = 0, sendrecv = 0;
  for (size_t i = 0; i < c.rows; ++i) {
    EXPECT_EQ(Col<int64_t>(c, "ranks")[i], 8);
    EXPECT_GT(Col<int64_t>(c, "transfer")[i], 0);
    EXPECT_EQ(Col<int64_t>(c, "bytes")[i], -1);  // no "In msg nelems" in this capture
    const std::string coll = Col<std::string>(c, "collective")[i];
    allreduce += coll == "allreduce";
    sendrecv += coll == "sendrecv";
    EXPECT_EQ(Col<std::string>(c, "algorithm")[i], coll == "allreduce" ? "RING_LL" : "RING_SIMPLE");
    std::printf("[collectives] dlrm %-10s transfer %7.1f µs  wait max %7.1f µs  last rank %lld\n",
                coll.c_str(), static_cast<double>(Col<int64_t>(c, "transfer")[i]) / 1e3,
                static_cast<double>(Col<int64_t>(c, "wait_max")[i]) / 1e3,
                static_cast<long long>(Col<int64_t>(c, "last_rank")[i]));
  }
  EXPECT_EQ(allreduce, 3);
  EXPECT_EQ(sendrecv, 5);
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_TRUE(r.checks[0].passed) << r.checks[0].detail;
  // The first all-to-all: the kernels run 10 µs of transfer, the rest is wait.
  EXPECT_EQ(Col<int64_t>(c, "transfer")[0], 10000);
}

TEST(CollectivesRealData, HtaSampledRankPair) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: rank-pair collectives test skipped";
  const std::string dir = data + "/hta/tests/data/trace_filter/";
  auto set =
      LoadTraceSet({dir + "sampled_rank-0.json.gz", dir + "sampled_rank-1.json.gz"}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  PluginResults r;
  ASSERT_TRUE(RunPlugin(Plugin(), *set, {}, &r).ok());
  const DerivedTable& c = r.tables.at("collectives");
  // Two of 128 ranks: 8 send/recv kernels on stream 84 and 2 on stream 203,
  // all matched; the transfer is the shorter of two ranks (an upper bound).
  ASSERT_EQ(c.rows, 10u);
  for (size_t i = 0; i < c.rows; ++i) EXPECT_EQ(Col<int64_t>(c, "ranks")[i], 2);
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_TRUE(r.checks[0].passed) << r.checks[0].detail;
  double wait = 0, time = 0;
  for (const Metric& m : r.metrics) {
    if (m.name == "collective_wait") wait += m.value;
    if (m.name == "collective_time") time += m.value;
  }
  EXPECT_GT(wait, 0);
  EXPECT_LT(wait, time);
}

TEST(CollectivesRealData, KinetoMetadataGivesBytesAndBandwidth) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent: NCCL metadata test skipped";
  auto set =
      LoadTraceSet({data + "/hta/tests/data/nccl_parser_config/nccl_data.json.gz"}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  PluginResults r;
  ASSERT_TRUE(RunPlugin(Plugin(), *set, {}, &r).ok());
  const DerivedTable& c = r.tables.at("collectives");
  ASSERT_EQ(c.rows, 21u);  // 15 all-reduces, 6 broadcasts
  size_t with_bytes = 0;
  for (size_t i = 0; i < c.rows; ++i) {
    EXPECT_EQ(Col<std::string>(c, "group")[i], "0");
    EXPECT_EQ(Col<int64_t>(c, "group_size")[i], 2);
    if (Col<int64_t>(c, "bytes")[i] > 0) ++with_bytes;
  }
  EXPECT_EQ(with_bytes, 21u);
  // The first all-reduce in the file: 6,637,568 floats.
  bool found = false;
  for (size_t i = 0; i < c.rows; ++i)
    found |= Col<int64_t>(c, "bytes")[i] == 6637568 * 4 &&
             Col<std::string>(c, "collective")[i] == "allreduce";
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace th
