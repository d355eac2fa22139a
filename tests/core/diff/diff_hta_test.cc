// The aggregate level against Holistic Trace Analysis' compare_traces at its
// defaults, on the trace_diff pair of ../shared/data: with `hta` on, every
// one of HTA's 432 rows (counts and summed durations, both sides) and the
// totals, from the reference HTA computed (tests/data/trace_diff/).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <map>

#include "tests/core/diff/diff_test_support.h"

namespace th::diff {
namespace {

struct Figures {
  int64_t a_count = 0, a_ns = 0, b_count = 0, b_ns = 0;
  bool operator==(const Figures&) const = default;
};

class HtaCompareTraces : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string data = th::testing::SharedDataDir();
    if (data.empty()) return;
    const std::string dir = data + "/hta/tests/data/trace_diff/";
    a_ = testing::LoadSide({dir + "control/control.json.gz"}, "A").release();
    b_ = testing::LoadSide({dir + "test/test.json.gz"}, "B").release();
  }
  static void TearDownTestSuite() {
    delete a_;
    delete b_;
  }
  void SetUp() override {
    if (!a_) GTEST_SKIP() << "../shared/data absent: the trace_diff pair is not there";
  }
  static testing::Side* a_;
  static testing::Side* b_;
};
testing::Side* HtaCompareTraces::a_ = nullptr;
testing::Side* HtaCompareTraces::b_ = nullptr;

TEST_F(HtaCompareTraces, EveryRowAndTheTotalsEqualHtas) {
  DiffOptions o;
  o.hta = true;
  DiffResult r = testing::Diff(*a_, *b_, o);
  std::map<std::string, Figures> ours;  // HTA keys rows by name alone
  for (const AggregateRow& row : r.aggregate) {
    Figures& f = ours[row.name];
    f.a_count += row.a.count;
    f.a_ns += row.a.time_ns;
    f.b_count += row.b.count;
    f.b_ns += row.b.time_ns;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element ref;
  ASSERT_EQ(parser
                .load(std::string(TRACEHOUND_SOURCE_DIR) +
                      "/tests/data/trace_diff/hta_compare_traces.json")
                .get(ref),
            simdjson::SUCCESS);
  std::map<std::string, Figures> theirs;
  for (simdjson::dom::element row : ref["rows"].get_array())
    theirs[std::string(std::string_view(row["name"]))] = {
        int64_t(row["control_counts"]), int64_t(row["control_total_duration_us"]) * 1000,
        int64_t(row["test_counts"]), int64_t(row["test_total_duration_us"]) * 1000};
  ASSERT_EQ(theirs.size(), 432u);
  EXPECT_EQ(ours.size(), theirs.size());
  for (const auto& [name, f] : theirs) {
    auto it = ours.find(name);
    ASSERT_NE(it, ours.end()) << name;
    EXPECT_EQ(it->second, f) << name;
  }
  Figures total;
  for (const ClassTotal& t : r.totals) {
    total.a_count += t.a_count;
    total.a_ns += t.a_time_ns;
    total.b_count += t.b_count;
    total.b_ns += t.b_time_ns;
  }
  auto totals = ref["totals"];
  EXPECT_EQ(total.a_count, int64_t(totals["control_counts"]));
  EXPECT_EQ(total.a_ns, int64_t(totals["control_total_duration_us"]) * 1000);
  EXPECT_EQ(total.b_count, int64_t(totals["test_counts"]));
  EXPECT_EQ(total.b_ns, int64_t(totals["test_total_duration_us"]) * 1000);
  EXPECT_EQ(r.a.steps, 1);
  EXPECT_EQ(r.structure.size(), 1u);
}

// The default definitions differ (docs/diff.md): steady-state steps, every
// step but warm-up, device-extended windows, three classes. The figures stay
// whole: rows are unknown only when a side has fewer than 2 steps.
TEST_F(HtaCompareTraces, DefaultDiffKeepsTheSteadySteps) {
  DiffResult r = testing::Diff(*a_, *b_);
  EXPECT_GE(r.a.steps, 2);
  EXPECT_GE(r.b.steps, 2);
  EXPECT_EQ(r.a.steps + r.a.warmup_left_out, 6);
  EXPECT_EQ(r.b.steps + r.b.warmup_left_out, 6);
  ASSERT_TRUE(r.attribution.available);
  int64_t sum = 0;
  for (const Contributor& c : r.attribution.contributors) sum += c.delta_ns;
  EXPECT_EQ(sum, r.attribution.delta_ns);
  EXPECT_EQ(r.warnings[0], "device differs: A NVIDIA A100-PG509-200, B " + r.b.device)
      << "the pair's parity warnings come first";
}

}  // namespace
}  // namespace th::diff
