// RunScan over small generated fleets, on SQLite and on a real PostgreSQL
// server: one row per run and per trace, the pipeline's own metrics, failures
// recorded and the scan going on, reruns adding nothing, the same rows
// whatever the job count and run order.
#include "core/scan/scanner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include "core/pipeline/pipeline_loader.h"
#include "core/pipeline/pipeline_runner.h"
#include "core/plugin/plugin_host.h"
#include "core/report/finding_groups.h"
#include "core/scan/content_hash.h"
#include "core/scan/database_merge.h"
#include "core/scan/fleet_report.h"
#include "core/scan/result_writer.h"
#include "core/scan/results_schema.h"
#include "core/synth/kineto_generator.h"
#include "tests/support/postgres_server.h"
#include "tests/support/test_files.h"

namespace th::scan {
namespace {

namespace fs = std::filesystem;

// Hands out runs last to first (another order than the local dispatcher).
class ReverseDispatcher final : public RunDispatcher {
 public:
  explicit ReverseDispatcher(size_t n) : next_(n) {}
  std::optional<size_t> Next() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (next_ == 0) return std::nullopt;
    return --next_;
  }

 private:
  std::mutex mu_;
  size_t next_;
};

struct Plugins {
  PluginRegistry registry;
  Pipeline pipeline;
};

const Plugins& FleetPipeline() {
  static const Plugins* p = [] {
    SetPluginLogLevel(1);  // the plugins' notes would fill the test log
    auto* out = new Plugins;
    Status s = out->registry.LoadDirectories({TRACEHOUND_PLUGIN_DIR});
    EXPECT_TRUE(s.ok()) << s.message();
    auto pipeline = LoadPipeline(std::string(TRACEHOUND_SOURCE_DIR) + "/configs/fleet-scan.yaml",
                                 out->registry.Declarations());
    EXPECT_TRUE(pipeline.ok()) << pipeline.status().message();
    if (pipeline.ok()) out->pipeline = std::move(*pipeline);
    return out;
  }();
  return *p;
}

// <TempDir>/<name>/run<i>/rank<r>.pt.trace.json.gz for i < runs, 2 ranks
// each, seed = first_seed + i; plus, when `corrupt`, bad/rank0... truncated.
std::string MakeFleet(const std::string& name, int runs, bool corrupt, int first_seed = 1) {
  std::string dir = th::testing::TempDir() + "/" + name;
  for (int i = 0; i < runs; ++i) {
    synth::Scenario s;
    s.ranks = 2;
    s.steps = 3;
    s.kernels_per_step = 12;
    s.collectives_per_step = 2;
    s.seed = static_cast<uint64_t>(first_seed + i);
    s.straggler_rank = i % 3 == 0 ? 1 : -1;
    auto paths = synth::WriteKinetoTraces(s, dir + "/run" + std::to_string(i), true, nullptr);
    EXPECT_TRUE(paths.ok()) << paths.status().message();
  }
  if (corrupt) {
    std::string good = th::testing::ReadFile(dir + "/run0/rank0.pt.trace.json.gz");
    th::testing::WriteTempFile(name + "/bad/rank0.pt.trace.json.gz",
                               std::string_view(good).substr(0, good.size() / 2));
  }
  return dir;
}

class ScannerTest : public ::testing::TestWithParam<SqlDialect> {
 protected:
  std::unique_ptr<Database> NewDb() {
    std::string url;
    if (GetParam() == SqlDialect::kSqlite) {
      static int n = 0;
      url = "sqlite:" + th::testing::TempDir() + "/scan" + std::to_string(++n) + ".db";
    } else {
      std::string why;
      auto* server = th::testing::PostgresServer::Shared(&why);
      if (!server) {
        skip_ = "no PostgreSQL server: " + why;
        return nullptr;
      }
      url = server->NewDatabase();
    }
    auto db = OpenDatabase(url);
    EXPECT_TRUE(db.ok()) << db.status().message();
    if (!db.ok()) return nullptr;
    Status s = MigrateResultsSchema(**db);
    EXPECT_TRUE(s.ok()) << s.message();
    return std::move(*db);
  }
  ScanOptions Options(int jobs) {
    ScanOptions o;
    o.pipeline = &FleetPipeline().pipeline;
    o.registry = &FleetPipeline().registry;
    o.jobs = jobs;
    o.memory_bytes = 2ull << 30;
    return o;
  }
  static int64_t Count(Database& db, const std::string& sql) {
    auto rows = db.Query(sql);
    EXPECT_TRUE(rows.ok()) << rows.status().message();
    return rows.ok() ? SqlInt(rows->rows[0][0]) : -1;
  }
  std::string Name(const std::string& base) {
    return base + (GetParam() == SqlDialect::kSqlite ? "-sqlite" : "-pg");
  }
  std::string skip_;
};

TEST_P(ScannerTest, WritesEveryRunWithThePipelinesMetricsAndRecordsTheCorruptOne) {
  std::string fleet = MakeFleet(Name("fleet-a"), 4, true);
  auto runs = DiscoverRuns({fleet});
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs->size(), 5u);
  auto db = NewDb();
  if (!skip_.empty()) GTEST_SKIP() << skip_;
  ASSERT_TRUE(db);
  LocalRunDispatcher dispatcher(runs->size());
  auto summary = RunScan(Options(2), *runs, dispatcher, *db, nullptr);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->handled, 5u);
  EXPECT_EQ(summary->scanned, 4u);
  EXPECT_EQ(summary->failed, 1u);
  EXPECT_EQ(ScanExitCode(*summary), 11);
  ASSERT_EQ(summary->failures.size(), 1u);
  EXPECT_NE(summary->failures[0].find("bad/rank0.pt.trace.json.gz"), std::string::npos)
      << summary->failures[0];

  EXPECT_EQ(Count(*db, "SELECT COUNT(*) FROM runs"), 5);
  EXPECT_EQ(Count(*db, "SELECT COUNT(*) FROM runs WHERE status = 'failed'"), 1);
  auto failed = db->Query("SELECT location, error, traces FROM runs WHERE status = 'failed'");
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(SqlText(failed->rows[0][0]), fleet + "/bad/rank*");
  EXPECT_NE(SqlText(failed->rows[0][1]).find(fleet + "/bad/rank0.pt.trace.json.gz"),
            std::string::npos)
      << SqlText(failed->rows[0][1]);
  EXPECT_EQ(SqlInt(failed->rows[0][2]), 1);
  EXPECT_EQ(Count(*db, "SELECT COUNT(*) FROM traces"), 4 * 2 + 1);

  // Each ok run holds exactly the metrics, findings and steps the pipeline
  // reports when run on the same files directly.
  const Plugins& p = FleetPipeline();
  for (const scan::Run& run : *runs) {
    if (run.name.find("bad") != std::string::npos) continue;
    SCOPED_TRACE(run.location);
    std::vector<std::string> paths;
    for (const RunFile& f : run.files) paths.push_back(f.path);
    auto direct = RunPipeline(p.pipeline, p.registry, paths);
    ASSERT_TRUE(direct.ok()) << direct.status().message();
    const PluginResults& r = (*direct)->report.results;
    // The shipped fleet pipeline runs every plugin cleanly on these runs.
    ASSERT_EQ((*direct)->report.plugins.size(), p.pipeline.plugins.size());
    for (const PluginOutcome& o : (*direct)->report.plugins) EXPECT_TRUE(o.ok) << o.id << o.error;
    auto id = db->Query("SELECT run_id, verdict, ranks, events FROM runs WHERE location = $1",
                        {run.location});
    ASSERT_TRUE(id.ok());
    ASSERT_EQ(id->rows.size(), 1u);
    SqlValue run_id = id->rows[0][0];
    EXPECT_EQ(SqlText(id->rows[0][1]), Verdict((*direct)->report));
    EXPECT_EQ(SqlInt(id->rows[0][2]), 2);
    int64_t events = 0;
    for (const auto& t : (*direct)->traces.traces) events += t->graph.events.size();
    EXPECT_EQ(SqlInt(id->rows[0][3]), events);
    auto metrics = db->Query(
        "SELECT plugin, name, unit, value, rank FROM metrics WHERE run_id = $1 ORDER BY seq",
        {run_id});
    ASSERT_TRUE(metrics.ok());
    ASSERT_EQ(metrics->rows.size(), r.metrics.size());
    ASSERT_GT(r.metrics.size(), 10u);
    for (size_t i = 0; i < r.metrics.size(); ++i) {
      const Metric& m = r.metrics[i];
      EXPECT_EQ(SqlText(metrics->rows[i][0]), m.plugin);
      EXPECT_EQ(SqlText(metrics->rows[i][1]), m.name);
      if (std::isfinite(m.value)) {
        EXPECT_EQ(SqlDouble(metrics->rows[i][3]), m.value) << m.name;
      } else {
        EXPECT_TRUE(SqlIsNull(metrics->rows[i][3])) << m.name;
      }
      EXPECT_EQ(SqlIsNull(metrics->rows[i][4]) ? -1 : SqlInt(metrics->rows[i][4]), m.scope.rank);
    }
    auto findings = db->Query(
        "SELECT plugin, title, severity, time_lost_ns FROM findings WHERE run_id = $1 ORDER BY "
        "seq",
        {run_id});
    ASSERT_TRUE(findings.ok());
    ASSERT_EQ(findings->rows.size(), r.findings.size());
    for (size_t i = 0; i < r.findings.size(); ++i) {
      EXPECT_EQ(SqlText(findings->rows[i][1]), r.findings[i].title);
      EXPECT_EQ(SqlInt(findings->rows[i][2]), SeverityCode(r.findings[i].severity));
      auto lost = FindingTimeLostNs(r.findings[i]);
      EXPECT_EQ(SqlIsNull(findings->rows[i][3]), !lost.has_value());
    }
    const DerivedTable& steps = r.tables.at("steps");
    auto rows = db->Query(
        "SELECT rank, step, dur_ns FROM steps WHERE run_id = $1 ORDER BY "
        "rank, start_ns",
        {run_id});
    ASSERT_TRUE(rows.ok());
    ASSERT_EQ(rows->rows.size(), steps.rows);
    EXPECT_EQ(steps.rows, 2u * 3u);
    const auto& dur = std::get<std::vector<int64_t>>(steps.Find("dur")->values);
    for (size_t i = 0; i < steps.rows; ++i) EXPECT_EQ(SqlInt(rows->rows[i][2]), dur[i]);
  }
  // Findings with a time evidence carry it as their time lost.
  EXPECT_GT(Count(*db, "SELECT COUNT(*) FROM findings WHERE time_lost_ns > 0"), 0);
}

