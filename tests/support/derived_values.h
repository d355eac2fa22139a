// The values of a derived table's column, for tests: the column itself (by
// reference) for T = int64_t or double; for T = std::string a copy of the
// text column's values (TextColumn packs them), so tests compare vectors.
// Col and Cell read a column or one value of it by name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/graph/analysis_results.h"

namespace th::testing {

template <typename T>
decltype(auto) ValuesOf(const DerivedColumn& c) {
  if constexpr (std::is_same_v<T, std::string>)
    return std::get<TextColumn>(c.values).ToStrings();
  else
    return std::get<std::vector<T>>(c.values);  // a reference: decltype of the call
}

// Column `name` of `t`; throws naming both when the table has no such column.
template <typename T>
decltype(auto) Col(const DerivedTable& t, const char* name) {
  const DerivedColumn* c = t.Find(name);
  if (c == nullptr) throw std::runtime_error(t.name + " has no column " + name);
  return ValuesOf<T>(*c);
}

// The value in row `row` of column `name` (throws past the last row).
template <typename T>
T Cell(const DerivedTable& t, const char* name, size_t row) {
  return Col<T>(t, name).at(row);
}

}  // namespace th::testing
