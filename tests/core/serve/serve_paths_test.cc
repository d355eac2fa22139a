// The critical path and the roofline of a run as the viewer gets them
// (serve_paths.h): the collectives, critical-path and roofline plugins (the
// built ones) on a generated two-rank job whose every figure is known by
// hand: rank 0 computes 1 ms (a BF16 GEMM [4096x4096]·[4096x4096]) and an FP32
// add of 2^20 elements on a second stream, rank 1 the same GEMM for 3 ms, then
// an all-reduce of 0.5 ms transfer; on an H100. The answers' bytes, the
// events placed on the run's lanes, and /critical-path and /roofline through
// the router (503 with Retry-After, then 200).
#include "core/serve/serve_paths.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <thread>
#include <tuple>

#include "core/import/trace_loader.h"
#include "core/serve/serve_critical_path_json.h"
#include "core/serve/serve_roofline_json.h"
#include "core/serve/serve_router.h"
#include "tests/support/test_files.h"

namespace th::serve {
namespace {

std::string X(const char* cat, const std::string& name, int pid, int tid, int64_t ts, int64_t dur,
              const std::string& args = "") {
  return R"({"ph":"X","cat":")" + std::string(cat) + R"(","name":")" + name + R"(","pid":)" +
         std::to_string(pid) + R"(,"tid":)" + std::to_string(tid) + R"(,"ts":)" +
         std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) + R"(,"args":{)" + args + "}}";
}
std::string Corr(int c) { return R"("correlation":)" + std::to_string(c); }
std::string OnStream(int stream, int c) {
  return R"("device":0,"stream":)" + std::to_string(stream) + "," + Corr(c);
}
constexpr char kMmShapes[] =
    R"("Input Dims":[[4096,4096],[4096,4096]],"Input type":["c10::BFloat16","c10::BFloat16"])";
constexpr char kAddShapes[] =
    R"("Input Dims":[[1024,1024],[1024,1024],[]],"Input type":["float","float","Scalar"])";

// Rank r (µs, rank 1's clock 5 ms ahead): aten::mm [0,3) launches the GEMM
// (runs [0, c)), a bare launch at 4 the all-reduce (runs [c, 3500)); rank 0
// also aten::add [7,9) launching an add kernel on stream 8 at [20, 120).
std::string WriteTwoRanks() {
  const std::string dir = th::testing::TempDir() + "/serve_paths_two_ranks";
  std::filesystem::create_directories(dir);
  for (int r = 0; r < 2; ++r) {
    const int64_t k = r * 5000, c = r == 0 ? 1000 : 3000;
    std::vector<std::string> e = {
        X("user_annotation", "ProfilerStep#1", 1, 1, k, 4500),
        X("cpu_op", "aten::mm", 1, 1, k, 3, kMmShapes),
        X("cuda_runtime", "cudaLaunchKernel", 1, 1, k, 2, Corr(1)),
        X("cuda_runtime", "cudaLaunchKernel", 1, 1, k + 4, 2, Corr(2)),
        X("kernel", "gemm", 0, 7, k, c, OnStream(7, 1)),
        X("kernel",
          "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", 0, 7,
          k + c, 3500 - c, OnStream(7, 2)),
    };
    if (r == 0) {
      e.push_back(X("cpu_op", "aten::add", 1, 1, k + 7, 2, kAddShapes));
      e.push_back(X("cuda_runtime", "cudaLaunchKernel", 1, 1, k + 8, 1, Corr(3)));
      e.push_back(X("kernel", "add_kernel", 0, 8, k + 20, 100, OnStream(8, 3)));
    }
    std::string out =
        R"({"distributedInfo":{"rank":)" + std::to_string(r) +
        R"(,"world_size":2},"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],"traceEvents":[)";
    for (size_t i = 0; i < e.size(); ++i) out += (i ? ",\n" : "") + e[i];
    std::ofstream(dir + "/rank" + std::to_string(r) + ".json") << out << "]}";
  }
  return dir;
}

const PluginRegistry& Registry() {
  static PluginRegistry* registry = [] {
    auto* r = new PluginRegistry;
    for (const char* id : {"collectives", "critical-path", "roofline"}) {
      Status s = r->LoadPlugin({BUILTIN_PLUGIN_DIR}, id);
      EXPECT_TRUE(s.ok()) << s.message();
    }
    return r;
  }();
  return *registry;
}

// The plugins on the run's input, imported again (the run holds the merged graph).
PathsSource RealPlugins() {
  return [](const std::string& input, const TraceSet* loaded) -> StatusOr<PluginResults> {
    EXPECT_EQ(loaded, nullptr);  // several ranks: merged
    auto set = LoadTraceSet({input}, LoadOptions{});
    if (!set.ok()) return set.status();
    return RunPathsPlugins(*set, Registry());
  };
}