TEST_P(ScannerTest, RerunSkipsWhatIsStoredAndRetriesFailuresOnlyWhenAsked) {
  std::string fleet = MakeFleet(Name("fleet-b"), 3, true, 20);
  auto runs = DiscoverRuns({fleet});
  ASSERT_TRUE(runs.ok());
  auto db = NewDb();
  if (!skip_.empty()) GTEST_SKIP() << skip_;
  ASSERT_TRUE(db);
  LocalRunDispatcher first(runs->size());
  ASSERT_TRUE(RunScan(Options(2), *runs, first, *db, nullptr).ok());
  auto before = DumpResultsContent(*db);
  ASSERT_TRUE(before.ok());

  // The rescan scans nothing, and still counts the stored failure: its
  // summary and exit status say what the database holds.
  LocalRunDispatcher second(runs->size());
  auto again = RunScan(Options(2), *runs, second, *db, nullptr);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->skipped, 3u);
  EXPECT_EQ(again->scanned, 0u);
  EXPECT_EQ(again->failed, 1u);
  EXPECT_EQ(again->failed_stored, 1u);
  EXPECT_EQ(ScanExitCode(*again), 11);
  ASSERT_EQ(again->failures.size(), 1u);
  EXPECT_EQ(
      again->failures[0].rfind(fleet + "/bad/rank*: " + fleet + "/bad/rank0.pt.trace.json.gz", 0),
      0u)
      << again->failures[0];
  EXPECT_NE(again->failures[0].find("(stored by an earlier scan)"), std::string::npos);
  auto after = DumpResultsContent(*db);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, *before);

  ScanOptions retry = Options(1);
  retry.retry_failed = true;
  LocalRunDispatcher third(runs->size());
  auto retried = RunScan(retry, *runs, third, *db, nullptr);
  ASSERT_TRUE(retried.ok());
  EXPECT_EQ(retried->skipped, 3u);
  EXPECT_EQ(retried->failed, 1u);
  auto retried_rows = DumpResultsContent(*db);
  ASSERT_TRUE(retried_rows.ok());
  EXPECT_EQ(*retried_rows, *before);

  // The corrupt file is fixed: the run at its location is scanned and its
  // failure row goes.
  std::string good = th::testing::ReadFile(fleet + "/run1/rank0.pt.trace.json.gz");
  th::testing::WriteTempFile(Name("fleet-b") + "/bad/rank0.pt.trace.json.gz", good);
  LocalRunDispatcher fourth(runs->size());
  auto fixed = RunScan(Options(2), *runs, fourth, *db, nullptr);
  ASSERT_TRUE(fixed.ok());
  EXPECT_EQ(fixed->scanned, 1u);
  EXPECT_EQ(fixed->skipped, 3u);
  EXPECT_EQ(Count(*db, "SELECT COUNT(*) FROM runs WHERE status = 'failed'"), 0);
  EXPECT_EQ(Count(*db, "SELECT COUNT(*) FROM runs"), 4);
  EXPECT_EQ(Count(*db, "SELECT COUNT(*) FROM traces"), 3 * 2 + 1);
}

