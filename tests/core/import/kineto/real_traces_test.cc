// Every Kineto trace in ../shared/data imported and checked against the
// independent oracle facts in ../shared/data/expected/*.oracle.json.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <map>

#include "core/import/trace_loader.h"
#include "core/report/trace_summary.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string trace;   // path under data/
  std::string oracle;  // its oracle file
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.trace; }

std::vector<Case> KinetoCases() {
  std::vector<Case> cases;
  std::string data = testing::SharedDataDir();
  if (data.empty()) return cases;
  for (const auto& entry : fs::recursive_directory_iterator(data + "/expected")) {
    std::string p = entry.path().string();
    const std::string suffix = ".oracle.json";
    if (p.size() < suffix.size() || p.substr(p.size() - suffix.size()) != suffix) continue;
    std::string rel = fs::relative(p, data + "/expected").string();
    rel.resize(rel.size() - suffix.size());
    std::string text = testing::ReadFile(p);
    if (text.find("\"kind\": \"kineto_json\"") == std::string::npos &&
        text.find("\"kind\": \"tar\"") == std::string::npos)
      continue;
    cases.push_back({rel, p});
  }
  std::sort(cases.begin(), cases.end(),
            [](const Case& a, const Case& b) { return a.trace < b.trace; });
  return cases;
}

int64_t Int(simdjson::dom::element e, std::string_view path) {
  simdjson::dom::element v;
  if (e.at_pointer(path).get(v)) return -1;
  int64_t i;
  if (!v.get_int64().get(i)) return i;
  return -1;
}

std::map<std::string, int64_t> Counts(simdjson::dom::element e, std::string_view path) {
  std::map<std::string, int64_t> out;
  simdjson::dom::object o;
  if (e.at_pointer(path).get(o)) return out;
  for (auto [k, v] : o) out[std::string(k)] = v.get_int64().value();
  return out;
}

// Checks one trace's summary against one oracle object.
void ExpectMatchesOracle(const Trace& trace, simdjson::dom::element o) {
  TraceSummary s = Summarize(trace);
  SCOPED_TRACE(trace.info.path);
  EXPECT_EQ(s.events, Int(o, "/events/total"));
  EXPECT_EQ(s.events_by_phase, Counts(o, "/events/by_ph"));
  EXPECT_EQ(s.events_by_category, Counts(o, "/events/by_cat"));
  // Legacy traces (Kernel/Memcpy/Runtime) are compared after normalisation.
  simdjson::dom::element gpu;
  if (o["gpu_legacy_normalized"].get(gpu)) gpu = o["gpu"].value();
  EXPECT_EQ(s.kernels.count, Int(gpu, "/kernel/count"));
  EXPECT_EQ(s.kernels.total_ns, Int(gpu, "/kernel/total_dur_ns"));
  EXPECT_EQ(s.memcpy.count, Int(gpu, "/gpu_memcpy/count"));
  EXPECT_EQ(s.memcpy.total_ns, Int(gpu, "/gpu_memcpy/total_dur_ns"));
  EXPECT_EQ(s.memset.count, Int(gpu, "/gpu_memset/count"));
  EXPECT_EQ(s.memset.total_ns, Int(gpu, "/gpu_memset/total_dur_ns"));
  EXPECT_EQ(s.gpu_streams, Int(gpu, "/streams/pid_tid_count"));
  EXPECT_EQ(s.kernels_with_launch, Int(gpu, "/correlation/kernels_matched"));
  EXPECT_EQ(trace.trust.Count(TrustId::kKernelLaunchedBeforeCapture),
            Int(gpu, "/correlation/kernels_unmatched_below_first_launch"));
  EXPECT_EQ(s.profiler_step_events, Int(o, "/profiler_steps/count"));
  auto steps_by_cat = Counts(o, "/profiler_steps/by_cat");
  int64_t host_steps = 0;
  for (auto& [cat, n] : steps_by_cat)
    if (cat != "gpu_user_annotation") host_steps += n;
  EXPECT_EQ(s.steps, host_steps);
  EXPECT_EQ(s.memory_events, Int(o, "/memory_events/count"));
  simdjson::dom::element peak = o.at_pointer("/memory_events/max_total_allocated").value();
  if (peak.is_null()) {
    EXPECT_FALSE(s.peak_total_allocated.has_value());
  } else {
    EXPECT_EQ(s.peak_total_allocated.value_or(-1), peak.get_int64().value());
  }
  if (s.first_ts_ns) {
    EXPECT_EQ(*s.first_ts_ns, Int(o, "/events/t0_ns"));
    EXPECT_EQ(*s.last_end_ns, Int(o, "/events/end_max_ns"));
  }
  std::string_view basis = o.at_pointer("/events/timestamps/basis").get_string().value();
  EXPECT_EQ(s.timestamp_basis, basis);
  simdjson::dom::element epoch = o.at_pointer("/events/timestamps/epoch_start_ns").value();
  if (epoch.is_null()) {
    EXPECT_FALSE(s.epoch_start_ns.has_value());
  } else {
    EXPECT_EQ(s.epoch_start_ns.value_or(-1), epoch.get_int64().value());
  }
  simdjson::dom::element base = o["baseTimeNanoseconds"].value();
  if (!base.is_null()) {
    EXPECT_EQ(trace.info.base_time_ns.value_or(-1), base.get_int64().value());
  }
  simdjson::dom::element dist = o["distributedInfo"].value();
  if (!dist.is_null() && !dist["rank"].is_null()) {
    ASSERT_TRUE(trace.info.distributed.has_value());
    EXPECT_EQ(trace.info.distributed->rank.value_or(-1), dist["rank"].get_int64().value());
    EXPECT_EQ(trace.info.rank, dist["rank"].get_int64().value());
  }
  EXPECT_EQ(static_cast<int64_t>(trace.info.devices.size()), Int(o, "/deviceProperties/count"));
  EXPECT_EQ(trace.trust.Count(TrustId::kEventWithoutPhase),
            std::max<int64_t>(0, Int(o, "/events/by_ph/<none>")));
}

