#include "core/diff/diff_rows.h"

#include <array>
#include <string>

#include "core/scan/results_schema.h"

namespace th::diff {
namespace {

std::string Lines(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : "\n") + s;
  return out;
}

Status InsertDiff(scan::Database& db, int64_t id, const DiffResult& r) {
  std::array<int64_t, 5> by_status{};
  for (const AggregateRow& row : r.aggregate) ++by_status[static_cast<size_t>(row.status)];
  const Attribution& at = r.attribution;
  auto maybe = [&](int64_t v) { return at.available ? scan::SqlValue(v) : scan::SqlValue(); };
  return db.Exec(
      "INSERT INTO diffs VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, "
      "$15, $16, $17)",
      {id, Lines(r.a.inputs), Lines(r.b.inputs), r.a.ranks, r.b.ranks, r.a.steps, r.b.steps,
       r.options.threshold_ns, maybe(at.a_step_ns), maybe(at.b_step_ns), maybe(at.delta_ns),
       by_status[static_cast<size_t>(RowStatus::kAdded)],
       by_status[static_cast<size_t>(RowStatus::kRemoved)],
       by_status[static_cast<size_t>(RowStatus::kChanged)],
       by_status[static_cast<size_t>(RowStatus::kUnchanged)],
       by_status[static_cast<size_t>(RowStatus::kUnknown)], Lines(r.warnings)});
}

Status InsertRows(scan::Database& db, int64_t id, const DiffResult& r) {
  constexpr const char* kInsert =
      "INSERT INTO diff_rows VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";
  for (const AggregateRow& row : r.aggregate) {
    Status s = db.Exec(
        kInsert, {id, std::string("aggregate"), std::string(EventClassName(row.cls)), row.name,
                  std::string(RowStatusName(row.status)), row.a.count, row.a.time_per_step_ns,
                  row.b.count, row.b.time_per_step_ns, row.delta_ns, row.noise_ns});
    if (!s.ok()) return s;
  }
  for (const Contributor& c : r.attribution.contributors) {
    Status s = db.Exec(
        kInsert, {id, std::string("category"), std::string("step_breakdown"), c.category,
                  std::string(), int64_t{0}, c.a_ns, int64_t{0}, c.b_ns, c.delta_ns, int64_t{0}});
    if (!s.ok()) return s;
  }
  return Ok();
}

}  // namespace

StatusOr<int64_t> WriteDiffRows(scan::Database& db, const DiffResult& r) {
  Status s = scan::MigrateResultsSchema(db);
  if (!s.ok()) return s;
  s = db.Begin();
  if (!s.ok()) return s;
  auto next = db.Query("SELECT COALESCE(MAX(id), 0) + 1 FROM diffs");
  if (!next.ok()) {
    (void)db.Rollback();
    return next.status();
  }
  const int64_t id = scan::SqlInt(next->rows.at(0).at(0));
  s = InsertDiff(db, id, r);
  if (s.ok()) s = InsertRows(db, id, r);
  if (s.ok()) s = db.Commit();
  if (!s.ok()) {
    (void)db.Rollback();
    return s;
  }
  return id;
}

}  // namespace th::diff