TEST_P(ScannerTest, SameRowsWhateverTheJobCountAndOrder) {
  std::string fleet = MakeFleet(Name("fleet-c"), 5, true, 40);
  // A copy of run1 elsewhere: the same content, kept once at the smaller
  // location whichever copy is scanned first.
  fs::copy(fleet + "/run1", fleet + "/zcopy", fs::copy_options::recursive);
  fs::copy(fleet + "/run1", fleet + "/acopy", fs::copy_options::recursive);
  auto runs = DiscoverRuns({fleet});
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 8u);
  auto one = NewDb();
  if (!skip_.empty()) GTEST_SKIP() << skip_;
  auto three = NewDb();
  ASSERT_TRUE(one && three);
  LocalRunDispatcher forward(runs->size());
  auto a = RunScan(Options(1), *runs, forward, *one, nullptr);
  ReverseDispatcher backward(runs->size());
  auto b = RunScan(Options(3), *runs, backward, *three, nullptr);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->skipped, 2u);  // the copies after acopy
  auto rows_one = DumpResultsContent(*one);
  auto rows_three = DumpResultsContent(*three);
  ASSERT_TRUE(rows_one.ok() && rows_three.ok());
  EXPECT_EQ(*rows_one, *rows_three);
  EXPECT_EQ(Count(*one, "SELECT COUNT(*) FROM runs"), 6);
  auto kept = one->Query("SELECT COUNT(*) FROM runs WHERE location = $1", {fleet + "/acopy/rank*"});
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(SqlInt(kept->rows[0][0]), 1);
  // Every location of the duplicated content is kept, with its name, in
  // both scans (the reverse one replaced zcopy's row by acopy's).
  for (Database* db : {one.get(), three.get()}) {
    auto places = db->Query(
        "SELECT l.location, l.name, r.location, r.name FROM run_locations l JOIN runs r ON "
        "r.run_id = l.run_id WHERE r.location = $1 ORDER BY l.location",
        {fleet + "/acopy/rank*"});
    ASSERT_TRUE(places.ok()) << places.status().message();
    std::string got;
    for (const SqlRow& row : places->rows)
      got += SqlText(row[0]) + "|" + SqlText(row[1]) + "|" + SqlText(row[2]) + "|" +
             SqlText(row[3]) + "\n";
    EXPECT_EQ(got, fleet + "/acopy/rank*|acopy|" + fleet + "/acopy/rank*|acopy\n" + fleet +
                       "/run1/rank*|run1|" + fleet + "/acopy/rank*|acopy\n" + fleet +
                       "/zcopy/rank*|zcopy|" + fleet + "/acopy/rank*|acopy\n");
  }
  EXPECT_EQ(Count(*one, "SELECT COUNT(*) FROM run_locations"), 8);
  // A rescan adds no location twice.
  LocalRunDispatcher again(runs->size());
  auto rescan = RunScan(Options(2), *runs, again, *one, nullptr);
  ASSERT_TRUE(rescan.ok());
  EXPECT_EQ(Count(*one, "SELECT COUNT(*) FROM run_locations"), 8);
  auto rows_again = DumpResultsContent(*one);
  ASSERT_TRUE(rows_again.ok());
  EXPECT_EQ(*rows_again, *rows_one);
}