std::unique_ptr<ServeRun> LoadRun(const std::string& input) {
  auto run = std::make_unique<ServeRun>(input, "two ranks");
  std::string note;
  Status s = LoadServeRun(run.get(), {}, &note);
  EXPECT_TRUE(s.ok()) << s.message();
  return run;
}

// The across-ranks path: 3 ms of rank 1's GEMM, then the all-reduce's 0.5 ms
// transfer (the shortest duration), gated by rank 1 (2 ms ahead of rank 0);
// each rank's own path is 3.5 ms (rank 0 waits 2 ms inside its all-reduce).
// Events by job-wide id: rank 0's are 0-8, rank 1's from 9 (rank 1's clock
// is 5 ms later); the all-reduce kernels carry no time on the path across
// ranks (their transfer is the barrier's), so "none".
constexpr char kAcrossRanks[] =
    R"j({"step":1,"rank":-1,"path_ns":3500000,"late_start_ns":0,"waits_ns":0,"elapsed_ns":3500000,)j"
    R"j("events_on_path":5,"sync_edges":0,"inferred_sync_edges":0,"categories":[)j"
    R"j({"category":"compute","hta_bound":"gpu_compute_bound","time_ns":3000000},)j"
    R"j({"category":"communication","hta_bound":"gpu_communication_bound","time_ns":500000},)j"
    R"j({"category":"launch_overhead","hta_bound":"gpu_kernel_launch_overhead","time_ns":0},)j"
    R"j({"category":"kernel_gap","hta_bound":"gpu_kernel_kernel_overhead","time_ns":0},)j"
    R"j({"category":"host","hta_bound":"cpu_bound","time_ns":0},)j"
    R"j({"category":"late_start","hta_bound":"","time_ns":0},)j"
    R"j({"category":"idle","hta_bound":"","time_ns":0}],)j"
    R"j("ranks":[{"rank":1,"time_ns":3500000}],)j"
    R"j("collectives":[{"collective":0,"gating_rank":1,"lead_ns":2000000,"transfer_ns":500000,"on_path":true}],)j"
    R"j("events":[)j"
    R"j({"id":10,"row":6,"rank":1,"track":3,"start_ns":5000000,"dur_ns":3000,"time_ns":0,"category":"none","name":"aten::mm"},)j"
    R"j({"id":11,"row":7,"rank":1,"track":3,"start_ns":5000000,"dur_ns":2000,"time_ns":0,"category":"none","name":"cudaLaunchKernel"},)j"
    R"j({"id":13,"row":8,"rank":1,"track":4,"start_ns":5000000,"dur_ns":3000000,"time_ns":3000000,"category":"compute","name":"gemm"},)j"
    R"j({"id":14,"row":8,"rank":1,"track":4,"start_ns":8000000,"dur_ns":500000,"time_ns":0,"category":"none","name":"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"},)j"
    R"j({"id":5,"row":3,"rank":0,"track":1,"start_ns":1000000,"dur_ns":2500000,"time_ns":0,"category":"none","name":"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"}],)j"
    R"j("unplaced":0})j";

TEST(ServePathsTest, CriticalPathAnswerBytes) {
  const std::string dir = WriteTwoRanks();
  auto run = LoadRun(dir);
  auto results = RealPlugins()(dir, nullptr);
  ASSERT_TRUE(results.ok()) << results.status().message();
  const std::string json = CriticalPathJson(*run, *results);
  // Three paths: rank 0, rank 1, across ranks (last).
  const size_t across = json.find(R"({"step":1,"rank":-1,)");
  ASSERT_NE(across, std::string::npos) << json;
  EXPECT_EQ(json.substr(across), std::string(kAcrossRanks) + "]}");
  EXPECT_EQ(json.find(R"({"paths":[{"step":1,"rank":0,"path_ns":3500000,)"), 0u) << json;
  EXPECT_NE(json.find(R"({"step":1,"rank":1,"path_ns":3500000,)"), std::string::npos) << json;
  // Every event placed is the run's own: its name, start and lane.
  const EventGraph& g = run->graph();
  for (auto [id, name, start] : {std::tuple{13, "gemm", 5000000}, {5, "ncclKernel", 1000000}}) {
    EXPECT_TRUE(std::string(g.strings.Get(g.events.name[id])).starts_with(name)) << id;
    EXPECT_EQ(run->Relative(g.events.ts[id]), start);
  }
  EXPECT_EQ(run->RowOf(g.events.track[13], g.events.depth[13]), 8u);
}

