#include "core/scan/database_merge.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "core/scan/results_schema.h"
#include "tests/core/scan/results_fixture.h"
#include "tests/support/postgres_server.h"
#include "tests/support/test_files.h"

namespace th::scan {
namespace {

using th::testing::SyntheticRun;
using th::testing::WriteFixtureRun;

std::unique_ptr<Database> OpenSqlite(const std::string& name) {
  static int n = 0;
  auto db =
      OpenDatabase("sqlite:" + th::testing::TempDir() + "/" + name + std::to_string(++n) + ".db");
  EXPECT_TRUE(db.ok()) << db.status().message();
  return db.ok() ? std::move(*db) : nullptr;
}

std::string Dump(Database& db) {
  auto dump = DumpResultsContent(db);
  EXPECT_TRUE(dump.ok()) << dump.status().message();
  return dump.ok() ? *dump : "";
}

// The output is a fresh SQLite file or a fresh database on a real PostgreSQL
// server; inputs are SQLite files (as shards write them).
class MergeTest : public ::testing::TestWithParam<SqlDialect> {
 protected:
  void SetUp() override {
    if (GetParam() == SqlDialect::kSqlite) {
      out_ = OpenSqlite("out");
      ASSERT_TRUE(out_);
    } else {
      std::string why;
      auto* server = th::testing::PostgresServer::Shared(&why);
      if (!server) GTEST_SKIP() << "no PostgreSQL server: " << why;
      auto db = OpenDatabase(server->NewDatabase());
      ASSERT_TRUE(db.ok()) << db.status().message();
      out_ = std::move(*db);
    }
  }
  std::unique_ptr<Database> out_;
};

TEST_P(MergeTest, ShardsMergeToTheContentOfOneDatabaseAndAgainChangeNothing) {
  constexpr size_t kRuns = 40, kShards = 4;
  auto single = OpenSqlite("single");
  std::vector<std::unique_ptr<Database>> shards;
  for (size_t s = 0; s < kShards; ++s) shards.push_back(OpenSqlite("shard"));
  size_t child_rows = 0;
  for (size_t i = 0; i < kRuns; ++i) {
    auto run = SyntheticRun(i);
    ASSERT_TRUE(WriteFixtureRun(*single, run).ok());
    run.worker = "shard" + std::to_string(i % kShards);  // bookkeeping differs
    ASSERT_TRUE(WriteFixtureRun(*shards[i % kShards], run).ok());
    child_rows += run.findings.size();
  }
  size_t copied = 0;
  std::map<std::string, size_t> rows;
  for (auto& shard : shards) {
    auto stats = MergeResults(*shard, *out_);
    ASSERT_TRUE(stats.ok()) << stats.status().message();
    EXPECT_EQ(stats->runs_present, 0u);
    EXPECT_EQ(stats->runs_in, stats->runs_copied);
    copied += stats->runs_copied;
    for (const auto& [table, n] : stats->rows_copied) rows[table] += n;
  }
  EXPECT_EQ(copied, kRuns);
  EXPECT_EQ(rows["runs"], kRuns);
  EXPECT_EQ(rows["findings"], child_rows);
  const std::string want = Dump(*single);
  EXPECT_NE(want.find("table steps"), std::string::npos);
  EXPECT_EQ(Dump(*out_), want);

  // Idempotent: every run is already there.
  for (auto& shard : shards) {
    auto stats = MergeResults(*shard, *out_);
    ASSERT_TRUE(stats.ok()) << stats.status().message();
    EXPECT_EQ(stats->runs_copied, 0u);
    EXPECT_EQ(stats->runs_present, stats->runs_in);
    EXPECT_TRUE(stats->rows_copied.empty());
  }
  EXPECT_EQ(Dump(*out_), want);
}

TEST_P(MergeTest, KeepsRunsTheOutputHasAndCopiesTheRest) {
  auto in = OpenSqlite("in");
  for (size_t i = 0; i < 6; ++i) ASSERT_TRUE(WriteFixtureRun(*in, SyntheticRun(i)).ok());
  // The output holds run 2 already, with a different finding: left alone.
  auto mine = SyntheticRun(2);
  mine.findings.push_back({"overlap", 0, "62% of NCCL time is exposed", 5e6, std::nullopt});
  ASSERT_TRUE(WriteFixtureRun(*out_, mine).ok());
  auto stats = MergeResults(*in, *out_);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->runs_in, 6u);
  EXPECT_EQ(stats->runs_copied, 5u);
  EXPECT_EQ(stats->runs_present, 1u);
  auto n = out_->Query("SELECT COUNT(*) FROM findings WHERE run_id = $1", {mine.run_id});
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(SqlInt(n->rows[0][0]), static_cast<int64_t>(mine.findings.size()));
}

TEST_P(MergeTest, AFailedRunCopyLeavesNoRowOfIt) {
  auto in = OpenSqlite("in");
  auto run = SyntheticRun(3);  // two traces, findings, steps
  ASSERT_TRUE(WriteFixtureRun(*in, run).ok());
  ASSERT_TRUE(MigrateResultsSchema(*out_).ok());
  if (GetParam() == SqlDialect::kSqlite) {
    // The output refuses steps rows: the copy fails midway, after runs,
    // traces, metrics and findings rows of the run were inserted.
    ASSERT_TRUE(out_->Exec("CREATE TRIGGER no_steps BEFORE INSERT ON steps BEGIN "
                           "SELECT RAISE(ABORT, 'steps refused'); END")
                    .ok());
  } else {
    // SQLite stores text in a BIGINT column; PostgreSQL refuses it.
    ASSERT_TRUE(in->Exec("UPDATE steps SET dur_ns = 'abc' WHERE rank = 0 AND step = 0").ok());
  }
  auto stats = MergeResults(*in, *out_);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.status().message().find("run " + run.run_id + ", table steps"), std::string::npos)
      << stats.status().message();
  for (const char* table : {"runs", "traces", "findings"}) {
    auto n = out_->Query(std::string("SELECT COUNT(*) FROM ") + table);
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(SqlInt(n->rows[0][0]), 0) << table;
  }
}

