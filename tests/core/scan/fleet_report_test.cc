#include "core/scan/fleet_report.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include "tests/core/scan/results_fixture.h"
#include "tests/support/postgres_server.h"
#include "tests/support/test_files.h"

namespace th::scan {
namespace {

using th::testing::FixtureRun;
using th::testing::WriteFixtureRun;

constexpr int64_t kMs = 1000000;
constexpr int64_t kNov1 = int64_t{1793491200} * 1000000000;  // 2026-11-01T00:00:00Z
constexpr int64_t kDay = int64_t{86400} * 1000000000;

std::vector<th::testing::FixtureStep> Steps(std::vector<std::vector<int64_t>> per_rank_ms) {
  std::vector<th::testing::FixtureStep> steps;
  for (size_t r = 0; r < per_rank_ms.size(); ++r)
    for (size_t s = 0; s < per_rank_ms[r].size(); ++s)
      steps.push_back({static_cast<int64_t>(r), static_cast<int64_t>(s), per_rank_ms[r][s] * kMs});
  return steps;
}

// Five runs whose figures are worked out by hand in the tests below.
std::vector<FixtureRun> Fleet() {
  FixtureRun a{"ca:p1", "A", "", "ok", "", kNov1, {{0, "h1"}, {1, "h2"}}, {}, {}, "w"};
  a.findings = {
      {"stragglers", 1, "rank 1 is a straggler: last at 93% of collectives", 4.0 * kMs, 1},
      {"idle-launch", 2, "stream 7 idles 11% waiting on the host", std::nullopt, std::nullopt},
      {"overlap", 1, "62% of NCCL time is exposed", 10.0 * kMs, std::nullopt}};
  a.steps = Steps({{100, 110, 120}, {105, 115, 125}});  // median 112.5 ms
  FixtureRun b{"cb:p1", "B", "", "ok", "", kNov1 + kDay, {{0, "h1"}, {1, "h3"}}, {}, {}, "w"};
  b.findings = {
      {"stragglers", 1, "rank 1 is a straggler: last at 71% of collectives", 6.0 * kMs, 1},
      {"idle-launch", 2, "stream 3 idles 40% waiting on the host", std::nullopt, std::nullopt}};
  b.steps = Steps({{100, 100, 100}, {100, 100, 100}});  // 100 ms
  FixtureRun c{"cc:p1", "C", "", "ok", "", kNov1 + 9 * kDay, {{0, "h2"}, {1, "h1"}}, {}, {}, "w"};
  c.findings = {
      {"stragglers", 0, "rank 0 is a straggler: last at 55% of collectives", 1.0 * kMs, 0},
      {"overlap", 2, "80% of NCCL time is exposed", 20.0 * kMs, std::nullopt}};
  c.steps = Steps({{130, 130}, {130, 130}});  // 130 ms
  FixtureRun d{"cd:p1", "D", "", "ok", "", kNov1 + 10 * kDay, {{0, "h4"}}, {}, {}, "w"};
  d.steps = Steps({{104}});
  FixtureRun e{"ce:p1",           "E", "", "failed", "x.json: truncated <gzip> & more",
               kNov1 + 11 * kDay, {},  {}, {},       "w"};
  return {a, b, c, d, e};
}

class FleetReportTest : public ::testing::TestWithParam<SqlDialect> {
 protected:
  void SetUp() override {
    std::string url;
    if (GetParam() == SqlDialect::kSqlite) {
      static int n = 0;
      url = "sqlite:" + th::testing::TempDir() + "/fleet" + std::to_string(++n) + ".db";
    } else {
      std::string why;
      auto* server = th::testing::PostgresServer::Shared(&why);
      if (!server) GTEST_SKIP() << "no PostgreSQL server: " << why;
      url = server->NewDatabase();
    }
    auto db = OpenDatabase(url);
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::move(*db);
    for (const FixtureRun& run : Fleet()) {
      Status s = WriteFixtureRun(*db_, run);
      ASSERT_TRUE(s.ok()) << s.message();
    }
  }
  FleetReport Build(const FleetReportOptions& options = {}) {
    auto report = BuildFleetReport(*db_, options);
    EXPECT_TRUE(report.ok()) << report.status().message();
    return report.ok() ? *report : FleetReport{};
  }
  std::unique_ptr<Database> db_;
};

TEST_P(FleetReportTest, SummaryAndTopFindings) {
  FleetReport r = Build();
  EXPECT_EQ(r.pipelines, 1);
  EXPECT_EQ(r.pipeline_hash, "p1");
  EXPECT_EQ(r.runs, 5);
  EXPECT_EQ(r.runs_ok, 4);
  EXPECT_EQ(r.runs_failed, 1);
  EXPECT_EQ(r.traces, 7);
  EXPECT_EQ(r.hosts, 4);
  EXPECT_EQ(r.findings, 7);
  EXPECT_EQ(r.finding_groups, 3);
  EXPECT_EQ(*r.first_capture_ns, kNov1);
  EXPECT_EQ(*r.last_capture_ns, kNov1 + 11 * kDay);

  ASSERT_EQ(r.by_count.size(), 3u);
  EXPECT_EQ(r.by_count[0].plugin, "stragglers");
  EXPECT_EQ(r.by_count[0].pattern, "rank # is a straggler: last at #% of collectives");
  EXPECT_EQ(r.by_count[0].findings, 3);
  EXPECT_EQ(r.by_count[0].runs, 3);
  EXPECT_EQ(r.by_count[0].worst_severity, FindingSeverity::kP0);
  EXPECT_DOUBLE_EQ(r.by_count[0].time_lost_ns, 11.0 * kMs);
  // Ties on count and runs: by plugin name.
  EXPECT_EQ(r.by_count[1].plugin, "idle-launch");
  EXPECT_EQ(r.by_count[1].pattern, "stream # idles #% waiting on the host");
  EXPECT_EQ(r.by_count[1].worst_severity, FindingSeverity::kP2);
  EXPECT_EQ(r.by_count[1].with_time_lost, 0);  // not reported, not zero
  EXPECT_EQ(r.by_count[0].with_time_lost, 3);
  EXPECT_EQ(r.by_count[2].plugin, "overlap");
  EXPECT_EQ(r.by_count[2].worst_severity, FindingSeverity::kP1);

  ASSERT_EQ(r.by_time_lost.size(), 2u);  // idle-launch reports no time lost
  EXPECT_EQ(r.by_time_lost[0].plugin, "overlap");
  EXPECT_DOUBLE_EQ(r.by_time_lost[0].time_lost_ns, 30.0 * kMs);
  EXPECT_EQ(r.by_time_lost[1].plugin, "stragglers");

  FleetReportOptions top1;
  top1.top = 1;
  FleetReport t = Build(top1);
  ASSERT_EQ(t.by_count.size(), 1u);
  ASSERT_EQ(t.by_time_lost.size(), 1u);
  EXPECT_EQ(t.finding_groups, 3);

  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].name, "E");
  EXPECT_EQ(r.failures[0].error, "x.json: truncated <gzip> & more");
}