TEST_P(ScannerTest, AFileThatIsNotATraceIsLeftOutOfItsRun) {
  std::string fleet = MakeFleet(Name("fleet-d"), 1, false, 60);
  // Named like a rank file, so it joins run0; a JSON document, not a trace.
  th::testing::WriteTempFile(Name("fleet-d") + "/run0/rank9.pt.trace.json", "{\"config\": 1}");
  th::testing::WriteTempFile(Name("fleet-d") + "/notes/summary.json", "{\"config\": 2}");
  auto runs = DiscoverRuns({fleet});
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  ASSERT_EQ((*runs)[1].files.size(), 3u);
  auto db = NewDb();
  if (!skip_.empty()) GTEST_SKIP() << skip_;
  ASSERT_TRUE(db);
  LocalRunDispatcher dispatcher(runs->size());
  auto summary = RunScan(Options(1), *runs, dispatcher, *db, nullptr);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->scanned, 1u);
  EXPECT_EQ(summary->not_traces, 1u);  // notes/summary.json, a run of its own
  EXPECT_EQ(summary->failed, 0u);
  EXPECT_EQ(Count(*db, "SELECT COUNT(*) FROM runs"), 1);
  EXPECT_EQ(Count(*db, "SELECT COUNT(*) FROM traces"), 2);
  EXPECT_EQ(Count(*db, "SELECT ranks FROM runs"), 2);
}

