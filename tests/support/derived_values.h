// The values of a derived table's column, for tests: the column itself (by
// reference) for T = int64_t or double; for T = std::string a copy of the
// text column's values (TextColumn packs them), so tests compare vectors.
#pragma once

#include <cstdint>
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

}  // namespace th::testing
