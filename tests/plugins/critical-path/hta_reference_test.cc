// critical-path against Holistic Trace Analysis' own critical path analysis
// on HTA's four critical_path test traces (../shared/data), at the rank,
// annotation and instance HTA's tests use: the same path length and the same
// time per bound (the reference HTA computed: tests/data/critical_path/).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <map>
#include <string>

#include "tests/plugins/critical-path/test_support.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

using testing::Col;

struct Case {
  const char* name;
};

class HtaReference : public ::testing::TestWithParam<Case> {};

TEST_P(HtaReference, PathLengthAndBoundsEqualHtas) {
  const std::string data = testing::SharedDataDir();
  if (data.empty())
    GTEST_SKIP() << "../shared/data absent: HTA's critical_path traces are not there";
  simdjson::dom::parser parser;
  simdjson::dom::element ref;
  ASSERT_EQ(parser
                .load(std::string(TRACEHOUND_SOURCE_DIR) +
                      "/tests/data/critical_path/hta_critical_path.json")
                .get(ref),
            simdjson::SUCCESS);
  const simdjson::dom::element c = ref["cases"][GetParam().name];
  auto set = LoadTraceSet({data + "/" + std::string(std::string_view(c["trace"]))}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  std::map<std::string, OptionValue> options = {
      {"annotation", std::string(std::string_view(c["annotation"]))},
      {"instance", c["instance_id"].is_null() ? int64_t{-1} : int64_t(c["instance_id"])},
      {"across_ranks", false}};
  const PluginResults r = testing::RunCriticalPath(*set, options, false);
  const DerivedTable& path = r.tables.at("critical_path");
  ASSERT_EQ(path.rows, 1u);
  EXPECT_EQ(Col<int64_t>(path, "path")[0], int64_t(c["path_us"]) * 1000);
  std::map<std::string, int64_t> ours, theirs;
  const DerivedTable& cats = r.tables.at("critical_path_categories");
  for (size_t i = 0; i < cats.rows; ++i) {
    const std::string bound = Col<std::string>(cats, "hta_bound")[i];
    if (!bound.empty() && Col<int64_t>(cats, "time")[i] != 0)
      ours[bound] = Col<int64_t>(cats, "time")[i];
  }
  for (auto [bound, us] : c["by_bound_us"].get_object())
    if (int64_t(us) != 0) theirs[std::string(bound)] = int64_t(us) * 1000;
  EXPECT_EQ(ours, theirs);
  // The invariant holds on every path.
  for (const Check& check : r.checks)
    EXPECT_TRUE(check.passed) << check.name << ": " << check.detail;
}

INSTANTIATE_TEST_SUITE_P(CriticalPathTraces, HtaReference,
                         ::testing::Values(Case{"simple_add"}, Case{"alexnet"},
                                           Case{"cuda_event_sync"},
                                           Case{"cuda_event_sync_multi_stream"}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace th