TEST_P(ScannerTest, AFileGoneAfterDiscoveryIsAFailureNamingIt) {
  std::string fleet = MakeFleet(Name("fleet-e"), 2, false, 70);
  auto runs = DiscoverRuns({fleet});
  ASSERT_TRUE(runs.ok());
  std::string gone = fleet + "/run1/rank1.pt.trace.json.gz";
  ASSERT_TRUE(fs::remove(gone));
  auto db = NewDb();
  if (!skip_.empty()) GTEST_SKIP() << skip_;
  ASSERT_TRUE(db);
  LocalRunDispatcher dispatcher(runs->size());
  auto summary = RunScan(Options(2), *runs, dispatcher, *db, nullptr);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->scanned, 1u);
  ASSERT_EQ(summary->failed, 1u);
  auto row = db->Query("SELECT content_hash, error FROM runs WHERE status = 'failed'");
  ASSERT_TRUE(row.ok());
  ASSERT_EQ(row->rows.size(), 1u);
  EXPECT_EQ(SqlText(row->rows[0][0]).rfind("unreadable-", 0), 0u);
  EXPECT_NE(SqlText(row->rows[0][1]).find(gone), std::string::npos) << SqlText(row->rows[0][1]);
  // Rerun: the same failure is not scanned again, and still counts.
  LocalRunDispatcher again(runs->size());
  auto rerun = RunScan(Options(2), *runs, again, *db, nullptr);
  ASSERT_TRUE(rerun.ok());
  EXPECT_EQ(rerun->skipped, 1u);
  EXPECT_EQ(rerun->failed, 1u);
  EXPECT_EQ(rerun->failed_stored, 1u);
}

