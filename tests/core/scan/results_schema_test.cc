#include "core/scan/results_schema.h"

#include <gtest/gtest.h>

#include "tests/support/postgres_server.h"
#include "tests/support/test_files.h"

namespace th::scan {
namespace {

class ResultsSchemaTest : public ::testing::TestWithParam<SqlDialect> {
 protected:
  void SetUp() override {
    if (GetParam() == SqlDialect::kSqlite) {
      static int n = 0;
      url_ = "sqlite:" + th::testing::TempDir() + "/schema" + std::to_string(++n) + ".db";
    } else {
      std::string why;
      auto* server = th::testing::PostgresServer::Shared(&why);
      if (!server) GTEST_SKIP() << "no PostgreSQL server: " << why;
      url_ = server->NewDatabase();
      ASSERT_FALSE(url_.empty());
    }
    auto db = OpenDatabase(url_);
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::move(*db);
  }
  std::string url_;
  std::unique_ptr<Database> db_;
};

TEST_P(ResultsSchemaTest, MigratesAnEmptyDatabaseOnceAndIsIdempotent) {
  auto before = ResultsSchemaVersion(*db_);
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(*before, 0);
  ASSERT_TRUE(MigrateResultsSchema(*db_).ok());
  ASSERT_TRUE(MigrateResultsSchema(*db_).ok());
  auto after = ResultsSchemaVersion(*db_);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, kResultsSchemaVersion);
  auto versions = db_->Query("SELECT COUNT(*) FROM th_schema");
  ASSERT_TRUE(versions.ok());
  EXPECT_EQ(SqlInt(versions->rows[0][0]), kResultsSchemaVersion);
  for (const std::string& table : ResultTables()) {
    auto rows = db_->Query("SELECT COUNT(*) FROM " + table);
    ASSERT_TRUE(rows.ok()) << table << ": " << rows.status().message();
    EXPECT_EQ(SqlInt(rows->rows[0][0]), 0) << table;
  }
}

TEST_P(ResultsSchemaTest, ARunIsUniqueByContentAndPipeline) {
  ASSERT_TRUE(MigrateResultsSchema(*db_).ok());
  const char* insert =
      "INSERT INTO runs (run_id, content_hash, pipeline_hash, location, name, status, traces, "
      "bytes) VALUES ($1, $2, $3, 'x', 'x', 'ok', 1, 10)";
  ASSERT_TRUE(db_->Exec(insert, {std::string("c:p"), std::string("c"), std::string("p")}).ok());
  EXPECT_FALSE(db_->Exec(insert, {std::string("c:p2"), std::string("c"), std::string("p")}).ok());
  EXPECT_TRUE(db_->Exec(insert, {std::string("c:q"), std::string("c"), std::string("q")}).ok());
}

TEST_P(ResultsSchemaTest, RefusesADatabaseOfANewerTracehound) {
  ASSERT_TRUE(MigrateResultsSchema(*db_).ok());
  ASSERT_TRUE(
      db_->Exec("INSERT INTO th_schema (version) VALUES ($1)", {int64_t{kResultsSchemaVersion + 1}})
          .ok());
  Status s = MigrateResultsSchema(*db_);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("newer than this tracehound"), std::string::npos) << s.message();
  // Nothing half-done: the connection is usable and the version unchanged.
  auto v = ResultsSchemaVersion(*db_);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(*v, kResultsSchemaVersion + 1);
}