// A second pipeline over runs A and B (a plugin upgraded): one pipeline per
// report, the one with the most runs unless --pipeline says otherwise.
TEST_P(FleetReportTest, OnePipelinePerReport) {
  for (FixtureRun run : {Fleet()[0], Fleet()[1]}) {
    run.run_id = run.run_id.substr(0, run.run_id.find(':')) + ":p2";
    run.findings.push_back({"overlap", 0, "99% of NCCL time is exposed", 1e9, std::nullopt});
    ASSERT_TRUE(WriteFixtureRun(*db_, run).ok());
  }
  FleetReport r = Build();
  EXPECT_EQ(r.pipelines, 2);
  EXPECT_EQ(r.pipeline_hash, "p1");
  EXPECT_EQ(r.runs, 5);
  EXPECT_EQ(r.traces, 7);
  EXPECT_EQ(r.findings, 7);
  EXPECT_EQ(r.straggler_ranks.size(), 1u);
  EXPECT_NE(FleetReportMarkdown(r).find("pipeline p1 (of 2 in the database; choose with "
                                        "--pipeline): 5 runs"),
            std::string::npos);
  FleetReportOptions o;
  o.pipeline = "p2";
  r = Build(o);
  EXPECT_EQ(r.runs, 2);
  EXPECT_EQ(r.traces, 4);
  EXPECT_EQ(r.findings, 7);
  EXPECT_EQ(r.by_count[0].worst_severity, FindingSeverity::kP0);
  o.pipeline = "p";
  auto ambiguous = BuildFleetReport(*db_, o);
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_NE(ambiguous.status().message().find("--pipeline 'p' matches 2 of the 2"),
            std::string::npos)
      << ambiguous.status().message();
}