// The pipeline is recoverable from the database: its stored YAML, loaded as
// a pipeline file with the same plugins, has the stored hash again.
TEST_P(ScannerTest, StoresThePipelineTheSignatureAndTheFindingGroupKeys) {
  std::string fleet = MakeFleet(Name("fleet-f"), 3, false, 80);
  auto runs = DiscoverRuns({fleet});
  ASSERT_TRUE(runs.ok());
  auto db = NewDb();
  if (!skip_.empty()) GTEST_SKIP() << skip_;
  ASSERT_TRUE(db);
  LocalRunDispatcher dispatcher(runs->size());
  ASSERT_TRUE(RunScan(Options(2), *runs, dispatcher, *db, nullptr).ok());
  const Plugins& p = FleetPipeline();
  const std::string hash = PipelineHash(p.pipeline, p.registry);

  auto stored = db->Query(
      "SELECT pipeline_hash, yaml, plugin_versions, tracehound_version FROM "
      "pipelines");
  ASSERT_TRUE(stored.ok()) << stored.status().message();
  ASSERT_EQ(stored->rows.size(), 1u);
  EXPECT_EQ(SqlText(stored->rows[0][0]), hash);
  std::string versions = "{";
  for (const PluginStep& step : p.pipeline.plugins) {
    if (!step.enabled) continue;
    versions += std::string(versions.size() > 1 ? ", " : "") + "\"" + step.id + "\": \"" +
                p.registry.Find(step.id)->declaration.version + "\"";
  }
  versions += "}";
  EXPECT_EQ(SqlText(stored->rows[0][2]), versions);
  EXPECT_EQ(SqlText(stored->rows[0][3]), TRACEHOUND_PROJECT_VERSION);
  std::string yaml_path =
      th::testing::WriteTempFile(Name("recovered") + ".yaml", SqlText(stored->rows[0][1]));
  auto recovered = LoadPipeline(yaml_path, p.registry.Declarations());
  ASSERT_TRUE(recovered.ok()) << recovered.status().message() << "\n"
                              << SqlText(stored->rows[0][1]);
  EXPECT_EQ(PipelineHash(*recovered, p.registry), hash);
  // A second scan of the same pipeline adds no row.
  LocalRunDispatcher again(runs->size());
  ASSERT_TRUE(RunScan(Options(1), *runs, again, *db, nullptr).ok());
  EXPECT_EQ(Count(*db, "SELECT COUNT(*) FROM pipelines"), 1);

  size_t multi = 0;
  std::set<std::string> families;
  for (const scan::Run& run : *runs) {
    SCOPED_TRACE(run.location);
    std::vector<std::string> paths;
    for (const RunFile& f : run.files) paths.push_back(f.path);
    auto direct = RunPipeline(p.pipeline, p.registry, paths);
    ASSERT_TRUE(direct.ok()) << direct.status().message();
    auto row = db->Query("SELECT run_id, signature, job_family FROM runs WHERE location = $1",
                         {run.location});
    ASSERT_TRUE(row.ok());
    ASSERT_EQ(row->rows.size(), 1u);
    // Signature: 2 ranks, one GPU each, the five kernels launched most.
    const std::string signature = SqlText(row->rows[0][1]);
    EXPECT_EQ(signature.rfind("{\"ranks\": 2, \"devices\": 2, \"top_kernels\": [\"", 0), 0u)
        << signature;
    std::map<std::string, int64_t> launches;
    for (const auto& t : (*direct)->traces.traces)
      for (size_t e = 0; e < t->graph.events.size(); ++e)
        if (t->graph.events.kind[e] == EventKind::kKernel)
          ++launches[std::string(t->graph.strings.Get(t->graph.events.name[e]))];
    std::vector<std::pair<int64_t, std::string>> order;
    for (const auto& [name, n] : launches) order.push_back({-n, name});
    std::sort(order.begin(), order.end());
    std::string kernels;
    for (size_t i = 0; i < 5 && i < order.size(); ++i)
      kernels += std::string(i ? ", " : "") + "\"" + order[i].second + "\"";
    EXPECT_EQ(signature, "{\"ranks\": 2, \"devices\": 2, \"top_kernels\": [" + kernels + "]}");
    EXPECT_EQ(SqlText(row->rows[0][2]), HashBytes(hash + "\n" + signature));
    families.insert(SqlText(row->rows[0][2]));

    // SQL groups the run's findings as the report does.
    std::set<std::tuple<std::string, std::string, int64_t, int64_t>> want, got;
    const std::vector<Finding>& findings = (*direct)->report.results.findings;
    for (const th::FindingGroup& g : GroupFindings(findings).groups) {
      const Finding& first = findings[g.members.front()];
      want.insert({g.plugin, first.group.empty() ? first.title : first.group,
                   static_cast<int64_t>(g.members.size()), SeverityCode(g.severity)});
      multi += g.members.size() > 1;
    }
    auto groups = db->Query(
        "SELECT plugin, group_key, COUNT(*), MIN(severity) FROM findings WHERE run_id = $1 "
        "GROUP BY plugin, group_key",
        {row->rows[0][0]});
    ASSERT_TRUE(groups.ok()) << groups.status().message();
    for (const SqlRow& g : groups->rows)
      got.insert({SqlText(g[0]), SqlText(g[1]), SqlInt(g[2]), SqlInt(g[3])});
    EXPECT_EQ(got, want);
  }
  EXPECT_GT(multi, 0u) << "no group of several findings: the check above groups nothing";
  EXPECT_EQ(families.size(), 1u) << "runs of one job shape are one family";
}

