// The run browser of `tracehound serve --db` over a generated fleet: N runs
// written into a results database the way `tracehound scan` writes them
// (scan::WriteRunRecord: runs, traces, findings, steps), in SQLite and in a
// PostgreSQL started for the purpose (tests/support/postgres_server.h); then
// the time to read the summaries at start (DatabaseRuns::Summaries: three
// queries) and the time of GET /api/v1/runs answers (list, sort, filter,
// page) through the server's router (ServeRouter::Handle: parsing, sorting,
// filtering, the JSON; not the loopback transfer), medians over repeats.
//
//   serve_runs_benchmark [--runs 1000] [--repeat 21] [--no-postgres] [--sqlite PATH]
//
// A driver, not Google Benchmark. Times are wall clock.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/scan/result_writer.h"
#include "core/scan/results_schema.h"
#include "core/serve/serve_api.h"
#include "core/serve/serve_db_runs.h"
#include "core/serve/serve_router.h"
#include "tests/support/postgres_server.h"
#include "tests/support/test_files.h"

namespace {

using Clock = std::chrono::steady_clock;
using th::Finding;
using th::FindingSeverity;
using th::NumberKind;

double Ms(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Run i of the fleet: 8 ranks x 20 steps, 5 findings, in one of 10 weeks
// and 40 jobs, every 7th one OPTIMAL.
th::scan::RunRecord FleetRun(int i) {
  th::scan::RunRecord r;
  r.content_hash = "content" + std::to_string(i);
  r.pipeline_hash = "pipeline";
  r.run_id = r.content_hash + ":" + r.pipeline_hash;
  r.location = "/fleet/week" + std::to_string(i % 10) + "/job" + std::to_string(i % 40) + "/run" +
               std::to_string(i) + "/rank*";
  r.name = "run" + std::to_string(i) + "/rank*";
  r.host = "node" + std::to_string(i % 64);
  r.verdict = i % 7 == 0 ? "OPTIMAL" : "NEEDS_ATTENTION";
  r.exit_code = 0;
  r.ranks = 8;
  r.events = 1000000;
  r.captured_at_ns = 1700000000000000000 + static_cast<int64_t>(i) * 3600000000000;
  r.bytes = 1 << 30;
  for (int64_t rank = 0; rank < 8; ++rank) {
    r.traces.push_back({r.location + "/rank" + std::to_string(rank), rank, r.host,
                        "file" + std::to_string(i * 8 + rank), 1 << 27, 125000, "kineto"});
    for (int64_t s = 0; s < 20; ++s)
      r.steps.push_back(
          {rank, s, s * 100000000, 90000000 + ((i * 7919 + rank * 31 + s) % 1000) * 17000});
  }
  if (i % 7 != 0) {
    for (int k = 0; k < 5; ++k) {
      Finding f;
      f.plugin = k == 0 ? "stragglers" : "overlap";
      f.severity = static_cast<FindingSeverity>((i + k) % 4);
      f.title = f.plugin + " finding " + std::to_string(k) + " of run " + std::to_string(i);
      f.what = "what is happening";
      f.suggestion = "what to change";
      f.evidence = {{"wait", 41.5, "ms", NumberKind::kMeasured}};
      r.findings.push_back(std::move(f));
    }
  }
  return r;
}

bool Fill(th::scan::Database& db, int runs) {
  if (!th::scan::MigrateResultsSchema(db).ok()) return false;
  for (int i = 0; i < runs; ++i) {
    auto written = th::scan::WriteRunRecord(db, FleetRun(i), false);
    if (!written.ok()) {
      std::fprintf(stderr, "write: %s\n", written.status().message().c_str());
      return false;
    }
  }
  return true;
}

void Measure(const std::string& label, const std::string& url, int runs, int repeat) {
  Clock::time_point start = Clock::now();
  {
    auto db = th::scan::OpenDatabase(url);
    if (!db.ok() || !Fill(**db, runs)) {
      std::fprintf(stderr, "%s: cannot fill %s\n", label.c_str(), url.c_str());
      return;
    }
  }
  std::printf("%s: %d runs written as scan writes them in %.0f ms\n", label.c_str(), runs,
              Ms(start));
  auto reader = th::serve::DatabaseRuns::Open(url);
  if (!reader.ok()) return;
  std::vector<double> read_ms;
  std::vector<th::serve::RunSummary> summaries;
  for (int k = 0; k < repeat; ++k) {
    start = Clock::now();
    auto s = (*reader)->Summaries();
    read_ms.push_back(Ms(start));
    if (s.ok()) summaries = std::move(*s);
  }
  std::printf("%s: summaries read (3 queries) median %.1f ms\n", label.c_str(), Median(read_ms));
  th::serve::Runs served;
  th::serve::RunBrowser browser;
  for (const auto& s : summaries)
    served.push_back(std::make_unique<th::serve::ServeRun>(s.location, s.name));
  browser.summaries = summaries;
  th::serve::ServeRouter router(&served, {}, nullptr, browser);
  const std::vector<std::pair<std::string, th::serve::QueryParams>> queries = {
      {"list (all runs)", {}},
      {"list, first page of 200", {{"limit", "200"}}},
      {"sort -step_p50, page", {{"sort", "-step_p50"}, {"limit", "200"}}},
      {"sort time, all", {{"sort", "time"}}},
      {"sort severity, page", {{"sort", "severity"}, {"limit", "200"}}},
      {"filter q=job12", {{"q", "job12"}}},
      {"filter tag+verdict, sort -time",
       {{"tag", "week3"}, {"verdict", "OPTIMAL"}, {"sort", "-time"}}},
      {"filter q=stragglers, sort -ranks", {{"q", "stragglers"}, {"sort", "-ranks"}}},
  };
  for (const auto& [name, params] : queries) {
    th::serve::HttpRequest req;
    req.method = "GET";
    req.path = req.target = "/api/v1/runs";
    req.params = params;
    req.remote_addr = "127.0.0.1";
    std::vector<double> ms;
    size_t bytes = 0;
    for (int k = 0; k < repeat; ++k) {
      start = Clock::now();
      th::serve::HttpResponse r = router.Handle(req);
      ms.push_back(Ms(start));
      bytes = r.body.size();
      if (r.status != 200) std::fprintf(stderr, "%s: status %d\n", name.c_str(), r.status);
    }
    std::printf("%s: %-36s median %6.2f ms, max %6.2f ms, %zu bytes\n", label.c_str(), name.c_str(),
                Median(ms), *std::max_element(ms.begin(), ms.end()), bytes);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 1000, repeat = 21;
  bool postgres = true;
  std::string path = th::testing::TempDir() + "/fleet.db";
  for (int k = 1; k < argc; ++k) {
    std::string a = argv[k];
    if (a == "--runs" && k + 1 < argc)
      runs = std::atoi(argv[++k]);
    else if (a == "--repeat" && k + 1 < argc)
      repeat = std::atoi(argv[++k]);
    else if (a == "--no-postgres")
      postgres = false;
    else if (a == "--sqlite" && k + 1 < argc)
      path = argv[++k];
    else {
      std::fprintf(
          stderr,
          "usage: serve_runs_benchmark [--runs N] [--repeat N] [--no-postgres] [--sqlite PATH]\n");
      return 2;
    }
  }
  std::filesystem::remove(path);
  Measure("sqlite", "sqlite:" + path, runs, repeat);
  if (postgres) {
    std::string why;
    auto* server = th::testing::PostgresServer::Shared(&why);
    if (!server) {
      std::printf("postgresql: skipped (%s)\n", why.c_str());
      return 0;
    }
    Measure("postgresql", server->NewDatabase(), runs, repeat);
  }
  return 0;
}
