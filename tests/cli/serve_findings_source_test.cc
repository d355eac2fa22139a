// The findings `tracehound serve` answers: the default pipeline run in the
// background by the real server (loopback), equal to running the pipeline
// directly on the same trace; 503 until it is done, 404 without a pipeline
// or for an unknown run.
#include "cli/serve_findings_source.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <simdjson.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "cli/pipeline_setup.h"
#include "core/pipeline/pipeline_runner.h"
#include "core/serve/serve_server.h"
#include "tests/support/test_files.h"

namespace th::cli {
namespace {

std::string RealTrace() {
  const std::string dir = th::testing::SharedDataDir();
  if (dir.empty()) return "";
  const std::string path =
      dir + "/tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz";
  return std::filesystem::exists(path) ? path : "";
}

// The default pipeline's findings, run directly.
std::vector<Finding> Direct(const std::string& input) {
  PluginRegistry registry;
  auto pipeline = LoadPipelineAndPlugins(ConfigPath("default.yaml"), {}, {}, &registry);
  EXPECT_TRUE(pipeline.ok()) << pipeline.status().message();
  auto run = RunPipeline(*pipeline, registry, {input});
  EXPECT_TRUE(run.ok()) << run.status().message();
  return (*run)->report.results.findings;
}

struct Server {
  std::vector<std::unique_ptr<serve::ServeRun>> runs;
  std::unique_ptr<serve::ServeServer> server;
  std::unique_ptr<httplib::Client> client;
  Server(const std::string& input, serve::FindingsSource source) {
    runs.push_back(std::make_unique<serve::ServeRun>(input, "run"));
    std::string note;
    Status s = serve::LoadServeRun(runs.back().get(), {}, &note);
    EXPECT_TRUE(s.ok()) << s.message();
    serve::ServeServerOptions options;
    options.port = 0;
    options.findings = std::move(source);
    server = std::make_unique<serve::ServeServer>(&runs, options);
    EXPECT_TRUE(server->Bind().ok());
    server->Start();
    server->RunReady(0);
    client = std::make_unique<httplib::Client>("127.0.0.1", server->port());
  }
  ~Server() { server->Stop(); }
};

TEST(ServeFindingsSourceTest, ServerAnswersTheDefaultPipelinesFindings) {
  const std::string input = RealTrace();
  if (input.empty()) GTEST_SKIP() << "../shared/data absent: real-trace test skipped";
  setenv("TRACEHOUND_PLUGIN_PATH", TRACEHOUND_BUILD_PLUGIN_DIR, 1);
  const std::vector<Finding> want = Direct(input);
  ASSERT_FALSE(want.empty());
  Server s(input, DefaultPipelineFindings());
  int status = 0;
  std::string body;
  for (int waits = 0; waits < 600; ++waits) {  // at most 60 s
    auto r = s.client->Get("/api/v1/runs/0/findings");
    ASSERT_TRUE(r);
    status = r->status;
    body = r->body;
    if (status != 503) break;
    EXPECT_NE(body.find("still running"), std::string::npos) << body;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(status, 200) << body;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(body).get(doc), simdjson::SUCCESS);
  simdjson::dom::array list = doc["findings"];
  ASSERT_EQ(list.size(), want.size());
  EXPECT_EQ(int64_t(doc["total"]), static_cast<int64_t>(want.size()));
  size_t k = 0;
  const int64_t end = s.runs[0]->end_rel_ns();
  for (simdjson::dom::element f : list) {
    EXPECT_EQ(std::string_view(f["title"]), want[k].title);
    EXPECT_EQ(std::string_view(f["plugin"]), want[k].plugin);
    EXPECT_EQ(std::string_view(f["severity"]), SeverityLabel(want[k].severity));
    EXPECT_EQ(std::string_view(f["what"]), want[k].what);
    const int64_t t0 = f["start_ns"], t1 = f["end_ns"];
    EXPECT_LE(t0, t1);
    EXPECT_GE(t0, 0);
    EXPECT_LE(t1, end);
    ++k;
  }
  auto unknown = s.client->Get("/api/v1/runs/4/findings");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
}

TEST(ServeFindingsSourceTest, ServerWithoutAPipelineAnswers404) {
  const std::string input = RealTrace();
  if (input.empty()) GTEST_SKIP() << "../shared/data absent: real-trace test skipped";
  Server s(input, nullptr);
  auto r = s.client->Get("/api/v1/runs/0/findings");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_NE(r->body.find("\"error\":\"findings"), std::string::npos) << r->body;
}

}  // namespace
}  // namespace th::cli
