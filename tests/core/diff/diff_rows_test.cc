// The fleet rows of a diff in real SQLite and PostgreSQL databases: the
// values of every column of `diffs` and of the changed rows of `diff_rows`,
// and ids that follow each other.
#include "core/diff/diff_rows.h"

#include <gtest/gtest.h>

#include "tests/core/diff/diff_test_support.h"
#include "tests/support/postgres_server.h"

namespace th::diff {
namespace {

using scan::SqlRow;
using scan::SqlValue;

DiffResult PairDiff() {
  th::testing::DiffFixture fb;
  fb.double_gemm = fb.insert_mul = true;
  auto a = testing::FixtureSide({}, "A");
  auto b = testing::FixtureSide(fb, "B");
  return testing::Diff(*a, *b);
}

void CheckRows(scan::Database& db) {
  const DiffResult r = PairDiff();
  auto first = WriteDiffRows(db, r);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(*first, 1);
  auto second = WriteDiffRows(db, r);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(*second, 2);

  auto diffs = db.Query("SELECT * FROM diffs WHERE id = 1");
  ASSERT_TRUE(diffs.ok()) << diffs.status().message();
  ASSERT_EQ(diffs->rows.size(), 1u);
  const SqlRow expected = {
      int64_t{1},
      std::string("a.json"),
      std::string("b.json"),
      int64_t{1},
      int64_t{1},
      int64_t{3},
      int64_t{3},
      int64_t{1000},
      int64_t{1000000},
      int64_t{1000000},
      int64_t{0},
      int64_t{2},
      int64_t{0},
      int64_t{1},
      int64_t{6},
      int64_t{0},
      std::string("input shapes and dtypes of matched ops are not compared: neither side has "
                  "Kineto Input Dims / Input type (record_shapes)")};
  EXPECT_EQ(diffs->rows[0], expected);

  auto rows = db.Query(
      "SELECT kind, class, name, status, a_count, a_time_per_step_ns, b_count, "
      "b_time_per_step_ns, delta_ns, noise_ns FROM diff_rows WHERE diff_id = 1 AND "
      "(status IN ('added', 'removed', 'changed') OR (kind = 'category' AND delta_ns <> 0)) "
      "ORDER BY kind, class, name");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  auto row = [](const char* kind, const char* cls, const char* name, const char* status, int64_t ac,
                int64_t at, int64_t bc, int64_t bt, int64_t d) {
    return SqlRow{std::string(kind),
                  std::string(cls),
                  std::string(name),
                  std::string(status),
                  ac,
                  at,
                  bc,
                  bt,
                  d,
                  int64_t{0}};
  };
  const std::vector<SqlRow> want = {
      row("aggregate", "cpu_op", "aten::mul", "added", 0, 0, 3, 40000, 40000),
      row("aggregate", "gpu_kernel", "gemm_kernel<0x*>", "changed", 3, 50000, 3, 100000, 50000),
      row("aggregate", "gpu_kernel", "mul_kernel", "added", 0, 0, 3, 15000, 15000),
      row("category", "step_breakdown", "cpu_exec", "", 0, 360000, 0, 290000, -70000),
      row("category", "step_breakdown", "kernel", "", 0, 110000, 0, 175000, 65000),
      row("category", "step_breakdown", "runtime", "", 0, 20000, 0, 25000, 5000)};
  EXPECT_EQ(rows->rows, want);
  auto count = db.Query("SELECT COUNT(*) FROM diff_rows WHERE diff_id = 2");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(scan::SqlInt(count->rows[0][0]), 9 + 8);  // aggregate rows + categories
}

TEST(DiffRows, Sqlite) {
  auto db = scan::OpenDatabase("sqlite:" + th::testing::TempDir() + "/diff_rows.db");
  ASSERT_TRUE(db.ok()) << db.status().message();
  CheckRows(**db);
}

TEST(DiffRows, Postgres) {
  std::string why;
  auto* server = th::testing::PostgresServer::Shared(&why);
  if (!server) GTEST_SKIP() << "no PostgreSQL server: " << why;
  auto db = scan::OpenDatabase(server->NewDatabase());
  ASSERT_TRUE(db.ok()) << db.status().message();
  CheckRows(**db);
}

}  // namespace
}  // namespace th::diff
