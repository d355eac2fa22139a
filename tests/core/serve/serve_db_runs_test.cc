// The run browser over the fleet database, as scan writes it (WriteRunRecord),
// in SQLite and in a real PostgreSQL: the summaries (the same bytes from both
// dialects), a run's stored findings, and a run opened in the server answering
// its findings from the database's rows without running the pipeline.
#include "core/serve/serve_db_runs.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>

#include "core/scan/result_writer.h"
#include "core/scan/results_schema.h"
#include "core/serve/serve_router.h"
#include "core/serve/serve_runs_api.h"
#include "tests/core/serve/serve_fixture.h"
#include "tests/support/postgres_server.h"
#include "tests/support/test_files.h"

namespace th::serve {
namespace {

scan::RunRecord Record(int k) {
  scan::RunRecord r;
  r.content_hash = "c" + std::to_string(k);
  r.pipeline_hash = "p";
  r.run_id = r.content_hash + ":" + r.pipeline_hash;
  r.location = "/fleet/week" + std::to_string(k % 2) + "/job" + std::to_string(k) + "/rank*";
  r.name = "job" + std::to_string(k) + "/rank*";
  r.host = "node" + std::to_string(k);
  r.job_family = "family" + std::to_string(k % 2);
  r.verdict = k == 1 ? "OPTIMAL" : "NEEDS_ATTENTION";
  r.exit_code = 0;
  r.ranks = 2 + k;
  r.events = 1000;
  r.captured_at_ns = 1700000000000000000 + k;
  r.bytes = 10;
  r.traces.push_back({r.location, 0, r.host, "f" + std::to_string(k), 10, 1000, "kineto"});
  if (k != 1) {
    Finding info;
    info.plugin = "steps";
    info.severity = FindingSeverity::kInfo;
    info.title = "warm-up";
    Finding late;
    late.plugin = "stragglers";
    late.severity = FindingSeverity::kP1;
    late.title = "rank " + std::to_string(k) + " arrives last";
    late.what = "others wait";
    late.suggestion = "balance";
    late.confidence = 0.5;
    late.scope.rank = k;
    late.evidence = {{"wait", 41.5, "ms", NumberKind::kMeasured},
                     {"share", 38, "%", NumberKind::kInferred}};
    r.findings = {info, late};
  }
  for (int64_t s = 0; s < 4; ++s)
    r.steps.push_back({0, s, 1000 * s, 100 * (k + 1) + (s == 3 ? 50 : s)});
  return r;
}

void Fill(scan::Database& db) {
  ASSERT_TRUE(scan::MigrateResultsSchema(db).ok());
  for (int k = 0; k < 3; ++k) {
    auto written = scan::WriteRunRecord(db, Record(k), false);
    ASSERT_TRUE(written.ok()) << written.status().message();
  }
}

// Steps of run k: 100(k+1) + {0, 1, 2, 50}: lower median 100(k+1) + 1.
constexpr const char* kSummaries =
    R"({"runs":[{"run":1,"name":"job2/rank*","events":0,"origin_ns":"0","end_ns":0,)"
    R"("content_key":"","ready":false,"overview_ready":false,"error":null,)"
    R"("location":"/fleet/week0/job2/rank*","host":"node2","family":"family0",)"
    R"("time_ns":"1700000000000000002",)"
    R"("time_kind":"captured","ranks":4,"verdict":"NEEDS_ATTENTION","findings":2,)"
    R"("top_finding":{"severity":"P1","plugin":"stragglers","title":"rank 2 arrives last"},)"
    R"("steps":4,"step_p50_ns":301,"step_min_ns":300,"step_max_ns":350,)"
    R"("tags":["week0","job2"],"source":"database"},)"
    R"({"run":2,"name":"job1/rank*","events":0,"origin_ns":"0","end_ns":0,)"
    R"("content_key":"","ready":false,"overview_ready":false,"error":null,)"
    R"("location":"/fleet/week1/job1/rank*","host":"node1","family":"family1",)"
    R"("time_ns":"1700000000000000001",)"
    R"("time_kind":"captured","ranks":3,"verdict":"OPTIMAL","findings":0,"top_finding":null,)"
    R"("steps":4,"step_p50_ns":201,"step_min_ns":200,"step_max_ns":250,)"
    R"("tags":["week1","job1"],"source":"database"}],"total":3,"offset":0})";

void CheckDatabase(std::unique_ptr<scan::Database> db) {
  Fill(*db);
  auto version = scan::ResultsSchemaVersion(*db);
  ASSERT_TRUE(version.ok());
  DatabaseRuns reader(std::move(db), *version);
  auto summaries = reader.Summaries();
  ASSERT_TRUE(summaries.ok()) << summaries.status().message();
  ASSERT_EQ(summaries->size(), 3u);
  // Sorted by location: job0, job2 (week0), job1 (week1).
  EXPECT_EQ((*summaries)[0].db_run_id, "c0:p");
  Runs runs;
  for (const RunSummary& s : *summaries)
    runs.push_back(std::make_unique<ServeRun>(s.location, s.name));
  ApiResponse r = RunsResponse(runs, *summaries, {{"sort", "-step_p50"}, {"limit", "2"}});
  EXPECT_EQ(r.body, kSummaries);

  auto findings = reader.Findings("c2:p");
  ASSERT_TRUE(findings.ok()) << findings.status().message();
  ASSERT_EQ(findings->size(), 2u);
  const Finding& late = (*findings)[1];
  EXPECT_EQ(late.plugin, "stragglers");
  EXPECT_EQ(late.severity, FindingSeverity::kP1);
  EXPECT_EQ(late.title, "rank 2 arrives last");
  EXPECT_EQ(late.what, "others wait");
  EXPECT_EQ(late.suggestion, "balance");
  EXPECT_EQ(late.confidence, 0.5);
  EXPECT_EQ(late.scope.rank, 2);
  EXPECT_EQ(late.scope.device, -1);
  ASSERT_EQ(late.evidence.size(), 2u);
  EXPECT_EQ(late.evidence[0].name, "wait");
  EXPECT_EQ(late.evidence[0].value, 41.5);
  EXPECT_EQ(late.evidence[0].unit, "ms");
  EXPECT_EQ(late.evidence[1].kind, NumberKind::kInferred);
  auto none = reader.Findings("c1:p");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(ServeDbRunsTest, SqliteSummariesAndFindings) {
  const std::string path = th::testing::TempDir() + "/" + "serve_db_runs.db";
  std::filesystem::remove(path);
  auto db = scan::OpenDatabase("sqlite:" + path);
  ASSERT_TRUE(db.ok()) << db.status().message();
  CheckDatabase(std::move(*db));
}

TEST(ServeDbRunsTest, PostgresSummariesAndFindings) {
  std::string why;
  auto* server = th::testing::PostgresServer::Shared(&why);
  if (!server) GTEST_SKIP() << "PostgreSQL: " << why;
  auto db = scan::OpenDatabase(server->NewDatabase());
  ASSERT_TRUE(db.ok()) << db.status().message();
  CheckDatabase(std::move(*db));
}

TEST(ServeDbRunsTest, OpenRefusesWhatIsNotAResultsDatabase) {
  auto missing = DatabaseRuns::Open("sqlite:" + th::testing::TempDir() + "/" + "no_such.db");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no such database file"), std::string::npos);
  const std::string empty = th::testing::WriteTempFile("serve_db_empty.db", "");
  auto bare = DatabaseRuns::Open(empty);
  ASSERT_FALSE(bare.ok());
  EXPECT_NE(bare.status().message().find("holds no results of tracehound scan"), std::string::npos)
      << bare.status().message();
}

HttpResponse Get(ServeRouter& router, const std::string& path) {
  HttpRequest req;
  req.method = "GET";
  req.path = req.target = path;
  req.remote_addr = "127.0.0.1";
  return router.Handle(req);
}

// Polls until the findings answer is no longer 503.
HttpResponse Findings(ServeRouter& router, const std::string& run) {
  HttpResponse r;
  for (int i = 0; i < 600; ++i) {
    r = Get(router, "/api/v1/runs/" + run + "/findings");
    if (r.status != 503) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return r;
}

TEST(ServeDbRunsTest, AStoredRunAnswersItsFindingsFromTheDatabaseWithoutThePipeline) {
  const std::string path = th::testing::TempDir() + "/" + "serve_db_open.db";
  std::filesystem::remove(path);
  {
    auto db = scan::OpenDatabase("sqlite:" + path);
    ASSERT_TRUE(db.ok());
    Fill(**db);
  }
  auto reader = DatabaseRuns::Open("sqlite:" + path);
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  auto summaries = (*reader)->Summaries();
  ASSERT_TRUE(summaries.ok());
  const std::string trace = testing::WriteServeFixture("serve_db_open.json");
  Runs runs;
  RunBrowser browser;
  // Run 0: the stored run c2:p; run 1: a run of files the database lacks.
  for (int k = 0; k < 2; ++k) {
    runs.push_back(std::make_unique<ServeRun>(trace, "run" + std::to_string(k)));
    browser.summaries.push_back(k == 0 ? (*summaries)[1] : RunSummary{});
  }
  ASSERT_EQ(browser.summaries[0].db_run_id, "c2:p");
  DatabaseRuns* db = reader->get();
  browser.stored_findings = [db](const std::string& id) { return db->Findings(id); };
  std::atomic<int> pipelines{0};
  FindingsSource pipeline = [&](const std::string&, const TraceSet*) {
    ++pipelines;
    Finding f;
    f.plugin = "pipeline";
    f.title = "from the pipeline";
    return StatusOr<std::vector<Finding>>(std::vector<Finding>{f});
  };
  std::vector<size_t> opened;
  std::mutex opened_mu;
  browser.open_run = [&](size_t run) {
    std::lock_guard lock(opened_mu);
    opened.push_back(run);
  };
  ServeRouter router(&runs, {}, pipeline, browser);
  // A request for a run not loaded asks for its import, and answers 503.
  EXPECT_EQ(Get(router, "/api/v1/runs/0/meta").status, 503);
  EXPECT_EQ(opened, std::vector<size_t>{0});
  for (auto& run : runs) {
    std::string note;
    ASSERT_TRUE(LoadServeRun(run.get(), {}, &note).ok());
  }
  HttpResponse stored = Findings(router, "0");
  ASSERT_EQ(stored.status, 200) << stored.body;
  EXPECT_NE(stored.body.find(R"("title":"rank 2 arrives last")"), std::string::npos);
  EXPECT_NE(stored.body.find(R"("total":2,"source":"database"})"), std::string::npos)
      << stored.body;
  EXPECT_EQ(pipelines.load(), 0);
  HttpResponse computed = Findings(router, "1");
  ASSERT_EQ(computed.status, 200) << computed.body;
  EXPECT_NE(computed.body.find(R"("total":1,"source":"pipeline"})"), std::string::npos)
      << computed.body;
  EXPECT_EQ(pipelines.load(), 1);
  // The list: the stored run keeps the database's summary; the run of files
  // gets its verdict and top finding from the pipeline it ran.
  HttpResponse list = Get(router, "/api/v1/runs");
  EXPECT_NE(list.body.find(R"("verdict":"NEEDS_ATTENTION","findings":2,"top_finding":)"
                           R"({"severity":"P1","plugin":"stragglers")"),
            std::string::npos)
      << list.body;
  EXPECT_NE(list.body.find(R"("verdict":"NEEDS_ATTENTION","findings":1,"top_finding":)"
                           R"({"severity":"P2","plugin":"pipeline","title":"from the pipeline"})"),
            std::string::npos)
      << list.body;
}

}  // namespace
}  // namespace th::serve