// A diff of `tracehound diff --db` as raw rows: inputs "a<n>" and "b<n>",
// `rows` aggregate rows.
void WriteDiff(Database& db, int64_t id, int n, int rows) {
  ASSERT_TRUE(MigrateResultsSchema(db).ok());
  const std::string a = "a" + std::to_string(n), b = "b" + std::to_string(n);
  ASSERT_TRUE(db.Exec("INSERT INTO diffs VALUES ($1, $2, $3, 1, 1, 4, 4, 1000, 100, 150, 50, 0, "
                      "0, $4, 0, 0, '')",
                      {id, a, b, int64_t{rows}})
                  .ok());
  for (int r = 0; r < rows; ++r)
    ASSERT_TRUE(
        db.Exec("INSERT INTO diff_rows VALUES ($1, 'aggregate', 'gpu_kernel', $2, "
                "'changed', 4, $3, 4, $4, $5, 7)",
                {id, "k" + std::to_string(r), int64_t{10 * r}, int64_t{10 * r + n}, int64_t{n}})
            .ok());
}

TEST_P(MergeTest, DiffsAreCopiedRenumberedOnceWithTheirRows) {
  auto in = OpenSqlite("in");
  WriteDiff(*in, 1, 1, 2);
  WriteDiff(*in, 2, 2, 3);
  WriteDiff(*out_, 1, 2, 3);  // the output holds in's second diff as its first
  auto single = OpenSqlite("single");
  WriteDiff(*single, 1, 1, 2);
  WriteDiff(*single, 2, 2, 3);

  auto stats = MergeResults(*in, *out_);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->diffs_copied, 1u);
  EXPECT_EQ(stats->rows_copied["diffs"], 1u);
  EXPECT_EQ(stats->rows_copied["diff_rows"], 2u);
  auto copied = out_->Query(
      "SELECT d.id, d.a_inputs, COUNT(r.diff_id) FROM diffs d LEFT JOIN diff_rows r ON "
      "r.diff_id = d.id GROUP BY d.id, d.a_inputs ORDER BY d.id");
  ASSERT_TRUE(copied.ok()) << copied.status().message();
  ASSERT_EQ(copied->rows.size(), 2u);
  EXPECT_EQ(SqlInt(copied->rows[1][0]), 2);
  EXPECT_EQ(SqlText(copied->rows[1][1]), "a1");
  EXPECT_EQ(SqlInt(copied->rows[1][2]), 2);
  const std::string want = Dump(*single);
  EXPECT_NE(want.find("table diff_rows (5 rows)"), std::string::npos) << want;
  EXPECT_EQ(Dump(*out_), want);

  stats = MergeResults(*in, *out_);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->diffs_copied, 0u);
  EXPECT_EQ(Dump(*out_), want);
}

