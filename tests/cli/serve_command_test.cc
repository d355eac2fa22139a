// `tracehound serve` as a user runs it: the "serving URL" line (a free port
// with --port 0), runs ready once imported, the index cached on the second
// start, a token printed off loopback, and a bad input named with exit 2.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "core/scan/result_writer.h"
#include "core/scan/results_schema.h"
#include "tests/core/serve/serve_fixture.h"
#include "tests/support/command_runner.h"
#include "tests/support/postgres_server.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

// `tracehound serve ARGS...` in the background, its stdout line and stderr.
class ServeProcess {
 public:
  explicit ServeProcess(const std::vector<std::string>& args) {
    int out[2];
    EXPECT_EQ(pipe(out), 0);
    err_path_ = th::testing::TempDir() + "/serve_stderr_" + std::to_string(counter_++);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      FILE* err = freopen(err_path_.c_str(), "w", stderr);
      (void)err;
      close(out[0]);
      std::vector<char*> argv{const_cast<char*>(TRACEHOUND_BINARY), const_cast<char*>("serve")};
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(TRACEHOUND_BINARY, argv.data());
      _exit(127);
    }
    close(out[1]);
    char c;
    while (read(out[0], &c, 1) == 1 && c != '\n') line_.push_back(c);
    close(out[0]);
  }
  ~ServeProcess() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }
  const std::string& line() const { return line_; }
  int port() const {
    std::smatch m;
    return std::regex_search(line_, m, std::regex(R"(^serving http://[^/]+:(\d+)/)"))
               ? std::stoi(m[1])
               : -1;
  }
  std::string err() const { return th::testing::ReadFile(err_path_); }
  // The exit status, waiting at most `seconds`; -1 if it is still running.
  int Wait(int seconds) {
    for (int i = 0; i < seconds * 100; ++i) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }

 private:
  static inline int counter_ = 0;
  pid_t pid_ = -1;
  bool exited_ = false;
  std::string line_, err_path_;
};

