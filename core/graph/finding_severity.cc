#include "core/graph/finding_severity.h"

namespace th {

std::optional<FindingSeverity> ParseSeverity(std::string_view label) {
  for (FindingSeverity s :
       {FindingSeverity::kP0, FindingSeverity::kP1, FindingSeverity::kP2, FindingSeverity::kInfo})
    if (SeverityLabel(s) == label) return s;
  return std::nullopt;
}

}  // namespace th
