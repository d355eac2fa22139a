// The windows' paths computed on several threads give the same bytes as on
// one: everything critical-path reports (tables, check, findings, in the
// canonical JSON) with `threads` 1 and 3, on real traces of ../shared/data
// (the 8-rank DLRM capture: 8 per-rank windows and the path across ranks;
// HTA's df_index_resolver trace: 5 steps of one rank).
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "core/report/plugin_results_json.h"
#include "tests/plugins/critical-path/test_support.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

class CriticalPathThreads : public ::testing::TestWithParam<const char*> {};

std::string Report(const TraceSet& set, int64_t threads) {
  const PluginResults r = testing::RunCriticalPath(set, {{"threads", threads}});
  std::ostringstream out;
  WritePluginResultsJson(r, out);
  return out.str();
}

TEST_P(CriticalPathThreads, SameBytesOnOneAndThreeThreads) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data absent: no real trace to run on";
  auto set = LoadTraceSet({data + "/" + GetParam()}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  const PluginResults one = testing::RunCriticalPath(*set, {{"threads", int64_t{1}}});
  ASSERT_GE(one.tables.at("critical_path").rows, 5u);
  ASSERT_GT(one.tables.at("critical_path_events").rows, 1000u);
  ASSERT_GT(one.tables.at("critical_path_spans").rows, 1000u);
  EXPECT_EQ(Report(*set, 1), Report(*set, 3));
}

INSTANTIATE_TEST_SUITE_P(RealTraces, CriticalPathThreads,
                         ::testing::Values("param/et_replay/tests/data/dlrm_kineto.tar.gz",
                                           "hta/tests/data/df_index_resolver/"
                                           "df_index_resolver.json.gz"));

}  // namespace
}  // namespace th