TEST_P(FleetReportTest, RepeatedStragglers) {
  FleetReport r = Build();
  // rank 1: flagged in A and B, present in A, B, C.
  ASSERT_EQ(r.straggler_ranks.size(), 1u);
  const StragglerEntry& rank = r.straggler_ranks[0];
  EXPECT_EQ(rank.key, "rank 1");
  EXPECT_EQ(rank.runs_flagged, 2);
  EXPECT_EQ(rank.runs_seen, 3);
  EXPECT_DOUBLE_EQ(rank.time_lost_ns, 10.0 * kMs);
  EXPECT_EQ(rank.where, (std::vector<std::string>{"h2", "h3"}));
  EXPECT_EQ(rank.last_run, "B (cb:p1)");
  // h2: its rank straggled in A (rank 1) and C (rank 0); it ran in A and C only.
  ASSERT_EQ(r.straggler_hosts.size(), 1u);
  const StragglerEntry& host = r.straggler_hosts[0];
  EXPECT_EQ(host.key, "h2");
  EXPECT_EQ(host.runs_flagged, 2);
  EXPECT_EQ(host.runs_seen, 2);
  EXPECT_DOUBLE_EQ(host.time_lost_ns, 5.0 * kMs);
  EXPECT_EQ(host.where, (std::vector<std::string>{"rank 0", "rank 1"}));
  EXPECT_EQ(host.last_run, "C (cc:p1)");

  FleetReportOptions once;
  once.min_straggler_runs = 1;
  FleetReport all = Build(once);
  ASSERT_EQ(all.straggler_ranks.size(), 2u);
  EXPECT_EQ(all.straggler_ranks[1].key, "rank 0");
  EXPECT_EQ(all.straggler_ranks[1].runs_flagged, 1);
  EXPECT_EQ(all.straggler_ranks[1].runs_seen, 4);
  // h1 ran ranks in A, B, C but never a straggling one.
  ASSERT_EQ(all.straggler_hosts.size(), 2u);
  EXPECT_EQ(all.straggler_hosts[0].key, "h2");
  EXPECT_EQ(all.straggler_hosts[1].key, "h3");
  EXPECT_EQ(all.straggler_hosts[1].runs_seen, 1);
}

TEST_P(FleetReportTest, RegressionsAgainstABaselineRun) {
  FleetReportOptions o;
  o.baseline_run = "A";  // by name
  FleetReport r = Build(o);
  EXPECT_EQ(r.baseline_kind, "run");
  EXPECT_EQ(r.baseline_runs, 1);
  EXPECT_DOUBLE_EQ(r.baseline_median_ns, 112.5 * kMs);
  EXPECT_EQ(r.runs_compared, 3);  // B, C, D; E failed
  ASSERT_EQ(r.regressions.size(), 1u);
  EXPECT_EQ(r.regressions[0].name, "C");
  EXPECT_EQ(r.regressions[0].steps, 4);
  EXPECT_DOUBLE_EQ(r.regressions[0].median_step_ns, 130.0 * kMs);
  EXPECT_DOUBLE_EQ(r.regressions[0].ratio, 130.0 / 112.5);

  o.baseline_run = "cb";  // a run_id prefix; B is the fastest: C and D regress
  o.regression_threshold = 0.03;
  r = Build(o);
  ASSERT_EQ(r.regressions.size(), 3u);
  EXPECT_EQ(r.regressions[0].name, "C");
  EXPECT_EQ(r.regressions[1].name, "A");
  EXPECT_EQ(r.regressions[2].name, "D");
  EXPECT_DOUBLE_EQ(r.regressions[2].ratio, 1.04);
  EXPECT_EQ(r.regressions_total, 3);

  o.top = 2;  // the worst two are listed, all three counted
  r = Build(o);
  ASSERT_EQ(r.regressions.size(), 2u);
  EXPECT_EQ(r.regressions_total, 3);
  EXPECT_EQ(r.regressions[1].name, "A");
  EXPECT_NE(FleetReportMarkdown(r).find("3 of 3 runs compared regress (the worst 2 below)"),
            std::string::npos)
      << FleetReportMarkdown(r);
}

TEST_P(FleetReportTest, RegressionsAgainstATimeWindow) {
  FleetReportOptions o;
  o.since_ns = ParseTimePoint("2026-11-01").value();
  o.until_ns = ParseTimePoint("2026-11-03T00:00Z").value();
  FleetReport r = Build(o);
  EXPECT_EQ(r.baseline_kind, "window");
  EXPECT_EQ(r.baseline_runs, 2);                         // A and B
  EXPECT_DOUBLE_EQ(r.baseline_median_ns, 106.25 * kMs);  // median of 112.5 and 100
  EXPECT_EQ(r.runs_compared, 2);                         // C, D
  ASSERT_EQ(r.regressions.size(), 1u);
  EXPECT_EQ(r.regressions[0].name, "C");
  EXPECT_DOUBLE_EQ(r.regressions[0].ratio, 130.0 / 106.25);

  o.since_ns = ParseTimePoint("2027-01-01").value();
  o.until_ns.reset();
  auto none = BuildFleetReport(*db_, o);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("2027-01-01T00:00:00Z"), std::string::npos)
      << none.status().message();
}