// A database as tracehound left it at schema v2 (the v1 and v2 migrations of
// this code, rows with v2's columns) migrates in place: every row kept, the
// new columns NULL, each run's location in run_locations.
TEST_P(ResultsSchemaTest, AVersion2DatabaseMigratesInPlaceAndKeepsItsRows) {
  ASSERT_TRUE(MigrateResultsSchema(*db_, 2).ok());
  auto v2 = ResultsSchemaVersion(*db_);
  ASSERT_TRUE(v2.ok());
  ASSERT_EQ(*v2, 2);
  ASSERT_FALSE(db_->Query("SELECT group_key FROM findings").ok());  // not there yet
  ASSERT_TRUE(db_->Exec("INSERT INTO runs (run_id, content_hash, pipeline_hash, location, name, "
                        "status, traces, bytes, scanned_at) VALUES ('c1:p', 'c1', 'p', "
                        "'/fleet/a/rank*', 'a/rank*', 'ok', 2, 100, '2026-11-01T00:00:00Z'), "
                        "('c2:p', 'c2', 'p', '/fleet/b.json', 'b.json', 'failed', 1, 7, NULL)")
                  .ok());
  ASSERT_TRUE(db_->Exec("INSERT INTO findings (run_id, seq, plugin, severity, title, "
                        "time_lost_ns) VALUES ('c1:p', 0, 'overlap', 1, 'exposed', 2.5)")
                  .ok());
  ASSERT_TRUE(db_->Exec("INSERT INTO steps (run_id, rank, step, start_ns, dur_ns) VALUES "
                        "('c1:p', 0, 0, 10, 20), ('c1:p', 1, 0, 11, 21)")
                  .ok());
  const char* kRuns =
      "SELECT run_id, content_hash, pipeline_hash, location, name, status, traces, bytes, "
      "scanned_at FROM runs ORDER BY run_id";
  auto Text = [&](const char* sql) {
    auto rows = db_->Query(sql);
    EXPECT_TRUE(rows.ok()) << rows.status().message();
    std::string out;
    if (!rows.ok()) return out;
    for (const SqlRow& row : rows->rows) {
      for (const SqlValue& v : row) out += (SqlIsNull(v) ? "NULL" : SqlText(v)) + "|";
      out += "\n";
    }
    return out;
  };
  const std::string runs = Text(kRuns);
  const std::string findings = Text(
      "SELECT run_id, seq, plugin, severity, title, time_lost_ns "
      "FROM findings");
  const std::string steps = Text("SELECT * FROM steps ORDER BY rank");

  ASSERT_TRUE(MigrateResultsSchema(*db_).ok());
  auto v3 = ResultsSchemaVersion(*db_);
  ASSERT_TRUE(v3.ok());
  EXPECT_EQ(*v3, kResultsSchemaVersion);
  EXPECT_EQ(Text(kRuns), runs);
  EXPECT_EQ(runs,
            "c1:p|c1|p|/fleet/a/rank*|a/rank*|ok|2|100|2026-11-01T00:00:00Z|\n"
            "c2:p|c2|p|/fleet/b.json|b.json|failed|1|7|NULL|\n");
  EXPECT_EQ(Text("SELECT run_id, seq, plugin, severity, title, time_lost_ns FROM findings"),
            findings);
  EXPECT_EQ(Text("SELECT * FROM steps ORDER BY rank"), steps);
  EXPECT_EQ(Text("SELECT group_key FROM findings"), "NULL|\n");
  EXPECT_EQ(Text("SELECT signature, job_family FROM runs"), "NULL|NULL|\nNULL|NULL|\n");
  EXPECT_EQ(Text("SELECT run_id, location, name, first_seen FROM run_locations ORDER BY run_id"),
            "c1:p|/fleet/a/rank*|a/rank*|2026-11-01T00:00:00Z|\n"
            "c2:p|/fleet/b.json|b.json|NULL|\n");
  EXPECT_EQ(Text("SELECT COUNT(*) FROM pipelines"), "0|\n");
  // Migrating again changes nothing.
  ASSERT_TRUE(MigrateResultsSchema(*db_).ok());
  EXPECT_EQ(Text("SELECT COUNT(*) FROM run_locations"), "2|\n");
  EXPECT_EQ(Text("SELECT COUNT(*) FROM th_schema"), std::to_string(kResultsSchemaVersion) + "|\n");
}

INSTANTIATE_TEST_SUITE_P(Dialects, ResultsSchemaTest,
                         ::testing::Values(SqlDialect::kSqlite, SqlDialect::kPostgres),
                         [](const auto& info) {
                           return info.param == SqlDialect::kSqlite ? "sqlite" : "postgresql";
                         });

}  // namespace
}  // namespace th::scan