TEST_P(MergeTest, RefusesDifferentSchemaVersions) {
  auto in = OpenSqlite("in");
  ASSERT_TRUE(WriteFixtureRun(*in, SyntheticRun(1)).ok());
  // `in` as a tracehound of schema v1 left it (before the phases table).
  ASSERT_TRUE(in->Exec("DELETE FROM th_schema WHERE version > 1").ok());
  ASSERT_TRUE(MigrateResultsSchema(*out_).ok());
  auto stats = MergeResults(*in, *out_);
  ASSERT_FALSE(stats.ok());
  const std::string& m = stats.status().message();
  EXPECT_NE(m.find("(results schema v1)"), std::string::npos) << m;
  EXPECT_NE(m.find("(results schema v" + std::to_string(kResultsSchemaVersion) + ")"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("differ"), std::string::npos) << m;

  ASSERT_TRUE(in->Exec("INSERT INTO th_schema (version) VALUES (9)").ok());
  stats = MergeResults(*in, *out_);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.status().message().find("v9, newer than this tracehound"), std::string::npos)
      << stats.status().message();
}

// One content found by two shards at two locations: whichever order the
// shards are merged in, the result is what one scan writes (the rows of the
// smaller location, both locations kept) and the pipelines of both.
TEST_P(MergeTest, ACopyFoundByTwoShardsKeepsBothLocationsInEitherOrder) {
  auto single = OpenSqlite("single");
  auto at_a = SyntheticRun(3), at_z = SyntheticRun(3);
  at_a.name = "a";
  at_z.name = "z";  // traces.path and location follow the name
  ASSERT_TRUE(WriteFixtureRun(*single, at_a).ok());
  ASSERT_TRUE(single
                  ->Exec("INSERT INTO run_locations (run_id, location, name, first_seen) VALUES "
                         "($1, '/fleet/z', 'z', 'later')",
                         {at_a.run_id})
                  .ok());
  const char* kPipeline =
      "INSERT INTO pipelines (pipeline_hash, yaml, plugin_versions, tracehound_version) VALUES "
      "($1, 'version: 1', '{}', '0.1.0')";
  ASSERT_TRUE(single->Exec(kPipeline, {std::string("p")}).ok());
  ASSERT_TRUE(single->Exec(kPipeline, {std::string("q")}).ok());
  auto shard_a = OpenSqlite("shard"), shard_z = OpenSqlite("shard");
  ASSERT_TRUE(WriteFixtureRun(*shard_a, at_a).ok());
  ASSERT_TRUE(WriteFixtureRun(*shard_z, at_z).ok());
  ASSERT_TRUE(shard_a->Exec(kPipeline, {std::string("p")}).ok());
  ASSERT_TRUE(shard_z->Exec(kPipeline, {std::string("q")}).ok());
  const std::string want = Dump(*single);
  EXPECT_NE(
      want.find("table run_locations (2 rows): run_id, location, name\n'c3:p'|'/fleet/a'|'a'\n"
                "'c3:p'|'/fleet/z'|'z'\n"),
      std::string::npos)
      << want;
  EXPECT_NE(want.find("table pipelines (2 rows)"), std::string::npos) << want;

  // z first, then a: a's rows replace z's.
  ASSERT_TRUE(MergeResults(*shard_z, *out_).ok());
  auto stats = MergeResults(*shard_a, *out_);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->runs_present, 1u);
  EXPECT_EQ(stats->runs_replaced, 1u);
  EXPECT_EQ(Dump(*out_), want);
  // a first, then z: z's location is added, nothing else.
  auto other = OpenSqlite("out");
  ASSERT_TRUE(MergeResults(*shard_a, *other).ok());
  stats = MergeResults(*shard_z, *other);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->runs_replaced, 0u);
  EXPECT_EQ(stats->locations_added, 1u);
  EXPECT_EQ(Dump(*other), want);
  // Again: nothing changes.
  stats = MergeResults(*shard_z, *other);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->locations_added, 0u);
  EXPECT_EQ(Dump(*other), want);
}

