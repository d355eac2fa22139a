// What `tracehound serve` answers for /critical-path and /roofline: the
// collectives, critical-path and roofline plugins of the plugin path, run in
// the background by the real server (loopback) on a real trace of
// ../shared/data (skipped when absent), byte for byte the answers of the
// plugins run directly on the same input: the Qwen H100 capture (one trace:
// the run's own import) and the 8-rank DLRM archive (several ranks: the
// input imported again), 503 with Retry-After until done.
#include "cli/serve_paths_source.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "cli/pipeline_setup.h"
#include "core/import/trace_loader.h"
#include "core/serve/serve_critical_path_json.h"
#include "core/serve/serve_roofline_json.h"
#include "core/serve/serve_server.h"
#include "tests/support/test_files.h"

namespace th::cli {
namespace {

std::string RealInput(const std::string& relative) {
  const std::string dir = th::testing::SharedDataDir();
  if (dir.empty()) return "";
  const std::string path = dir + "/" + relative;
  return std::filesystem::exists(path) ? path : "";
}

struct Server {
  std::vector<std::unique_ptr<serve::ServeRun>> runs;
  std::unique_ptr<serve::ServeServer> server;
  std::unique_ptr<httplib::Client> client;
  explicit Server(const std::string& input) {
    runs.push_back(std::make_unique<serve::ServeRun>(input, "run"));
    std::string note;
    Status s = serve::LoadServeRun(runs.back().get(), {}, &note);
    EXPECT_TRUE(s.ok()) << s.message();
    serve::ServeServerOptions options;
    options.port = 0;
    options.browser.paths = DefaultPathsPlugins();
    server = std::make_unique<serve::ServeServer>(&runs, options);
    EXPECT_TRUE(server->Bind().ok());
    server->Start();
    client = std::make_unique<httplib::Client>("127.0.0.1", server->port());
  }
  ~Server() { server->Stop(); }

  // The answer once it is not 503 (each 503 carrying Retry-After).
  httplib::Result Answer(const std::string& path) {
    for (int waits = 0; waits < 600; ++waits) {  // at most 60 s
      auto r = client->Get(path);
      if (!r || r->status != 503) return r;
      EXPECT_EQ(r->get_header_value("Retry-After"), "1");
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return client->Get(path);
  }
};

void ExpectTheDirectAnswers(const std::string& input) {
  setenv("TRACEHOUND_PLUGIN_PATH", TRACEHOUND_BUILD_PLUGIN_DIR, 1);
  Server s(input);
  auto path = s.Answer("/api/v1/runs/0/critical-path");
  ASSERT_TRUE(path);
  ASSERT_EQ(path->status, 200) << path->body;
  auto roofline = s.client->Get("/api/v1/runs/0/roofline");
  ASSERT_TRUE(roofline);
  ASSERT_EQ(roofline->status, 200) << roofline->body;

  PluginRegistry registry;
  ASSERT_TRUE(LoadRegistry({}, &registry).ok());
  auto set = LoadTraceSet({input}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  auto direct = serve::RunPathsPlugins(*set, registry);
  ASSERT_TRUE(direct.ok()) << direct.status().message();
  EXPECT_EQ(path->body, serve::CriticalPathJson(*s.runs[0], *direct));
  EXPECT_EQ(roofline->body, serve::RooflineJson(*direct));
  EXPECT_NE(path->body.find(R"("events":[{"id":)"), std::string::npos);
  // Every path's events placed on the run's lanes.
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = path->body.find(what); at != std::string::npos;
         at = path->body.find(what, at + 1))
      ++n;
    return n;
  };
  EXPECT_GT(count(R"("unplaced":)"), 0u);
  EXPECT_EQ(count(R"("unplaced":0})"), count(R"("unplaced":)"));
}

TEST(ServePathsSourceTest, OneTraceQwenH100) {
  const std::string input =
      RealInput("tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
  if (input.empty()) GTEST_SKIP() << "../shared/data absent: real-trace test skipped";
  ExpectTheDirectAnswers(input);
}

TEST(ServePathsSourceTest, EightRanksDlrmArchive) {
  const std::string input = RealInput("param/et_replay/tests/data/dlrm_kineto.tar.gz");
  if (input.empty()) GTEST_SKIP() << "../shared/data absent: real-trace test skipped";
  ExpectTheDirectAnswers(input);
}

}  // namespace
}  // namespace th::cli
