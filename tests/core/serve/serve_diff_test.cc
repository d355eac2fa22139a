// The diff view's answer (serve_diff.h) on a generated pair where B's gemm
// kernel lasts twice as long and B has aten::mul (with mul_kernel) inserted
// in Decoder_0: the view part's exact bytes, the diff part equal to `tracehound
// diff`'s JSON of the same traces, and GET /api/v1/diff over a real HTTP
// server: 503 while the diff runs, then 200 with those bytes; bad run ids.
#include "core/serve/serve_diff.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>

#include "core/diff/diff_json.h"
#include "core/diff/diff_runs.h"
#include "core/serve/serve_server.h"
#include "core/serve/share_keys.h"
#include "tests/plugins/steps/plugin_run.h"
#include "tests/support/diff_fixture.h"
#include "tests/support/test_files.h"

namespace th::serve {
namespace {

std::string PairFile(bool b) {
  th::testing::DiffFixture f;
  f.double_gemm = b;
  f.insert_mul = b;
  return th::testing::WriteTempFile(b ? "serve_diff_b.json" : "serve_diff_a.json",
                                    th::testing::DiffFixtureTrace(f));
}

std::vector<std::unique_ptr<ServeRun>> LoadPair() {
  std::vector<std::unique_ptr<ServeRun>> runs;
  for (bool b : {false, true}) {
    runs.push_back(std::make_unique<ServeRun>(PairFile(b), b ? "after" : "before"));
    std::string note;
    Status s = LoadServeRun(runs.back().get(), {}, &note);
    EXPECT_TRUE(s.ok()) << s.message();
  }
  return runs;
}

StatusOr<PluginResults> BuiltPlugins(const TraceSet& traces) {
  return th::testing::RunSteps(traces, {}, true);
}

// The diff part as `tracehound diff --json` writes it for the same traces.
std::string CliDiffJson(const ServeRun& a, const ServeRun& b) {
  PluginResults ra = BuiltPlugins(*a.imported()).value();
  PluginResults rb = BuiltPlugins(*b.imported()).value();
  diff::DiffSide sa{a.imported(), &ra, "A", {a.name()}};
  diff::DiffSide sb{b.imported(), &rb, "B", {b.name()}};
  return diff::DiffJson(diff::DiffRuns(sa, sb, {}).value());
}

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// The answer without its "diff" part, and that part.
std::pair<std::string, std::string> Split(const std::string& body) {
  const size_t at = body.find(",\"diff\":");
  EXPECT_NE(at, std::string::npos);
  EXPECT_EQ(body.back(), '}');
  return {body.substr(0, at), body.substr(at + 8, body.size() - at - 9)};
}

// Steady state drops the first step (warm-up) of the four: steps 1..3 at
// 1000 µs each, pair k at [1000 (k + 1), 1000 (k + 2)) µs from the origin
// (the first ProfilerStep). Rows by |Δ| descending: the gemm kernel (+50 µs),
// the inserted mul's op (+40) and kernel (+15), then the unchanged ones.
// First instances: gemm at base + 40 µs (op +20, launch +10, kernel +10),
// aten::mul at base + 360, mul_kernel at base + 380.
// Steady state drops the first step (warm-up) of the four: steps 1..3 at
// 1000 µs each, pair k at [1000 (k + 1), 1000 (k + 2)) µs from the origin
// (the first ProfilerStep). Rows by |Δ| descending (then class, name): the gemm
// kernel (+50 µs), the inserted aten::mul (+40) and mul_kernel (+15), then the
// unchanged ones. First instances from the fixture's layout: an op's launch at
// op + 10 µs, its kernel 10 µs later (gemm at base + 40, 50 µs in A, 100 in B;
// aten::mul [base + 360, + 400), mul_kernel at base + 380 for 15 µs).
constexpr const char* kView =
    R"({"a":0,"b":1,"pairs":[)"
    R"({"a_step":1,"b_step":1,"a_start_ns":1000000,"a_end_ns":2000000,"b_start_ns":1000000,"b_end_ns":2000000},)"
    R"({"a_step":2,"b_step":2,"a_start_ns":2000000,"a_end_ns":3000000,"b_start_ns":2000000,"b_end_ns":3000000},)"
    R"({"a_step":3,"b_step":3,"a_start_ns":3000000,"a_end_ns":4000000,"b_start_ns":3000000,"b_end_ns":4000000}],)"
    R"("rows":[)"
    R"({"a_names":["gemm_kernel<0x7f001000>"],"a_first":[[1040000,1090000,19],[2040000,2090000,34],[3040000,3090000,49]],"b_names":["gemm_kernel<0x7f001000>"],"b_first":[[1040000,1140000,22],[2040000,2140000,40],[3040000,3140000,58]]})"
    R"(,)"
    R"({"a_names":[],"a_first":[null,null,null],"b_names":["aten::mul"],"b_first":[[1360000,1400000,30],[2360000,2400000,48],[3360000,3400000,66]]})"
    R"(,)"
    R"({"a_names":[],"a_first":[null,null,null],"b_names":["mul_kernel"],"b_first":[[1380000,1395000,32],[2380000,2395000,50],[3380000,3395000,68]]})"
    R"(,)"
    R"({"a_names":["aten::add"],"a_first":[[1310000,1350000,24],[2310000,2350000,39],[3310000,3350000,54]],"b_names":["aten::add"],"b_first":[[1310000,1350000,27],[2310000,2350000,45],[3310000,3350000,63]]})"
    R"(,)"
    R"({"a_names":["aten::linear"],"a_first":[[1020000,1060000,17],[2020000,2060000,32],[3020000,3060000,47]],"b_names":["aten::linear"],"b_first":[[1020000,1060000,20],[2020000,2060000,38],[3020000,3060000,56]]})"
    R"(,)"
    R"({"a_names":["aten::relu"],"a_first":[[1420000,1460000,27],[2420000,2460000,42],[3420000,3460000,57]],"b_names":["aten::relu"],"b_first":[[1420000,1460000,33],[2420000,2460000,51],[3420000,3460000,69]]})"
    R"(,)"
    R"({"a_names":["elementwise_kernel"],"a_first":[[1330000,1350000,26],[2330000,2350000,41],[3330000,3350000,56]],"b_names":["elementwise_kernel"],"b_first":[[1330000,1350000,29],[2330000,2350000,47],[3330000,3350000,65]]})"
    R"(,)"
    R"({"a_names":["gemm2_kernel"],"a_first":[[1170000,1200000,22],[2170000,2200000,37],[3170000,3200000,52]],"b_names":["gemm2_kernel"],"b_first":[[1170000,1200000,25],[2170000,2200000,43],[3170000,3200000,61]]})"
    R"(,)"
    R"({"a_names":["relu_kernel"],"a_first":[[1440000,1450000,29],[2440000,2450000,44],[3440000,3450000,59]],"b_names":["relu_kernel"],"b_first":[[1440000,1450000,35],[2440000,2450000,53],[3440000,3450000,71]]})"
    R"(])";

TEST(ServeDiffTest, ViewOfTheGeneratedPair) {
  auto runs = LoadPair();
  auto json = DiffViewJson(*runs[0], 0, *runs[1], 1, BuiltPlugins);
  ASSERT_TRUE(json.ok()) << json.status().message();
  const auto [view, diff] = Split(*json);
  EXPECT_EQ(diff, Trimmed(CliDiffJson(*runs[0], *runs[1])));
  EXPECT_EQ(view, kView);
  // Each first instance is the event its id names: its start, end and name.
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(*json).get(doc), simdjson::SUCCESS);
  int checked = 0;
  for (simdjson::dom::element row : doc["rows"].get_array()) {
    for (const char* side : {"a", "b"}) {
      const ServeRun& run = *runs[side[0] == 'a' ? 0 : 1];
      std::set<std::string_view> names;
      for (std::string_view n : row[std::string(side) + "_names"].get_array()) names.insert(n);
      for (simdjson::dom::element f : row[std::string(side) + "_first"].get_array()) {
        if (f.is_null()) continue;
        const auto e = static_cast<EventId>(int64_t(f.at(2)));
        const EventColumns& ev = run.graph().events;
        EXPECT_EQ(run.Relative(ev.ts[e]), int64_t(f.at(0)));
        EXPECT_EQ(run.Relative(ev.ts[e] + ev.dur[e]), int64_t(f.at(1)));
        EXPECT_TRUE(names.contains(run.graph().strings.Get(ev.name[e])));
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 3 * (7 * 2 + 2));
}

const std::string kAdmin = "0123456789abcdef0123456789abcdef";

// Holds every call of the plugins until Open (the test sees the 503 first).
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  void Open() {
    std::lock_guard lock(mu);
    open = true;
    cv.notify_all();
  }
  DiffPluginsSource Source() {
    return [this](const TraceSet& traces) {
      std::unique_lock lock(mu);
      cv.wait(lock, [this] { return open; });
      return BuiltPlugins(traces);
    };
  }
};

struct Served {
  std::vector<std::unique_ptr<ServeRun>> runs = LoadPair();
  std::unique_ptr<ServeServer> server;
  std::unique_ptr<httplib::Client> client;

