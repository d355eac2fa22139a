// Reads a plugin's published table by column name for the serve answers: a
// missing table reads as no rows, a missing column (or one of another type)
// as 0 / 0.0 / "" in every row, so an answer never fails on an older plugin.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/graph/analysis_results.h"

namespace th::serve {

class DerivedTableReader {
 public:
  DerivedTableReader(const PluginResults& results, const std::string& table) {
    auto it = results.tables.find(table);
    if (it != results.tables.end()) table_ = &it->second;
  }
  size_t rows() const { return table_ ? table_->rows : 0; }
  int64_t Int(const char* column, size_t row) const { return Get<int64_t>(column, row, 0); }
  double Real(const char* column, size_t row) const { return Get<double>(column, row, 0.0); }
  std::string Text(const char* column, size_t row) const {
    const DerivedColumn* c = table_ ? table_->Find(column) : nullptr;
    const auto* v = c ? std::get_if<TextColumn>(&c->values) : nullptr;
    return v && row < v->size() ? std::string((*v)[row]) : std::string();
  }

 private:
  template <typename T>
  T Get(const char* column, size_t row, T missing) const {
    const DerivedColumn* c = table_ ? table_->Find(column) : nullptr;
    const auto* v = c ? std::get_if<std::vector<T>>(&c->values) : nullptr;
    return v && row < v->size() ? (*v)[row] : missing;
  }
  const DerivedTable* table_ = nullptr;
};

}  // namespace th::serve
