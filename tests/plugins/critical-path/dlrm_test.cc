// critical-path across the 8 ranks of the DLRM capture (../shared/data,
// param/et_replay/tests/data/dlrm_kineto.tar.gz) beside the stragglers
// plugin: wherever the late rank the stragglers plugin names arrived last at
// a collective, by more than the clock uncertainty (its largest clock
// residual), that rank gates the collective. The other collectives are
// printed: there the path may name another rank (a rank that arrived last
// after idling has the shorter chain of work; plugins/critical-path/README.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "tests/plugins/critical-path/test_support.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

using testing::Col;

TEST(CriticalPathRealData, DlrmGatingRankIsTheLateRank) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data absent: the DLRM capture is not there";
  auto set = LoadTraceSet({data + "/param/et_replay/tests/data/dlrm_kineto.tar.gz"}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  PluginResults r;
  ASSERT_TRUE(RunPlugin(testing::LoadBuiltin("th_collectives.so"), *set, {}, &r).ok());
  ASSERT_TRUE(RunPlugin(testing::LoadBuiltin("th_stragglers.so"), *set, {}, &r).ok());
  ASSERT_TRUE(RunPlugin(testing::LoadBuiltin("th_critical_path.so"), *set, {}, &r).ok());

  // Clock offsets and the clock uncertainty (the largest residual) per stragglers.
  const DerivedTable& st = r.tables.at("stragglers");
  std::map<int64_t, double> offset;
  double uncertainty = 0;
  int64_t late = -1;
  for (size_t i = 0; i < st.rows; ++i) {
    offset[Col<int64_t>(st, "rank")[i]] = Col<double>(st, "clock_offset")[i];
    uncertainty = std::max(uncertainty, Col<double>(st, "clock_residual")[i]);
    if (Col<int64_t>(st, "straggler")[i]) late = Col<int64_t>(st, "rank")[i];
  }
  ASSERT_EQ(offset.size(), 8u);
  ASSERT_EQ(late, 7);  // the stragglers plugin's late rank on this capture
  // Per collective: corrected arrivals, the last rank and its wait over the next.
  struct Arrival {
    int64_t last = -1;
    double at = -1e300, next = -1e300;
  };
  std::map<int64_t, Arrival> arrival;
  const DerivedTable& cr = r.tables.at("collective_ranks");
  for (size_t i = 0; i < cr.rows; ++i) {
    Arrival& a = arrival[Col<int64_t>(cr, "id")[i]];
    const int64_t rank = Col<int64_t>(cr, "rank")[i];
    const double at = static_cast<double>(Col<int64_t>(cr, "ts")[i]) - offset[rank];
    if (at > a.at) {
      a.next = a.at;
      a.at = at;
      a.last = rank;
    } else {
      a.next = std::max(a.next, at);
    }
  }
  const DerivedTable& k = r.tables.at("critical_path_collectives");
  ASSERT_GT(k.rows, 0u);
  int compared = 0;
  for (size_t i = 0; i < k.rows; ++i) {
    const Arrival& a = arrival.at(Col<int64_t>(k, "collective")[i]);
    const double wait = a.at - a.next;
    std::printf(
        "[critical-path] dlrm collective %lld: gating rank %lld (lead %lld ns), last "
        "arrival rank %lld (wait %.0f ns, clock uncertainty %.0f ns)\n",
        static_cast<long long>(Col<int64_t>(k, "collective")[i]),
        static_cast<long long>(Col<int64_t>(k, "gating_rank")[i]),
        static_cast<long long>(Col<int64_t>(k, "lead")[i]), static_cast<long long>(a.last), wait,
        uncertainty);
    if (a.last != late || wait <= uncertainty) continue;
    ++compared;
    EXPECT_EQ(Col<int64_t>(k, "gating_rank")[i], late)
        << "collective " << Col<int64_t>(k, "collective")[i];
  }
  EXPECT_EQ(compared, 5);  // rank 7 arrived last at 5 of the 8 collectives
  for (const Check& c : r.checks) {
    if (c.plugin == "critical-path") {
      EXPECT_TRUE(c.passed) << c.name << ": " << c.detail;
    }
  }
}

}  // namespace
}  // namespace th