  // With `share`, the server needs a token: kAdmin or one of share's.
  explicit Served(DiffPluginsSource plugins, ShareAuthority* share = nullptr) {
    ServeServerOptions options;
    options.port = 0;
    options.browser.diff_plugins = std::move(plugins);
    if (share) {
      options.access.token = kAdmin;
      options.access.share = share;
    }
    server = std::make_unique<ServeServer>(&runs, options);
    Status bound = server->Bind();
    EXPECT_TRUE(bound.ok()) << bound.message();
    server->Start();
    client = std::make_unique<httplib::Client>("127.0.0.1", server->port());
  }
  ~Served() { server->Stop(); }
};

TEST(ServeDiffTest, ServedWith503WhileComputingThenTheBytes) {
  Gate gate;
  Served s(gate.Source());
  auto r = s.client->Get("/api/v1/diff?a=0&b=1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->get_header_value("Retry-After"), "1");
  EXPECT_EQ(r->body, R"({"error":"diff: still computing runs 0 and 1"})");
  gate.Open();
  for (int k = 0; k < 500 && r && r->status == 503; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    r = s.client->Get("/api/v1/diff?a=0&b=1");
  }
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(r->body, DiffViewJson(*s.runs[0], 0, *s.runs[1], 1, BuiltPlugins).value());
  EXPECT_EQ(Split(r->body).first, kView);
  // B against A is another pair, computed on its own.
  r = s.client->Get("/api/v1/diff?a=1&b=0");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
}

TEST(ServeDiffTest, BadRunIdsAreRefused) {
  Served s(BuiltPlugins);
  const std::vector<std::tuple<std::string, int, std::string>> cases = {
      {"/api/v1/diff?a=0", 400, R"({"error":"b: give a run number"})"},
      {"/api/v1/diff?b=1", 400, R"({"error":"a: give a run number"})"},
      {"/api/v1/diff?a=x&b=1", 400, R"({"error":"a: give a run number"})"},
      {"/api/v1/diff?a=-1&b=1", 400, R"({"error":"a: give a run number"})"},
      {"/api/v1/diff?a=0&b=2", 404, R"j({"error":"run: no run 2 (there are 2)"})j"},
  };
  for (const auto& [path, status, body] : cases) {
    auto r = s.client->Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, status) << path;
    EXPECT_EQ(r->body, body) << path;
  }
}

// A share link's bearer sees the diff of two runs only when the link names both.
TEST(ServeDiffTest, AShareLinkDiffsOnlyItsRuns) {
  const std::string key_file = th::testing::TempDir() + "/serve_diff_share/serve-share.key";
  std::filesystem::remove_all(std::filesystem::path(key_file).parent_path());
  auto authority = ShareAuthority::Open(key_file).value();
  Served s(BuiltPlugins, authority.get());
  const int64_t expires = std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count() +
                          3600;
  const std::string one = authority->Issue({s.runs[1]->content_key()}, expires).value();
  const std::string both =
      authority->Issue({s.runs[0]->content_key(), s.runs[1]->content_key()}, expires).value();
  auto get = [&](const std::string& path, const std::string& token) {
    return s.client->Get(path.c_str(), {{"Authorization", "Bearer " + token}});
  };
  for (const char* path : {"/api/v1/diff?a=0&b=1", "/api/v1/diff?a=1&b=0"}) {
    auto r = get(path, one);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 404) << path;
    EXPECT_EQ(r->body, R"({"error":"run: this link shows no run 0"})") << path;
  }
  auto r = get("/api/v1/diff?a=1", one);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(r->body, R"({"error":"run: this link shows no run ?"})");
  r = get("/api/v1/diff?a=0&b=1", both);
  for (int k = 0; k < 500 && r && r->status == 503; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    r = get("/api/v1/diff?a=0&b=1", both);
  }
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(Split(r->body).first, kView);
  r = s.client->Get("/api/v1/diff?a=0&b=1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  // The diff page opened by its link sets the token as the cookie its scripts send.
  r = s.client->Get(("/assets/diff.html?token=" + both).c_str());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Set-Cookie"),
            "th_token=" + both + "; Path=/; HttpOnly; SameSite=Strict");
  r = s.client->Get("/assets/diff.js", {{"Cookie", "th_token=" + both}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(ServeDiffTest, NoPluginsIs404) {
  Served s(nullptr);
  auto r = s.client->Get("/api/v1/diff?a=0&b=1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(r->body, R"({"error":"diff: this server runs no plugins"})");
}

}  // namespace
}  // namespace th::serve