// --baseline names a run by its folder, its location or its name; two runs
// that share a file name are told apart.
TEST_P(ScannerTest, BaselineByFolderLocationOrName) {
  std::string fleet = MakeFleet(Name("fleet-g"), 2, false, 90);
  std::string one = th::testing::ReadFile(fleet + "/run0/rank0.pt.trace.json.gz");
  std::string two = th::testing::ReadFile(fleet + "/run1/rank0.pt.trace.json.gz");
  th::testing::WriteTempFile(Name("fleet-g") + "/team-a/trace.json.gz", one);
  th::testing::WriteTempFile(Name("fleet-g") + "/team-b/trace.json.gz", two);
  auto runs = DiscoverRuns({fleet});
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 4u);
  auto db = NewDb();
  if (!skip_.empty()) GTEST_SKIP() << skip_;
  ASSERT_TRUE(db);
  LocalRunDispatcher dispatcher(runs->size());
  ASSERT_TRUE(RunScan(Options(2), *runs, dispatcher, *db, nullptr).ok());
  auto names = db->Query("SELECT name FROM runs ORDER BY location");
  ASSERT_TRUE(names.ok());
  std::string got;
  for (const SqlRow& row : names->rows) got += SqlText(row[0]) + ",";
  EXPECT_EQ(got, "run0,run1,team-a,team-b,");
  auto id_at = [&](const std::string& location) {
    auto row = db->Query("SELECT run_id FROM runs WHERE location = $1", {location});
    return row.ok() && !row->rows.empty() ? SqlText(row->rows[0][0]) : std::string("none");
  };
  for (const auto& [baseline, location] : std::vector<std::pair<std::string, std::string>>{
           {fleet + "/run1", fleet + "/run1/rank*"},
           {fleet + "/run1/", fleet + "/run1/rank*"},
           {fleet + "/run1/rank*", fleet + "/run1/rank*"},
           {fleet + "/team-b/trace.json.gz", fleet + "/team-b/trace.json.gz"},
           {fleet + "/team-a", fleet + "/team-a/trace.json.gz"},
           {"team-b", fleet + "/team-b/trace.json.gz"},
           {"run0", fleet + "/run0/rank*"}}) {
    SCOPED_TRACE(baseline);
    FleetReportOptions o;
    o.baseline_run = baseline;
    auto report = BuildFleetReport(*db, o);
    ASSERT_TRUE(report.ok()) << report.status().message();
    EXPECT_EQ(report->baseline_label.find(
                  "run " +
                  (baseline.find('/') == std::string::npos
                       ? baseline
                       : std::filesystem::path(location).parent_path().filename().string()) +
                  " (" + id_at(location).substr(0, 12) + ")"),
              0u)
        << report->baseline_label;
  }
  FleetReportOptions o;
  o.baseline_run = fleet;  // above every run's folder: none of them
  auto report = BuildFleetReport(*db, o);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("no run has this run_id, location, folder"),
            std::string::npos)
      << report.status().message();
}

