#include "core/graph/finding_severity.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>

namespace th {
namespace {

constexpr std::array<FindingSeverity, 4> kAll = {FindingSeverity::kP0, FindingSeverity::kP1,
                                                 FindingSeverity::kP2, FindingSeverity::kInfo};

TEST(FindingSeverity, LabelsAreWhatReportsAndPipelinesWrite) {
  EXPECT_EQ(SeverityLabel(FindingSeverity::kP0), "P0");
  EXPECT_EQ(SeverityLabel(FindingSeverity::kP1), "P1");
  EXPECT_EQ(SeverityLabel(FindingSeverity::kP2), "P2");
  EXPECT_EQ(SeverityLabel(FindingSeverity::kInfo), "info");
}

TEST(FindingSeverity, ParsesExactlyTheLabels) {
  for (FindingSeverity s : kAll) EXPECT_EQ(ParseSeverity(SeverityLabel(s)), s);
  for (const char* text : {"", "p0", "P3", "P", "INFO", "Info", " P1", "P1 ", "P01", "0", "3"})
    EXPECT_FALSE(ParseSeverity(text)) << text;
}

TEST(FindingSeverity, CodesAreTheDatabaseColumnAndThePluginAbi) {
  EXPECT_EQ(SeverityCode(FindingSeverity::kP0), 0);
  EXPECT_EQ(SeverityCode(FindingSeverity::kP1), 1);
  EXPECT_EQ(SeverityCode(FindingSeverity::kP2), 2);
  EXPECT_EQ(SeverityCode(FindingSeverity::kInfo), 3);
  for (FindingSeverity s : kAll) EXPECT_EQ(SeverityFromCode(SeverityCode(s)), s);
  EXPECT_FALSE(SeverityFromCode(-1));
  EXPECT_FALSE(SeverityFromCode(4));
  EXPECT_FALSE(SeverityFromCode(INT64_MIN));
}

TEST(FindingSeverity, OnlyInfoIsNoProblem) {
  EXPECT_TRUE(IsProblem(FindingSeverity::kP0));
  EXPECT_TRUE(IsProblem(FindingSeverity::kP1));
  EXPECT_TRUE(IsProblem(FindingSeverity::kP2));
  EXPECT_FALSE(IsProblem(FindingSeverity::kInfo));
}

TEST(FindingSeverity, OrderRunsFromP0ToInfo) {
  // kAll is ordered most severe first.
  for (size_t i = 0; i < kAll.size(); ++i) {
    for (size_t j = 0; j < kAll.size(); ++j) {
      EXPECT_EQ(AtLeastAsSevere(kAll[i], kAll[j]), i <= j) << i << " " << j;
      EXPECT_EQ(MoreSevere(kAll[i], kAll[j]), i < j) << i << " " << j;
      EXPECT_EQ(MostSevere(kAll[i], kAll[j]), kAll[std::min(i, j)]) << i << " " << j;
    }
  }
  // A P1 threshold (fail_on: P1, min_severity: P1) takes P0 and P1 only.
  EXPECT_TRUE(AtLeastAsSevere(FindingSeverity::kP0, FindingSeverity::kP1));
  EXPECT_TRUE(AtLeastAsSevere(FindingSeverity::kP1, FindingSeverity::kP1));
  EXPECT_FALSE(AtLeastAsSevere(FindingSeverity::kP2, FindingSeverity::kP1));
  EXPECT_FALSE(AtLeastAsSevere(FindingSeverity::kInfo, FindingSeverity::kP1));
}

template <typename T>
concept Ordered = requires(T a, T b) {
  a < b;
};
template <typename T>
concept OrderedOrEqual = requires(T a, T b) {
  a >= b;
};
static_assert(!Ordered<FindingSeverity>, "order by AtLeastAsSevere/MoreSevere, not the codes");
static_assert(!OrderedOrEqual<FindingSeverity>);
static_assert(FindingSeverity::kP1 == FindingSeverity::kP1);

}  // namespace
}  // namespace th
