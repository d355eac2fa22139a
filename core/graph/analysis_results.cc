#include "core/graph/analysis_results.h"

namespace th {

std::string_view NumberKindName(NumberKind k) {
  switch (k) {
    case NumberKind::kMeasured:
      return "measured";
    case NumberKind::kRead:
      return "read";
    case NumberKind::kInferred:
      return "inferred";
  }
  return "measured";
}

}  // namespace th