// rank 0's GEMM: the issue's known answer (F = 2·4096³, B = 3 · 4096² · 2 B)
// in 1 ms: 1.37438953472e14 FLOP/s against the H100's 989.4 TFLOP/s BF16
// matrix peak (3.35 TB/s HBM): compute-bound, efficiency F/P/T; rank 1's
// the same in 3 ms; rank 0's add: 2^20 FLOP, 3 · 4 MiB, memory-bound on the
// vector FP32 roof. Two roofs (matrix bf16 for 2 rows, vector fp32 for 1).
TEST(ServePathsTest, RooflineAnswerBytes) {
  const std::string dir = WriteTwoRanks();
  auto results = RealPlugins()(dir, nullptr);
  ASSERT_TRUE(results.ok()) << results.status().message();
  const std::string json = RooflineJson(*results);
  const std::string h100 = R"("device":"NVIDIA H100 80GB HBM3",)";
  const std::string bf16_source =
      "NVIDIA H100 whitepaper WP-10792-001, Table 3, H100 SXM5 peak BF16 Tensor Core, dense; "
      "NVIDIA H100 datasheet, H100 SXM GPU memory bandwidth 3.35 TB/s";
  const std::string fp32_source =
      "NVIDIA H100 whitepaper WP-10792-001, Table 3, H100 SXM5 peak FP32; NVIDIA H100 "
      "datasheet, H100 SXM GPU memory bandwidth 3.35 TB/s";
  const std::string mm = R"("name":"aten::mm","dtype":"bf16","unit":"matrix",)"
                         R"("input_dims":"[[4096,4096],[4096,4096]]","count":1,)"
                         R"("flops":137438953472,"bytes":100663296,)";
  const std::string mm_roof = R"("peak_flops":989400000000000,"peak_bytes_per_s":3350000000000,)"
                              R"("peak":"matrix bf16","bound":"compute",)";
  const std::string want =
      R"({"ops":[{"rank":1,)" + h100 + mm +
      R"("time_ns":3000000,"flops_per_s":45812984490666.664,"bytes_per_s":33554432000,)"
      R"("intensity":1365.3333333333333,)" +
      mm_roof + R"("efficiency":0.046303804821777504,"peak_source":")" + bf16_source +
      R"(","cost_source":"shapes","cost_kind":"inferred"},{"rank":0,)" + h100 + mm +
      R"("time_ns":1000000,"flops_per_s":137438953472000,"bytes_per_s":100663296000,)"
      R"("intensity":1365.3333333333333,)" +
      mm_roof + R"("efficiency":0.13891141446533253,"peak_source":")" + bf16_source +
      R"(","cost_source":"shapes","cost_kind":"inferred"},{"rank":0,)" + h100 +
      R"("name":"aten::add","dtype":"fp32","unit":"vector","input_dims":"[[1024,1024],[1024,1024],[]]",)"
      R"("count":1,"flops":1048576,"bytes":12582912,"time_ns":100000,"flops_per_s":10485760000,)"
      R"("bytes_per_s":125829120000,"intensity":0.08333333333333333,"peak_flops":66900000000000,)"
      R"("peak_bytes_per_s":3350000000000,"peak":"vector fp32","bound":"memory",)"
      R"("efficiency":0.03756093134328358,"peak_source":")" +
      fp32_source + R"(","cost_source":"shapes","cost_kind":"inferred"}],"roofs":[{)" + h100 +
      R"("peak":"matrix bf16","unit":"matrix","dtype":"bf16","peak_flops":989400000000000,)"
      R"("peak_bytes_per_s":3350000000000,"source":")" +
      bf16_source + R"(","ops":2},{)" + h100 +
      R"("peak":"vector fp32","unit":"vector","dtype":"fp32","peak_flops":66900000000000,)"
      R"("peak_bytes_per_s":3350000000000,"source":")" +
      fp32_source + R"(","ops":1}],"steps":[)";
  EXPECT_EQ(json.substr(0, want.size()), want) << json;
  EXPECT_NE(json.find(R"j("unmodelled":[{"rank":0,"name":"(no op)","reason":"launched outside )j"
                      R"j(any op","count":1,"time_ns":2500000})j"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("kinds":{"flops":"inferred","bytes":"inferred","time_ns":"measured",)"),
            std::string::npos);
  EXPECT_NE(json.find(R"("peak_flops":"read","peak_bytes_per_s":"read")"), std::string::npos);
}

HttpResponse Get(ServeRouter& router, const std::string& path) {
  HttpRequest req;
  req.method = "GET";
  req.target = req.path = path;
  req.remote_addr = "127.0.0.1";
  return router.Handle(req);
}

