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

std::string_view SeverityLabel(int severity) {
  switch (severity) {
    case 0:
      return "P0";
    case 1:
      return "P1";
    case kSeverityInfo:
      return "info";
    default:
      return "P2";
  }
}

}  // namespace th
