#include "core/scan/database.h"

#include <gtest/gtest.h>

#include "tests/support/postgres_server.h"
#include "tests/support/test_files.h"

namespace th::scan {
namespace {

// Each test runs on a fresh SQLite file and on a fresh database of a real
// PostgreSQL server (skipped, with the reason, when none can be started).
class DatabaseTest : public ::testing::TestWithParam<SqlDialect> {
 protected:
  void SetUp() override {
    std::string url;
    if (GetParam() == SqlDialect::kSqlite) {
      static int n = 0;
      url = "sqlite:" + th::testing::TempDir() + "/db" + std::to_string(++n) + ".db";
    } else {
      std::string why;
      auto* server = th::testing::PostgresServer::Shared(&why);
      if (!server) GTEST_SKIP() << "no PostgreSQL server: " << why;
      url = server->NewDatabase();
      ASSERT_FALSE(url.empty()) << "CREATE DATABASE failed";
    }
    auto db = OpenDatabase(url);
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::move(*db);
  }
  std::unique_ptr<Database> db_;
};

TEST_P(DatabaseTest, RoundTripsEveryValueKindThroughNumberedParameters) {
  ASSERT_TRUE(db_->Exec("CREATE TABLE t (i BIGINT, d DOUBLE PRECISION, s TEXT, n TEXT)").ok());
  // $2 before $1 in the text: parameters bind by number, not by position.
  ASSERT_TRUE(db_->Exec("INSERT INTO t (d, i, s, n) VALUES ($2, $1, $3, $4)",
                        {int64_t{1} << 40, 2.5, std::string("it's ü"), std::monostate{}})
                  .ok());
  auto rows = db_->Query("SELECT i, d, s, n FROM t WHERE i = $1", {int64_t{1} << 40});
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->rows.size(), 1u);
  EXPECT_EQ(rows->columns, (std::vector<std::string>{"i", "d", "s", "n"}));
  const SqlRow& r = rows->rows[0];
  EXPECT_EQ(std::get<int64_t>(r[0]), int64_t{1} << 40);
  EXPECT_DOUBLE_EQ(std::get<double>(r[1]), 2.5);
  EXPECT_EQ(std::get<std::string>(r[2]), "it's ü");
  EXPECT_TRUE(SqlIsNull(r[3]));
  // Aggregates come back as numbers in both dialects.
  auto count = db_->Query("SELECT COUNT(*), SUM(d) FROM t");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(SqlInt(count->rows[0][0]), 1);
  EXPECT_DOUBLE_EQ(SqlDouble(count->rows[0][1]), 2.5);
}

TEST_P(DatabaseTest, RollbackDiscardsAndCommitKeeps) {
  ASSERT_TRUE(db_->Exec("CREATE TABLE t (i BIGINT PRIMARY KEY)").ok());
  ASSERT_TRUE(db_->Begin().ok());
  ASSERT_TRUE(db_->Exec("INSERT INTO t VALUES ($1)", {int64_t{1}}).ok());
  ASSERT_TRUE(db_->Rollback().ok());
  ASSERT_TRUE(db_->Begin().ok());
  ASSERT_TRUE(db_->Exec("INSERT INTO t VALUES ($1)", {int64_t{2}}).ok());
  ASSERT_TRUE(db_->Commit().ok());
  auto rows = db_->Query("SELECT i FROM t");
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->rows.size(), 1u);
  EXPECT_EQ(SqlInt(rows->rows[0][0]), 2);
}

TEST_P(DatabaseTest, ErrorsNameTheDatabaseAndTheStatement) {
  auto rows = db_->Query("SELECT * FROM no_such_table");
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find(db_->name()), std::string::npos)
      << rows.status().message();
  EXPECT_NE(rows.status().message().find("no_such_table"), std::string::npos);
  ASSERT_TRUE(db_->Exec("CREATE TABLE t (i BIGINT PRIMARY KEY)").ok());
  ASSERT_TRUE(db_->Exec("INSERT INTO t VALUES ($1)", {int64_t{1}}).ok());
  EXPECT_FALSE(db_->Exec("INSERT INTO t VALUES ($1)", {int64_t{1}}).ok());  // duplicate key
  // The connection stays usable after an error outside a transaction.
  EXPECT_TRUE(db_->Exec("INSERT INTO t VALUES ($1)", {int64_t{2}}).ok());
}

INSTANTIATE_TEST_SUITE_P(Dialects, DatabaseTest,
                         ::testing::Values(SqlDialect::kSqlite, SqlDialect::kPostgres),
                         [](const auto& info) {
                           return info.param == SqlDialect::kSqlite ? "sqlite" : "postgresql";
                         });

TEST(OpenDatabaseTest, RefusesUnknownUrlsNamingThem) {
  auto db = OpenDatabase("mysql://host/db");
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.status().message().find("mysql://host/db"), std::string::npos);
}

TEST(OpenDatabaseTest, UnreachableServerIsAnErrorWithoutThePassword) {
  // Port 1 on loopback: nothing listens there.
  auto db = OpenDatabase("postgresql://user:secret@127.0.0.1:1/x?connect_timeout=2");
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().message().find("secret"), std::string::npos) << db.status().message();
  EXPECT_NE(db.status().message().find("postgresql://user:***@127.0.0.1:1/x"), std::string::npos)
      << db.status().message();
}

TEST(OpenDatabaseTest, UnwritableSqliteFileIsAnError) {
  auto db = OpenDatabase("sqlite:/nonexistent-dir/x.db");
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.status().message().find("/nonexistent-dir/x.db"), std::string::npos);
}

TEST(RedactDatabaseUrlTest, HidesOnlyThePassword) {
  EXPECT_EQ(RedactDatabaseUrl("postgresql://u:p@h:5/d"), "postgresql://u:***@h:5/d");
  EXPECT_EQ(RedactDatabaseUrl("postgresql://u@h/d"), "postgresql://u@h/d");
  EXPECT_EQ(RedactDatabaseUrl("sqlite:a.db"), "sqlite:a.db");
}

}  // namespace
}  // namespace th::scan
