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

INSTANTIATE_TEST_SUITE_P(Dialects, ResultsSchemaTest,
                         ::testing::Values(SqlDialect::kSqlite, SqlDialect::kPostgres),
                         [](const auto& info) {
                           return info.param == SqlDialect::kSqlite ? "sqlite" : "postgresql";
                         });

}  // namespace
}  // namespace th::scan
