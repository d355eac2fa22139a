// One finding per cause. A plugin reports a cause once per scope it finds it
// in (a rank, a device, a stream); a job of 4 ranks × 2 streams gave eight
// near-identical lines. Findings of one plugin with the same title are one
// group: the reports show the group once, with its scopes and the range of
// each figure across them, the worst scope first; the JSON keeps every scope
// (each finding names its group).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/graph/analysis_results.h"

namespace th {

struct FindingGroup {
  std::string id;  // "plugin/group-N"
  std::string plugin, title;
  FindingSeverity severity = FindingSeverity::kP2;  // the worst member's
  std::vector<size_t> members;                      // indices into the findings, worst first
  // Several members: "8 streams on 4 ranks (worst: rank 2, device 2, stream
  // 27); idle_pct 12.9–54.7 %, host_wait_pct 18.8–99.7 %". One: empty.
  std::string summary;
};

// What one output shows: findings at least as severe as `min_severity` (kP0 =
// P0 only, kP2 = P0-P2, kInfo = all, info findings included), at most
// `max_groups` groups (causes; -1 = no limit).
struct FindingFilter {
  FindingSeverity min_severity = FindingSeverity::kInfo;
  int max_groups = -1;
};

struct GroupedFindings {
  std::vector<FindingGroup> groups;               // shown
  size_t hidden_groups = 0, hidden_findings = 0;  // left out by the filter
};

// Groups in report order: by severity (worst first), then first appearance.
GroupedFindings GroupFindings(const std::vector<Finding>& findings,
                              const FindingFilter& filter = {});

// "rank 2, device 2, stream 27" ("all" when unscoped).
std::string ScopeText(const ReportScope& scope);

}  // namespace th
