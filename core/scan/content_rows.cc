#include "core/scan/content_rows.h"

#include <algorithm>

#include "core/scan/results_schema.h"

namespace th::scan {

bool IsBookkeepingColumn(const std::string& table, const std::string& column) {
  return table == "runs" &&
         (column == "scanned_at" || column == "scan_seconds" || column == "worker");
}

StatusOr<std::vector<std::string>> ContentRows(Database& db) {
  std::vector<std::string> out;
  for (const std::string& table : ResultTables()) {
    auto rows = db.Query("SELECT * FROM " + table);
    if (!rows.ok()) return rows.status();
    std::vector<bool> keep;
    for (const std::string& c : rows->columns) keep.push_back(!IsBookkeepingColumn(table, c));
    for (const SqlRow& row : rows->rows) {
      std::string line = table;
      for (size_t c = 0; c < row.size(); ++c) {
        if (!keep[c]) continue;
        line += "|";
        line += SqlIsNull(row[c]) ? std::string("\\N") : SqlText(row[c]);
      }
      out.push_back(std::move(line));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace th::scan
