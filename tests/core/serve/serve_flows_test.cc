// The flow index and its window query against brute force over the graph's
// edges, on a generated trace (launches and fwd/bwd flows) and a real one:
// every edge with an end in the window is counted exactly once, bundles are
// the (kind, rows, pixels) cells of those edges, and the answer is bounded.
#include "core/serve/serve_flows.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>
#include <tuple>

#include "tests/support/test_files.h"

namespace th::serve {
namespace {

// 5,000 launch calls on two threads, each launching a kernel on one of
// three streams, and 300 fwd/bwd flows between CPU ops.
std::string WriteFlowTrace() {
  std::mt19937 rng(7);
  std::string json = R"({"traceEvents":[)";
  for (int i = 0; i < 5000; ++i) {
    const int64_t ts = 1000 + i * 50 + static_cast<int64_t>(rng() % 20);
    const std::string c = std::to_string(i + 1);
    json += R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":)" +
            std::to_string(1 + i % 2) + R"(,"ts":)" + std::to_string(ts) +
            R"(,"dur":5,"args":{"correlation":)" + c + "}},\n";
    json += R"({"ph":"X","cat":"kernel","name":"k)" + std::to_string(i % 5) +
            R"(","pid":0,"tid":)" + std::to_string(7 + i % 3) + R"(,"ts":)" +
            std::to_string(ts + 10 + static_cast<int64_t>(rng() % 5000)) +
            R"(,"dur":3,"args":{"correlation":)" + c + R"(,"device":0,"stream":)" +
            std::to_string(7 + i % 3) + "}},\n";
  }
  for (int i = 0; i < 300; ++i) {
    const int64_t a = 400000 + i * 40, b = 600000 + i * 37;
    json += R"({"ph":"X","cat":"cpu_op","name":"fwd","pid":1,"tid":3,"ts":)" + std::to_string(a) +
            R"(,"dur":20},)" + "\n";
    json += R"({"ph":"X","cat":"cpu_op","name":"bwd","pid":1,"tid":4,"ts":)" + std::to_string(b) +
            R"(,"dur":20},)" + "\n";
    json += R"({"ph":"s","cat":"fwdbwd","name":"fwdbwd","id":)" + std::to_string(i) +
            R"(,"pid":1,"tid":3,"ts":)" + std::to_string(a + 1) + "},\n";
    json += R"({"ph":"f","bp":"e","cat":"fwdbwd","name":"fwdbwd","id":)" + std::to_string(i) +
            R"(,"pid":1,"tid":4,"ts":)" + std::to_string(b + 1) + "},\n";
  }
  json.resize(json.size() - 2);
  json += "]}\n";
  return th::testing::WriteTempFile("serve_flows.json", json);
}

std::unique_ptr<ServeRun> Load(const std::string& path) {
  auto run = std::make_unique<ServeRun>(path, "flows");
  std::string note;
  Status s = LoadServeRun(run.get(), {}, &note);
  EXPECT_TRUE(s.ok()) << s.message();
  return run;
}

using Key = std::tuple<int, uint32_t, uint32_t, int64_t, int64_t>;

int64_t BrutePixel(int64_t t, const FlowQuery& q, int64_t bundle_px) {
  if (t < q.t0) return -1;
  if (t >= q.t1) return q.width / bundle_px;
  const long double x = static_cast<long double>(t - q.t0) * q.width / (q.t1 - q.t0);
  int64_t px = static_cast<int64_t>(x);
  // Correct the float division at exact pixel edges.
  while (static_cast<__int128>(px + 1) * (q.t1 - q.t0) <= static_cast<__int128>(t - q.t0) * q.width)
    ++px;
  while (static_cast<__int128>(px) * (q.t1 - q.t0) > static_cast<__int128>(t - q.t0) * q.width)
    --px;
  return px / bundle_px;
}