// GET /api/v1/runs until run 0 is ready (at most 30 s).
bool WaitReady(httplib::Client& client) {
  for (int i = 0; i < 3000; ++i) {
    auto r = client.Get("/api/v1/runs");
    if (r && r->body.find("\"ready\":true") != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(ServeCommand, ServesOnAFreePortAndCachesTheIndex) {
  const std::string trace = serve::testing::WriteServeFixture("cli_serve.json");
  const std::string cache = th::testing::TempDir() + "/cli_serve_cache";
  for (bool cached : {false, true}) {
    ServeProcess serve({"--port", "0", "--cache-dir", cache, trace});
    ASSERT_GT(serve.port(), 0) << "no serving line: " << serve.line() << serve.err();
    EXPECT_EQ(serve.line().rfind("serving http://127.0.0.1:", 0), 0u) << serve.line();
    EXPECT_EQ(serve.line().find("token"), std::string::npos);
    httplib::Client client("127.0.0.1", serve.port());
    ASSERT_TRUE(WaitReady(client)) << serve.err();
    auto meta = client.Get("/api/v1/runs/0/meta");
    ASSERT_TRUE(meta);
    EXPECT_EQ(meta->status, 200);
    EXPECT_NE(meta->body.find("\"indexed_events\":3005"), std::string::npos);
    auto page = client.Get("/");
    ASSERT_TRUE(page);
    EXPECT_EQ(page->status, 200);
    // The line is written once the caches are stored, after the run answers.
    for (int i = 0; i < 500 && serve.err().find("run 0 ready") == std::string::npos; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_NE(serve.err().find(cached ? "index from the cache" : "index built"), std::string::npos)
        << serve.err();
    EXPECT_NE(serve.err().find(cached ? "overview from the cache" : "overview built"),
              std::string::npos)
        << serve.err();
  }
}

// The findings lane's answer: the default pipeline, run after the run is
// ready (503 meanwhile, at most 60 s here); none with --no-findings.
TEST(ServeCommand, RunsTheDefaultPipelineForTheFindingsUnlessToldNot) {
  const std::string trace = serve::testing::WriteServeFixture("cli_serve_findings.json");
  for (bool findings : {true, false}) {
    std::vector<std::string> args = {"--port", "0", "--no-cache", trace};
    if (!findings) args.insert(args.begin(), "--no-findings");
    ServeProcess serve(args);
    ASSERT_GT(serve.port(), 0) << serve.line() << serve.err();
    httplib::Client client("127.0.0.1", serve.port());
    ASSERT_TRUE(WaitReady(client)) << serve.err();
    int status = 0;
    std::string body;
    for (int i = 0; i < 600; ++i) {
      auto r = client.Get("/api/v1/runs/0/findings");
      ASSERT_TRUE(r);
      status = r->status;
      body = r->body;
      if (status != 503) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (findings) {
      EXPECT_EQ(status, 200) << body << serve.err();
      EXPECT_NE(body.find("\"findings\":["), std::string::npos) << body;
      EXPECT_NE(body.find("\"place\":"), std::string::npos) << body;  // the fixture has findings
    } else {
      EXPECT_EQ(status, 404) << body;
      EXPECT_NE(body.find("\"error\":\"findings"), std::string::npos) << body;
    }
  }
}

TEST(ServeCommand, OffLoopbackPrintsAToken) {
  const std::string trace = serve::testing::WriteServeFixture("cli_serve_token.json");
  // Off loopback the server also signs share links: its key lives in the
  // test's folder, not in the user's cache.
  const std::string key = th::testing::TempDir() + "/cli_serve_token.key";
  ServeProcess serve({"--port", "0", "--bind", "0.0.0.0", "--no-cache", "--key-file", key, trace});
  EXPECT_TRUE(std::regex_search(
      serve.line(), std::regex(R"(^serving http://0\.0\.0\.0:\d+/\?token=[0-9a-f]{32}$)")))
      << serve.line();
  const std::string token = serve.line().substr(serve.line().find("token=") + 6);
  httplib::Client client("127.0.0.1", serve.port());
  auto refused = client.Get("/api/v1/runs");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  auto allowed = client.Get(("/api/v1/runs?token=" + token).c_str());
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->status, 200);

  ServeProcess given({"--port", "0", "--bind", "0.0.0.0", "--token", "s3cret", "--no-cache",
                      "--key-file", key, trace});
  EXPECT_NE(given.line().find("?token=s3cret"), std::string::npos) << given.line();
}

TEST(ServeCommand, BadInputIsNamedWithExitTwo) {
  const std::string missing = th::testing::TempDir() + "/no_such_trace.json";
  ServeProcess serve({"--port", "0", "--no-cache", missing});
  EXPECT_EQ(serve.Wait(30), 2);
  EXPECT_NE(serve.err().find("no_such_trace.json"), std::string::npos) << serve.err();
  const std::string junk = th::testing::WriteTempFile("junk.json", "{\"not\": \"a trace\"}");
  ServeProcess junk_serve({"--port", "0", "--no-cache", junk});
  EXPECT_EQ(junk_serve.Wait(30), 2);
  EXPECT_NE(junk_serve.err().find("junk.json"), std::string::npos) << junk_serve.err();
}

// GET `path` until it answers other than 503 (at most 60 s).
httplib::Result GetSettled(httplib::Client& client, const std::string& path) {
  httplib::Result r = client.Get(path);
  for (int i = 0; i < 600 && r && r->status == 503; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    r = client.Get(path);
  }
  return r;
}

// --db: the runs of a scan database are listed at once, imported when opened,
// and answer their findings from the stored rows (not the pipeline).
void ServeDatabase(const std::string& url) {
  const std::string trace = serve::testing::WriteServeFixture("cli_serve_db.json");
  {
    auto db = scan::OpenDatabase(url);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(scan::MigrateResultsSchema(**db).ok());
    scan::RunRecord r;
    r.content_hash = "c";
    r.pipeline_hash = "p";
    r.run_id = "c:p";
    r.location = trace;
    r.name = "cli_serve_db.json";
    r.verdict = "NEEDS_ATTENTION";
    r.ranks = 1;
    Finding f;
    f.plugin = "stored-plugin";
    f.severity = FindingSeverity::kP0;
    f.title = "a finding the database holds";
    r.findings = {f};
    ASSERT_TRUE(scan::WriteRunRecord(**db, r, false).ok());
  }
  ServeProcess serve({"--port", "0", "--no-cache", "--db", url});
  ASSERT_GT(serve.port(), 0) << serve.line() << serve.err();
  httplib::Client client("127.0.0.1", serve.port());
  auto list = client.Get("/api/v1/runs");
  ASSERT_TRUE(list);
  EXPECT_NE(list->body.find(R"("ready":false)"), std::string::npos) << list->body;
  EXPECT_NE(list->body.find(R"("top_finding":{"severity":"P0","plugin":"stored-plugin")"),
            std::string::npos)
      << list->body;
  EXPECT_NE(list->body.find(R"("source":"database"}],"total":1,"offset":0})"), std::string::npos)
      << list->body;
  EXPECT_EQ(serve.err().find("run 0 ready"), std::string::npos) << serve.err();
  auto meta = GetSettled(client, "/api/v1/runs/0/meta");
  ASSERT_TRUE(meta);
  EXPECT_EQ(meta->status, 200) << meta->body << serve.err();
  auto findings = GetSettled(client, "/api/v1/runs/0/findings");
  ASSERT_TRUE(findings);
  EXPECT_EQ(findings->status, 200) << findings->body;
  EXPECT_NE(findings->body.find(R"("title":"a finding the database holds")"), std::string::npos)
      << findings->body;
  EXPECT_NE(findings->body.find(R"("total":1,"source":"database"})"), std::string::npos)
      << findings->body;
}

TEST(ServeCommand, DatabaseRunsOpenOnDemandWithTheirStoredFindings) {
  const std::string path = th::testing::TempDir() + "/cli_serve_runs.db";
  std::filesystem::remove(path);
  ServeDatabase("sqlite:" + path);
}

TEST(ServeCommand, PostgresDatabaseRunsOpenOnDemandWithTheirStoredFindings) {
  std::string why;
  auto* server = th::testing::PostgresServer::Shared(&why);
  if (!server) GTEST_SKIP() << "PostgreSQL: " << why;
  ServeDatabase(server->NewDatabase());
}

// More than 8 runs: none is imported at start; opening one imports it alone.
TEST(ServeCommand, ManyRunsAreImportedWhenOpened) {
  const std::string dir = th::testing::TempDir() + "/cli_serve_many";
  std::filesystem::create_directories(dir);
  const std::string trace = serve::testing::WriteServeFixture("cli_serve_many.json");
  for (int k = 0; k < 9; ++k)
    std::filesystem::copy_file(trace, dir + "/t" + std::to_string(k) + ".json",
                               std::filesystem::copy_options::overwrite_existing);
  ServeProcess serve({"--port", "0", "--no-cache", "--no-findings", dir});
  ASSERT_GT(serve.port(), 0) << serve.line() << serve.err();
  httplib::Client client("127.0.0.1", serve.port());
  auto list = client.Get("/api/v1/runs?sort=-name&limit=2");
  ASSERT_TRUE(list);
  EXPECT_NE(list->body.find(R"({"runs":[{"run":8,"name":"t8.json",)"), std::string::npos)
      << list->body;
  EXPECT_NE(list->body.find(R"("total":9,"offset":0})"), std::string::npos) << list->body;
  EXPECT_EQ(list->body.find(R"("ready":true)"), std::string::npos) << list->body;
  auto meta = GetSettled(client, "/api/v1/runs/4/meta");
  ASSERT_TRUE(meta);
  EXPECT_EQ(meta->status, 200) << meta->body << serve.err();
  auto after = client.Get("/api/v1/runs");
  ASSERT_TRUE(after);
  size_t ready = 0;
  for (size_t at = 0; (at = after->body.find(R"("ready":true)", at)) != std::string::npos; ++at)
    ++ready;
  EXPECT_EQ(ready, 1u) << after->body;
  EXPECT_NE(serve.err().find("run 4 ready: t4.json"), std::string::npos) << serve.err();
  auto bad = client.Get("/api/v1/runs?sort=nope");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
}

TEST(ServeCommand, RefusesABadPort) {
  testing::CommandResult r = testing::Tracehound("serve --port 70000 x.json");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--port"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace th