// Two job shapes scanned by one pipeline are two job families; a run of one
// is not a regression of the other, though its steps are much longer.
TEST_P(ScannerTest, JobShapesAreFamiliesAndRegressionsStayWithinOne) {
  const std::string dir = th::testing::TempDir() + "/" + Name("fleet-h");
  for (int i = 0; i < 4; ++i) {
    synth::Scenario s;
    const bool large = i >= 2;
    s.ranks = large ? 4 : 2;
    s.steps = 3;
    s.kernels_per_step = 12;
    s.collectives_per_step = 2;
    s.seed = static_cast<uint64_t>(100 + i);
    if (large) {
      s.straggler_rank = 1;  // every rank waits for it: longer steps
      s.straggler_slowdown = 3.0;
    }
    std::string sub = std::string(large ? "/large" : "/small") + std::to_string(i % 2);
    ASSERT_TRUE(synth::WriteKinetoTraces(s, dir + sub, true, nullptr).ok());
  }
  auto runs = DiscoverRuns({dir});
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 4u);
  auto db = NewDb();
  if (!skip_.empty()) GTEST_SKIP() << skip_;
  ASSERT_TRUE(db);
  LocalRunDispatcher dispatcher(runs->size());
  ASSERT_TRUE(RunScan(Options(2), *runs, dispatcher, *db, nullptr).ok());
  auto families = db->Query(
      "SELECT job_family, COUNT(*), MIN(signature) FROM runs GROUP BY job_family ORDER BY 3");
  ASSERT_TRUE(families.ok());
  ASSERT_EQ(families->rows.size(), 2u);
  EXPECT_EQ(SqlInt(families->rows[0][1]), 2);
  EXPECT_EQ(SqlText(families->rows[0][2]).rfind("{\"ranks\": 2, \"devices\": 2,", 0), 0u);
  EXPECT_EQ(SqlText(families->rows[1][2]).rfind("{\"ranks\": 4, \"devices\": 4,", 0), 0u);
  EXPECT_EQ(Count(*db, "SELECT COUNT(DISTINCT job_family) FROM runs WHERE name LIKE 'large%'"), 1);

  FleetReportOptions o;
  o.baseline_run = dir + "/small0";
  auto report = BuildFleetReport(*db, o);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->baseline_families, 1);
  EXPECT_EQ(report->runs_compared, 1);      // small1
  EXPECT_EQ(report->runs_other_family, 2);  // large0, large1
  for (const RunStepTime& x : report->regressions) EXPECT_EQ(x.name, "small1");
  // One global baseline would have flagged both large runs.
  for (const char* large : {"large0", "large1"}) {
    SCOPED_TRACE(large);
    FleetReportOptions global = o;
    global.baseline_run = large;
    auto other = BuildFleetReport(*db, global);
    ASSERT_TRUE(other.ok());
    EXPECT_GT(other->baseline_median_ns, 1.1 * report->baseline_median_ns);
  }
}

INSTANTIATE_TEST_SUITE_P(Dialects, ScannerTest,
                         ::testing::Values(SqlDialect::kSqlite, SqlDialect::kPostgres),
                         [](const auto& info) {
                           return info.param == SqlDialect::kSqlite ? "sqlite" : "postgresql";
                         });

TEST(PipelineHashTest, CoversOptionsNotThreadsOrOutputs) {
  const Plugins& p = FleetPipeline();
  std::string path = std::string(TRACEHOUND_SOURCE_DIR) + "/configs/fleet-scan.yaml";
  auto load = [&](std::vector<std::string> set) {
    LoadPipelineOptions o;
    o.set_overrides = std::move(set);
    auto pipeline = LoadPipeline(path, p.registry.Declarations(), o);
    EXPECT_TRUE(pipeline.ok()) << pipeline.status().message();
    return PipelineHash(*pipeline, p.registry);
  };
  std::string base = load({});
  EXPECT_EQ(base.size(), 32u);
  EXPECT_EQ(base, PipelineHash(p.pipeline, p.registry));
  EXPECT_EQ(base, load({"execution.threads=3"}));
  EXPECT_EQ(base, load({"outputs=[{type: json, path: x.json}]"}));
  EXPECT_NE(base, load({"plugins.steps.warmup_steps=2"}));
  EXPECT_NE(base, load({"fail_on=P2"}));
}

TEST(FindingTimeLostTest, FirstTimeEvidenceInNanoseconds) {
  Finding f;
  f.evidence = {{"arrived_last", 7, "count"}, {"lateness", 2.5, "ms"}, {"span", 9, "ns"}};
  EXPECT_EQ(FindingTimeLostNs(f), 2.5e6);
  f.evidence = {{"share", 0.4, "ratio"}};
  EXPECT_FALSE(FindingTimeLostNs(f).has_value());
  f.evidence = {{"wait", -3, "us"}, {"span", 9, "ns"}};
  EXPECT_FALSE(FindingTimeLostNs(f).has_value());
  f.evidence = {{"wait", 3, "us"}};
  EXPECT_EQ(FindingTimeLostNs(f), 3000.0);
}

}  // namespace
}  // namespace th::scan
