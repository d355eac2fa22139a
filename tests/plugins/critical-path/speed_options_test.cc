// The options that make critical-path cheaper change nothing else, on real
// traces of ../shared/data (the 8-rank DLRM capture: 8 per-rank windows and
// the path across ranks; HTA's df_index_resolver trace: 5 steps of one rank):
// - `threads`: everything it reports (tables, check, findings, in the
//   canonical JSON) is the same bytes with 1 and 3 threads;
// - `events: false`: critical_path_events is empty, every other table the
//   same bytes.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "core/report/plugin_results_json.h"
#include "tests/plugins/critical-path/test_support.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

class CriticalPathSpeedOptions : public ::testing::TestWithParam<const char*> {};

std::string Json(const PluginResults& r) {
  std::ostringstream out;
  WritePluginResultsJson(r, out);
  return out.str();
}

std::string Report(const TraceSet& set, int64_t threads) {
  return Json(testing::RunCriticalPath(set, {{"threads", threads}}));
}

TEST_P(CriticalPathSpeedOptions, SameBytesOnOneAndThreeThreads) {
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

TEST_P(CriticalPathSpeedOptions, WithoutEventsOnlyTheEventsTableIsEmpty) {
  const std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data absent: no real trace to run on";
  auto set = LoadTraceSet({data + "/" + GetParam()}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  PluginResults with = testing::RunCriticalPath(*set, {});
  PluginResults without = testing::RunCriticalPath(*set, {{"events", false}});
  ASSERT_GT(with.tables.at("critical_path_events").rows, 1000u);
  EXPECT_EQ(without.tables.at("critical_path_events").rows, 0u);
  EXPECT_EQ(without.tables.at("critical_path_events").columns.size(),
            with.tables.at("critical_path_events").columns.size());
  with.tables.erase("critical_path_events");
  without.tables.erase("critical_path_events");
  EXPECT_EQ(Json(with), Json(without));
}

INSTANTIATE_TEST_SUITE_P(RealTraces, CriticalPathSpeedOptions,
                         ::testing::Values("param/et_replay/tests/data/dlrm_kineto.tar.gz",
                                           "hta/tests/data/df_index_resolver/"
                                           "df_index_resolver.json.gz"));

}  // namespace
}  // namespace th