class RealKinetoTrace : public ::testing::TestWithParam<Case> {};

TEST_P(RealKinetoTrace, MatchesOracle) {
  const Case& c = GetParam();
  std::string data = testing::SharedDataDir();
  auto set = LoadTraceSet({data + "/" + c.trace}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  simdjson::dom::parser parser;
  simdjson::dom::element oracle = parser.load(c.oracle).value();
  if (oracle["kind"].get_string().value() == "tar") {
    simdjson::dom::array members = oracle["members"].get_array().value();
    ASSERT_EQ(set->traces.size(), members.size());
    for (simdjson::dom::element m : members) {
      std::string member(m["member"].get_string().value());
      const Trace* found = nullptr;
      for (const auto& t : set->traces)
        if (t->info.path.size() >= member.size() &&
            t->info.path.compare(t->info.path.size() - member.size(), member.size(), member) == 0)
          found = t.get();
      ASSERT_NE(found, nullptr) << member;
      ExpectMatchesOracle(*found, m);
    }
  } else {
    ASSERT_EQ(set->traces.size(), 1u);
    ExpectMatchesOracle(*set->traces[0], oracle);
  }
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string n = info.param.trace;
  for (char& ch : n)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(SharedData, RealKinetoTrace, ::testing::ValuesIn(KinetoCases()), CaseName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RealKinetoTrace);

TEST(RealKinetoTraces, SharedDataPresent) {
  if (testing::SharedDataDir().empty())
    GTEST_SKIP() << "../shared/data is absent: real-trace tests skipped";
  EXPECT_GE(KinetoCases().size(), 40u);
}

TEST(RealKinetoTraces, DlrmArchiveGivesEightRanksInOrder) {
  std::string data = testing::SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent";
  auto set = LoadTraceSet({data + "/param/et_replay/tests/data/dlrm_kineto.tar.gz"}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set->traces.size(), 8u);
  for (int r = 0; r < 8; ++r) EXPECT_EQ(set->traces[r]->info.rank, r);
}

}  // namespace
}  // namespace th
