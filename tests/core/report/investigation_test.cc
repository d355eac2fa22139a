// The report's investigation sections on a trace written by the test: host
// reconciliation checks, changes ranked by inferred saving with step-time
// estimates, and the questions only a new capture can answer.
#include "core/report/investigation.h"

#include <gtest/gtest.h>

#include <string>

#include "core/import/trace_loader.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

// Four 1 ms steps; step 1 launches 3 kernels, steps 2-4 two each; one more
// kernel has a correlation id no launch carries.
std::string Trace(bool orphan) {
  std::string events;
  int corr = 0;
  auto add = [&](const std::string& e) { events += (events.empty() ? "" : ",\n") + e; };
  for (int s = 0; s < 4; ++s) {
    int t0 = s * 1000;
    add(R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" + std::to_string(s + 1) +
        R"(","pid":1,"tid":1,"ts":)" + std::to_string(t0) + R"(,"dur":1000})");
    for (int k = 0; k < (s == 0 ? 3 : 2); ++k) {
      ++corr;
      int ts = t0 + 10 + k * 100;
      add(R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" +
          std::to_string(ts) + R"(,"dur":5,"args":{"correlation":)" + std::to_string(corr) + "}}");
      add(R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(ts + 20) +
          R"(,"dur":50,"args":{"correlation":)" + std::to_string(corr) +
          R"(,"device":0,"stream":7}})");
    }
  }
  if (orphan)
    add(R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":3900,"dur":10,"args":{"correlation":999,"device":0,"stream":7}})");
  return R"({"traceEvents":[)" + events + "]}";
}

std::unique_ptr<TraceSet> Load(bool orphan) {
  auto set =
      LoadTraceSet({testing::WriteTempFile(orphan ? "inv_orphan.json" : "inv.json", Trace(orphan))},
                   LoadOptions{});
  EXPECT_TRUE(set.ok()) << set.status().message();
  return std::make_unique<TraceSet>(std::move(*set));
}

TEST(Investigation, ReconciliationChecks) {
  auto clean = Load(false);
  auto checks = Reconcile(*clean);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_TRUE(checks[0].passed) << checks[0].detail;  // 9 of 9 joined
  EXPECT_TRUE(checks[1].applicable);
  EXPECT_TRUE(checks[1].passed) << checks[1].detail;  // 2 per step after the first
  EXPECT_EQ(checks[1].detail.rfind("2 to 2", 0), 0u) << checks[1].detail;
  auto orphan = Load(true);
  checks = Reconcile(*orphan);
  EXPECT_FALSE(checks[0].passed);
  EXPECT_EQ(checks[0].detail.rfind("9 of 10", 0), 0u) << checks[0].detail;
}

TEST(Investigation, ChangesRankedWithStepEstimates) {
  auto set = Load(false);
  PluginResults results;
  Finding small, big, measured_only;
  small.plugin = big.plugin = measured_only.plugin = "p";
  small.title = "small";
  small.evidence.push_back({"saving_if_removed", 400000, "ns", NumberKind::kInferred});
  big.title = "big";
  big.evidence.push_back({"saving_estimate", 2000000, "ns", NumberKind::kInferred});
  measured_only.evidence.push_back({"device_time", 9e9, "ns", NumberKind::kMeasured});
  results.findings = {small, big, measured_only};
  auto changes = RankChanges(*set, results);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].finding->title, "big");
  EXPECT_EQ(changes[0].steps, 4);
  EXPECT_DOUBLE_EQ(changes[0].step_ns, 1000000);
  EXPECT_DOUBLE_EQ(changes[0].step_after_ns, 1000000 - 2000000 / 4.0);
}

TEST(Investigation, OpenQuestionsNameTheCapture) {
  auto set = Load(false);
  auto questions = OpenQuestions(*set);
  std::string all;
  for (const auto& q : questions) all += q.capture + "\n";
  EXPECT_NE(all.find("profile_memory=True"), std::string::npos) << all;
  EXPECT_NE(all.find("with_stack=True"), std::string::npos) << all;
  EXPECT_EQ(all.find("prof.step()"), std::string::npos) << all;  // it has steps
}

}  // namespace
}  // namespace th
