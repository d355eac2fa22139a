#include "core/report/finding_groups.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace th {
namespace {

Finding Stream(int64_t rank, int64_t device, int64_t stream, double share,
               FindingSeverity severity = FindingSeverity::kP2) {
  Finding f;
  f.plugin = "idle-launch";
  f.severity = severity;
  f.title = "GPU stream waits on the host (launch-bound)";
  f.what = "rank " + std::to_string(rank) + " stream " + std::to_string(stream);
  f.scope.rank = rank;
  f.scope.device = device;
  f.scope.stream = stream;
  f.evidence.push_back({"host_wait_share_of_span", share, "%", NumberKind::kMeasured});
  f.evidence.push_back({"span", 70e6, "ns", NumberKind::kMeasured});
  return f;
}

// Eight near-identical findings (4 ranks × 2 streams) are one cause.
std::vector<Finding> EightStreams() {
  std::vector<Finding> f;
  for (int r = 0; r < 4; ++r)
    for (int s : {20, 27}) f.push_back(Stream(r, r, s, s == 27 ? 40.0 + r : 14.0 + r));
  Finding other;
  other.plugin = "stragglers";
  other.severity = FindingSeverity::kP1;
  other.title = "rank 2 is a straggler";
  f.push_back(other);
  return f;
}

TEST(GroupFindings, OneGroupPerPluginAndTitleWorstFirst) {
  std::vector<Finding> f = EightStreams();
  GroupedFindings g = GroupFindings(f);
  ASSERT_EQ(g.groups.size(), 2u);
  EXPECT_EQ(g.groups[0].plugin, "stragglers");  // P1 before P2
  EXPECT_TRUE(g.groups[0].summary.empty());     // one scope: its own words
  const FindingGroup& idle = g.groups[1];
  EXPECT_EQ(idle.id, "idle-launch/group-1");
  ASSERT_EQ(idle.members.size(), 8u);
  EXPECT_EQ(f[idle.members.front()].scope.rank, 3);  // share 43 %, the worst
  EXPECT_EQ(f[idle.members.front()].scope.stream, 27);
  EXPECT_EQ(idle.summary,
            "8 streams on 4 ranks (worst: rank 3, device 3, stream 27); "
            "host_wait_share_of_span 14 % – 43 %, span 70.000 ms");
  EXPECT_EQ(g.hidden_findings, 0u);
}

TEST(GroupFindings, SeverityRanksScopesAndGroups) {
  std::vector<Finding> f = EightStreams();
  f[2].severity = FindingSeverity::kP1;  // rank 1 stream 20 is P1
  GroupedFindings g = GroupFindings(f);
  EXPECT_EQ(g.groups[0].severity, FindingSeverity::kP1);
  EXPECT_EQ(g.groups[1].severity, FindingSeverity::kP1);
  const FindingGroup& idle = g.groups[0].plugin == "idle-launch" ? g.groups[0] : g.groups[1];
  EXPECT_EQ(idle.members.front(), 2u);
}

TEST(GroupFindings, AnOutputFilterLeavesOutAndCounts) {
  std::vector<Finding> f = EightStreams();
  GroupedFindings p1 = GroupFindings(f, {.min_severity = FindingSeverity::kP1});
  ASSERT_EQ(p1.groups.size(), 1u);
  EXPECT_EQ(p1.groups[0].plugin, "stragglers");
  EXPECT_EQ(p1.hidden_groups, 1u);
  EXPECT_EQ(p1.hidden_findings, 8u);
  GroupedFindings one = GroupFindings(f, {.max_groups = 1});
  ASSERT_EQ(one.groups.size(), 1u);
  EXPECT_EQ(one.hidden_findings, 8u);
  GroupedFindings none = GroupFindings(f, {.max_groups = 0});
  EXPECT_TRUE(none.groups.empty());
  EXPECT_EQ(none.hidden_findings, 9u);
}

TEST(ScopeText, NamesEveryPartThatIsSet) {
  EXPECT_EQ(ScopeText({}), "all");
  EXPECT_EQ(ScopeText({.rank = 3, .device = 1, .stream = 7}), "rank 3, device 1, stream 7");
  EXPECT_EQ(ScopeText({.rank = 0, .step_first = 2, .step_last = 5}), "rank 0, steps 2–5");
}

}  // namespace
}  // namespace th