std::string Header(const HttpResponse& r, const std::string& name) {
  for (const auto& [k, v] : r.headers)
    if (k == name) return v;
  return "";
}

// Both answers come from one run of the plugins, started by the first
// request: 503 with Retry-After while it runs, then the bytes of the JSON
// writers; a server without plugins answers 404.
TEST(ServePathsTest, RouterAnswers503ThenBothAnswersFromOneRun) {
  const std::string dir = WriteTwoRanks();
  std::vector<std::unique_ptr<ServeRun>> runs;
  runs.push_back(LoadRun(dir));
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  int calls = 0;
  RunBrowser browser;
  browser.paths = [&, released](const std::string& input, const TraceSet* loaded) {
    ++calls;
    released.wait();
    return RealPlugins()(input, loaded);
  };
  auto results = RealPlugins()(dir, nullptr);
  ASSERT_TRUE(results.ok());
  {
    ServeRouter router(&runs, {}, nullptr, browser);
    const HttpResponse busy = Get(router, "/api/v1/runs/0/roofline");
    EXPECT_EQ(busy.status, 503) << busy.body;
    EXPECT_EQ(Header(busy, "Retry-After"), "1");
    EXPECT_EQ(busy.body, R"({"error":"roofline: the plugins are still running on run 0"})");
    release.set_value();
    HttpResponse path;
    for (int i = 0; i < 500; ++i) {
      path = Get(router, "/api/v1/runs/0/critical-path");
      if (path.status != 503) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(path.status, 200) << path.body;
    EXPECT_EQ(path.body, CriticalPathJson(*runs[0], *results));
    const HttpResponse roofline = Get(router, "/api/v1/runs/0/roofline");
    EXPECT_EQ(roofline.status, 200);
    EXPECT_EQ(roofline.body, RooflineJson(*results));
    EXPECT_EQ(Get(router, "/api/v1/runs/1/roofline").status, 404);
  }
  EXPECT_EQ(calls, 1);
  ServeRouter bare(&runs, {});
  const HttpResponse none = Get(bare, "/api/v1/runs/0/critical-path");
  EXPECT_EQ(none.status, 404);
  EXPECT_EQ(none.body, R"({"error":"critical-path: this server runs no plugins"})");
}

// A real record_shapes capture (the Qwen 0.5B H100 trace of ../shared/data,
// skipped when absent), one rank: the roofline answers one op row per
// roofline_ops row, each held to a roof the answer lists; every event of
// every path is placed on the run (the plugins ran on the run's own import)
// under the name the run gives its id.
TEST(ServePathsTest, RealQwenH100TraceAnswersOpRowsAndPlacesThePath) {
  const std::string data = th::testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent";
  auto run = LoadRun(data + "/tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
  ASSERT_NE(run->imported(), nullptr);
  auto results = RunPathsPlugins(*run->imported(), Registry());
  ASSERT_TRUE(results.ok()) << results.status().message();
  simdjson::dom::parser parser;
  simdjson::dom::element roofline, path;
  const std::string roofline_json = RooflineJson(*results);
  ASSERT_EQ(parser.parse(roofline_json).get(roofline), simdjson::SUCCESS);
  const size_t rows = results->tables.at("roofline_ops").rows;
  ASSERT_GT(rows, 0u);
  EXPECT_EQ(simdjson::dom::array(roofline["ops"]).size(), rows);
  std::set<std::string> roofs;
  for (simdjson::dom::element r : roofline["roofs"].get_array())
    roofs.insert(std::string(std::string_view(r["peak"])));
  for (simdjson::dom::element op : roofline["ops"].get_array()) {
    EXPECT_EQ(std::string_view(op["device"]), "NVIDIA H100 80GB HBM3");
    EXPECT_TRUE(roofs.count(std::string(std::string_view(op["peak"])))) << op;
  }
  simdjson::dom::parser path_parser;
  const std::string path_json = CriticalPathJson(*run, *results);
  ASSERT_EQ(path_parser.parse(path_json).get(path), simdjson::SUCCESS);
  size_t paths = 0, events = 0;
  const EventGraph& g = run->graph();
  for (simdjson::dom::element p : path["paths"].get_array()) {
    ++paths;
    EXPECT_EQ(int64_t(p["unplaced"]), 0);
    for (simdjson::dom::element e : p["events"].get_array()) {
      ++events;
      const auto id = static_cast<EventId>(int64_t(e["id"]));
      EXPECT_EQ(std::string_view(e["name"]), g.strings.Get(g.events.name[id]));
    }
  }
  EXPECT_GT(paths, 0u);
  EXPECT_GT(events, 0u);
}

}  // namespace
}  // namespace th::serve