// Every edge of the graph, checked one by one: counts per bundle cell.
void ExpectMatchesBruteForce(const ServeRun& run, const FlowIndex& index, const FlowQuery& q) {
  const FlowAnswer got = QueryFlows(index, q);
  const EventGraph& g = run.graph();
  std::map<Key, uint64_t> want;
  uint64_t total = 0;
  for (size_t k = 0; k < g.edges.size(); ++k) {
    const EventId a = g.edges.src[k], b = g.edges.dst[k];
    const auto ra = run.RowOf(g.events.track[a], g.events.depth[a]);
    const auto rb = run.RowOf(g.events.track[b], g.events.depth[b]);
    ASSERT_TRUE(ra && rb);
    const int64_t fa = run.Relative(g.events.ts[a]), fb = run.Relative(g.events.ts[b]);
    const bool in = (fa >= q.t0 && fa < q.t1) || (fb >= q.t0 && fb < q.t1);
    if (!in || (!q.row_mask.empty() && !q.row_mask[*ra] && !q.row_mask[*rb])) continue;
    ++total;
    ++want[{static_cast<int>(g.edges.kind[k]), *ra, *rb, BrutePixel(fa, q, got.bundle_px),
            BrutePixel(fb, q, got.bundle_px)}];
  }
  EXPECT_EQ(got.total, total);
  std::map<Key, uint64_t> have;
  uint64_t sum = 0;
  for (const FlowBundle& b : got.bundles) {
    const FlowEdge& e = b.first;
    have[{static_cast<int>(e.kind), e.from_row, e.to_row, BrutePixel(e.from_ns, q, got.bundle_px),
          BrutePixel(e.to_ns, q, got.bundle_px)}] += b.count;
    sum += b.count;
  }
  EXPECT_EQ(sum, total);
  EXPECT_EQ(have, want);
  EXPECT_LE(got.bundles.size(), kMaxFlowBundles);
  if (got.bundle_px == 1 && q.t1 - q.t0 <= q.width) {  // zoomed in: one edge per bundle
    for (const FlowBundle& b : got.bundles) EXPECT_EQ(b.count, 1u);
  }
}

void ExpectWindowsMatch(const ServeRun& run) {
  const FlowIndex index(run);
  const int64_t end = run.end_rel_ns();
  std::mt19937_64 rng(11);
  for (int i = 0; i < 40; ++i) {
    FlowQuery q;
    q.t0 = static_cast<int64_t>(rng() % static_cast<uint64_t>(end + 1)) - end / 10;
    q.t1 = q.t0 + 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(end + 1));
    q.width = 1 + static_cast<int64_t>(rng() % 4000);
    if (i % 4 == 0) {
      q.row_mask.assign(run.index().row_count(), false);
      for (size_t r = 0; r < q.row_mask.size(); r += 2) q.row_mask[r] = true;
    }
    ExpectMatchesBruteForce(run, index, q);
  }
  FlowQuery whole;
  whole.t0 = 0;
  whole.t1 = end + 1;
  whole.width = 4;  // forces coarser bundles when there are many row pairs
  ExpectMatchesBruteForce(run, index, whole);
  EXPECT_EQ(QueryFlows(index, whole).total, index.size());
}

TEST(ServeFlowsTest, GeneratedTraceBundlesCountEveryEdgeInTheWindow) {
  auto run = Load(WriteFlowTrace());
  const FlowIndex index(*run);
  EXPECT_EQ(index.size(), 5300u);
  size_t launches = 0;
  for (const FlowEdge& e : index.edges()) launches += e.kind == EdgeKind::kLaunch;
  EXPECT_EQ(launches, 5000u);
  ExpectWindowsMatch(*run);
}

TEST(ServeFlowsTest, ManyCellsMergeIntoWiderBundlesAndStayExact) {
  auto run = Load(WriteFlowTrace());
  const FlowIndex index(*run);
  FlowQuery q;
  q.t0 = 0;
  q.t1 = run->end_rel_ns() + 1;
  q.width = 32768;
  const FlowAnswer a = QueryFlows(index, q);
  EXPECT_EQ(a.total, 5300u);
  EXPECT_GT(a.bundle_px, 1);  // 5,300 cells of one pixel would pass the bound
  EXPECT_LE(a.bundles.size(), kMaxFlowBundles);
  ExpectMatchesBruteForce(*run, index, q);
}

TEST(ServeFlowsTest, RealTraceMatchesBruteForce) {
  const std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data absent: real-trace test skipped";
  const std::string path =
      data +
      "/kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " absent: real-trace test skipped";
  auto run = Load(path);
  const FlowIndex index(*run);
  EXPECT_GT(index.size(), 100u);
  ExpectWindowsMatch(*run);
}

}  // namespace
}  // namespace th::serve