INSTANTIATE_TEST_SUITE_P(Dialects, MergeTest,
                         ::testing::Values(SqlDialect::kSqlite, SqlDialect::kPostgres),
                         [](const auto& info) {
                           return info.param == SqlDialect::kSqlite ? "Sqlite" : "Postgres";
                         });

TEST(Merge, InputsMustBeResultsDatabasesThatExist) {
  const std::string missing = th::testing::TempDir() + "/missing.db";
  auto db = OpenExistingDatabase("sqlite:" + missing);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), StatusCode::kNotFound);
  EXPECT_NE(db.status().message().find(missing), std::string::npos);
  struct stat st;
  EXPECT_NE(::stat(missing.c_str(), &st), 0) << "opening created the file";

  auto empty = OpenSqlite("empty");
  auto out = OpenSqlite("out");
  auto stats = MergeResults(*empty, *out);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.status().message().find("not a tracehound results database"), std::string::npos)
      << stats.status().message();
  auto version = ReadResultsSchemaVersion(*empty);
  ASSERT_TRUE(version.ok());
  EXPECT_EQ(*version, 0);  // and reading it did not create th_schema
  EXPECT_EQ(ReadResultsSchemaVersion(*empty).value(), 0);
  stats = MergeResults(*out, *out);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.status().message().find("into itself"), std::string::npos);
}

TEST(Merge, DumpLeavesOutBookkeepingButSeesEveryResult) {
  auto a = OpenSqlite("a");
  auto b = OpenSqlite("b");
  auto run = SyntheticRun(6);
  ASSERT_TRUE(WriteFixtureRun(*a, run).ok());
  run.worker = "another-host:99";
  ASSERT_TRUE(WriteFixtureRun(*b, run).ok());
  ASSERT_TRUE(b->Exec("UPDATE runs SET scan_seconds = 9.5, scanned_at = 'later'").ok());
  EXPECT_EQ(Dump(*a), Dump(*b));
  ASSERT_TRUE(b->Exec("UPDATE findings SET time_lost_ns = time_lost_ns + 1 WHERE seq = 0").ok());
  EXPECT_NE(Dump(*a), Dump(*b));
  ASSERT_TRUE(b->Exec("UPDATE findings SET time_lost_ns = time_lost_ns - 1 WHERE seq = 0").ok());
  EXPECT_EQ(Dump(*a), Dump(*b));
  ASSERT_TRUE(b->Exec("UPDATE runs SET host = 'elsewhere'").ok());
  EXPECT_NE(Dump(*a), Dump(*b));
}

TEST(Merge, DumpTellsANewlineFromAnEscapedOne) {
  auto a = OpenSqlite("a");
  auto b = OpenSqlite("b");
  ASSERT_TRUE(WriteFixtureRun(*a, SyntheticRun(5)).ok());  // a failed run: error text
  ASSERT_TRUE(WriteFixtureRun(*b, SyntheticRun(5)).ok());
  ASSERT_TRUE(a->Exec("UPDATE runs SET error = $1", {std::string("line\nbreak")}).ok());
  ASSERT_TRUE(b->Exec("UPDATE runs SET error = $1", {std::string("line\\nbreak")}).ok());
  EXPECT_NE(Dump(*a), Dump(*b));
}

}  // namespace
}  // namespace th::scan
