// The diff result as JSON (schema "tracehound.diff/1", docs/diff.md): every
// time an integer in ns, Δ% a number with at most two decimals (null when A
// is 0), fields always present in the documented order.
#pragma once

#include <string>

#include "core/diff/diff_result.h"

namespace th::diff {

std::string DiffJson(const DiffResult& r);

}  // namespace th::diff