TEST_P(FleetReportTest, BaselineErrorsNameTheValue) {
  FleetReportOptions o;
  o.baseline_run = "nope";
  auto r = BuildFleetReport(*db_, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'nope'"), std::string::npos);
  o.baseline_run = "c";
  r = BuildFleetReport(*db_, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("matches 5 runs"), std::string::npos) << r.status().message();
  o.baseline_run = "E";
  r = BuildFleetReport(*db_, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("failed"), std::string::npos) << r.status().message();
  o.baseline_run = "A";
  o.since_ns = 0;
  r = BuildFleetReport(*db_, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not both"), std::string::npos);
}

TEST_P(FleetReportTest, MarkdownJsonAndHtmlCarryTheFigures) {
  FleetReportOptions o;
  o.baseline_run = "ca:p1";
  FleetReport r = Build(o);
  std::string md = FleetReportMarkdown(r);
  EXPECT_NE(md.find("5 runs (4 ok, 1 failed), 7 traces, 4 hosts"), std::string::npos) << md;
  EXPECT_NE(md.find("| stragglers | rank # is a straggler: last at #% of collectives | P0 | 3 | 3 "
                    "| 75.0% | 11.0 ms |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| idle-launch | stream # idles #% waiting on the host | P2 | 2 | 2 | 50.0% "
                    "| not reported |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| rank 1 | 2 | 3 | 66.7% | h2, h3 | 10.0 ms | B (cb:p1) |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("median step 112 ms (measured, 1 run)"), std::string::npos) << md;
  EXPECT_NE(md.find("| C (cc:p1) | 2026-11-10T00:00:00Z | 130 ms | 1.156x | 4 |"),
            std::string::npos)
      << md;

  std::string json = FleetReportJson(r);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(json).get(doc), simdjson::SUCCESS) << json;
  EXPECT_EQ(doc["summary"]["runs"]["value"].get_double().value(), 5.0);
  EXPECT_EQ(doc["summary"]["runs"]["unit"].get_string().value(), "count");
  EXPECT_TRUE(doc["top_findings_by_count"].at(1)["time_lost"].is_null());
  EXPECT_EQ(
      doc["top_findings_by_count"].at(1)["findings_with_time_lost"]["value"].get_double().value(),
      0.0);
  auto top = doc["top_findings_by_time_lost"].get_array().value();
  EXPECT_EQ(top.size(), 2u);
  EXPECT_EQ(top.at(0)["time_lost"]["value"].get_double().value(), 30.0 * kMs);
  EXPECT_EQ(top.at(0)["time_lost"]["unit"].get_string().value(), "ns");
  EXPECT_EQ(top.at(0)["time_lost"]["kind"].get_string().value(), "inferred");
  auto reg = doc["step_regressions"]["regressions"].get_array().value();
  ASSERT_EQ(reg.size(), 1u);
  EXPECT_DOUBLE_EQ(reg.at(0)["ratio"]["value"].get_double().value(), 130.0 / 112.5);
  EXPECT_EQ(reg.at(0)["median_step"]["kind"].get_string().value(), "measured");
  EXPECT_EQ(doc["straggler_hosts"].at(0)["ranks"].at(1).get_string().value(), "rank 1");
  EXPECT_EQ(doc["failed_runs"].at(0)["error"].get_string().value(),
            "x.json: truncated <gzip> & more");

  std::string html = FleetReportHtml(r);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<style>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_NE(html.find("x.json: truncated &lt;gzip&gt; &amp; more"), std::string::npos);
  EXPECT_NE(html.find("<td>1.156x</td>"), std::string::npos);
}

TEST_P(FleetReportTest, BaselineByLocation) {
  FleetReportOptions o;
  o.baseline_run = "/fleet/A/";  // the location run A was found at
  FleetReport r = Build(o);
  EXPECT_EQ(r.baseline_label, "run A (ca:p1)");
  o.baseline_run = "/fleet";  // the folder of every run
  auto all = BuildFleetReport(*db_, o);
  ASSERT_FALSE(all.ok());
  EXPECT_NE(all.status().message().find("matches 5 runs"), std::string::npos)
      << all.status().message();
}

// Two job families (one pipeline; 2-rank and 8-rank jobs): against one
// global baseline every 8-rank run would regress. Each run is compared with
// its own family only, and only the run that did slow down is flagged.
TEST_P(FleetReportTest, RegressionsCompareARunWithItsJobFamilyOnly) {
  auto add = [&](const std::string& id, const std::string& family, int64_t day, int64_t ms) {
    FixtureRun r{id + ":p2", id, "", "ok", "", kNov1 + day * kDay, {{0, "h1"}}, {}, {}, "w"};
    r.steps = Steps({{ms, ms, ms}});
    ASSERT_TRUE(WriteFixtureRun(*db_, r, family).ok());
  };
  add("s1", "small", 0, 100);  // baseline window: days 0 and 1
  add("s2", "small", 1, 100);
  add("l1", "large", 0, 300);
  add("l2", "large", 1, 300);
  add("s3", "small", 5, 102);
  add("s4", "small", 6, 150);  // the one regression
  add("l3", "large", 5, 305);
  add("l4", "large", 6, 306);
  add("x1", "other", 6, 999);  // a family with no run in the window
  FleetReportOptions o;
  o.pipeline = "p2";
  o.since_ns = kNov1;
  o.until_ns = kNov1 + 2 * kDay;
  FleetReport r = Build(o);
  EXPECT_EQ(r.baseline_runs, 4);
  EXPECT_EQ(r.baseline_families, 2);
  EXPECT_DOUBLE_EQ(r.baseline_median_ns, 200.0 * kMs);  // what one global baseline was
  EXPECT_EQ(r.runs_compared, 4);
  EXPECT_EQ(r.runs_other_family, 1);
  ASSERT_EQ(r.regressions_total, 1);
  EXPECT_EQ(r.regressions[0].name, "s4");
  EXPECT_EQ(r.regressions[0].job_family, "small");
  EXPECT_DOUBLE_EQ(r.regressions[0].baseline_median_ns, 100.0 * kMs);
  EXPECT_DOUBLE_EQ(r.regressions[0].ratio, 1.5);
  std::string json = FleetReportJson(r);
  EXPECT_NE(json.find("\"baseline_families\": {\"value\": 2, \"unit\": \"count\", \"kind\": "
                      "\"measured\"}, \"runs_other_family\": {\"value\": 1, \"unit\": "
                      "\"count\", \"kind\": \"measured\"}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"ratio\": {\"value\": 1.5, \"unit\": \"x\", \"kind\": \"measured\"}, "
                      "\"job_family\": \"small\", \"baseline_median_step\": {\"value\": "
                      "100000000, \"unit\": \"ns\", \"kind\": \"measured\"}}"),
            std::string::npos)
      << json;
  std::string md = FleetReportMarkdown(r);
  EXPECT_NE(md.find("| s4 (s4:p2) | 2026-11-07T00:00:00Z | 150 ms | 1.500x | 3 | 100 ms |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("1 ok runs are of a job family the baseline lacks (not compared)"),
            std::string::npos)
      << md;

  // One baseline run: only its family is compared.
  o.since_ns.reset();
  o.until_ns.reset();
  o.baseline_run = "l1";
  r = Build(o);
  EXPECT_EQ(r.runs_compared, 3);      // l2, l3, l4
  EXPECT_EQ(r.runs_other_family, 5);  // the small runs and x1
  EXPECT_EQ(r.regressions_total, 0);
}

INSTANTIATE_TEST_SUITE_P(Dialects, FleetReportTest,
                         ::testing::Values(SqlDialect::kSqlite, SqlDialect::kPostgres),
                         [](const auto& info) {
                           return info.param == SqlDialect::kSqlite ? "Sqlite" : "Postgres";
                         });

TEST(FleetReport, TitlePatternReplacesNumbers) {
  EXPECT_EQ(TitlePattern("rank 12 waits 3.5 ms at step 7."), "rank # waits # ms at step #.");
  EXPECT_EQ(TitlePattern("no numbers"), "no numbers");
  EXPECT_EQ(TitlePattern("v1.2.3"), "v#.#");
}

TEST(FleetReport, TimePoints) {
  EXPECT_EQ(ParseTimePoint("2026-11-01").value(), kNov1);
  EXPECT_EQ(ParseTimePoint("2026-11-01T00:00:00Z").value(), kNov1);
  EXPECT_EQ(ParseTimePoint("2026-11-01T01:30").value(), kNov1 + int64_t{5400} * 1000000000);
  EXPECT_EQ(ParseTimePoint("1793491200").value(), kNov1);
  for (const char* bad : {"", "yesterday", "2026-13-01", "2026-11-01T25:00", "2026-11-01x",
                          "2026-11-01T00:00:00+02"}) {
    auto t = ParseTimePoint(bad);
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_NE(t.status().message().find(std::string("'") + bad + "'"), std::string::npos);
  }
}

}  // namespace
}  // namespace th::scan
