// The stragglers detector's phases (plugins/stragglers/straggler_phases.h) on
// small hand-built inputs; every expected figure is worked out in the comments.
#include "straggler_phases.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace th::stragglers {
namespace {

using th::collectives::Instance;
using th::collectives::kNoStep;
using th::collectives::Match;

Instance At(int64_t ts, int64_t end, int64_t step) {
  Instance x;
  x.ts = ts;
  x.end = end;
  x.step = step;
  return x;
}

TEST(BinomialTail, SumsTheUpperTail) {
  EXPECT_DOUBLE_EQ(BinomialTail(0, 5, 0.5), 1.0);    // k <= 0: certain
  EXPECT_DOUBLE_EQ(BinomialTail(2, 2, 0.5), 0.25);   // both: 1/4
  EXPECT_NEAR(BinomialTail(2, 3, 0.5), 0.5, 1e-12);  // 3/8 + 1/8
  EXPECT_NEAR(BinomialTail(4, 4, 1.0 / 3), 1.0 / 81, 1e-12);
}

TEST(RobustScale, MadThenMeanAbsoluteDeviationThenZero) {
  // Deviations from 3: 2 1 0 1 97, median 1.
  EXPECT_NEAR(RobustScale({1, 2, 3, 4, 100}, 3), 1.4826, 1e-12);
  // Deviations 0 0 0 6: MAD 0, mean absolute deviation 1.5.
  EXPECT_NEAR(RobustScale({0, 0, 0, 6}, 0), 1.253314 * 1.5, 1e-12);
  EXPECT_EQ(RobustScale({5, 5, 5}, 5), 0);
  EXPECT_EQ(RobustScale({}, 0), 0);
}

TEST(MatchArrivals, KeepsCollectivesEveryRankRanWithoutMismatch) {
  // Trace 1 has no collectives: the ranks taking part are traces 0 and 2.
  std::vector<std::vector<Instance>> inst = {
      {At(100, 200, 1), At(300, 400, 2)}, {}, {At(110, 205, 1), At(320, 410, 2)}};
  std::vector<Match> matches = {{"a", {{0, 0}, {2, 0}}, false},
                                {"b", {{0, 1}, {2, 1}}, true},  // names disagree
                                {"c", {{0, 1}}, false}};        // one rank only
  ArrivalMatrix a = MatchArrivals(inst, matches);
  EXPECT_EQ(a.part, (std::vector<size_t>{0, 2}));
  EXPECT_EQ(a.slot, (std::vector<size_t>{0, SIZE_MAX, 1}));
  ASSERT_EQ(a.collectives(), 1u);
  EXPECT_EQ(a.start, (std::vector<std::vector<int64_t>>{{100}, {110}}));
  EXPECT_EQ(a.end, (std::vector<std::vector<int64_t>>{{200}, {205}}));
  EXPECT_EQ(a.step, (std::vector<std::vector<int64_t>>{{1}, {1}}));
}

TEST(MatchArrivals, OneRankComparesNothing) {
  std::vector<std::vector<Instance>> inst = {{At(0, 10, 1)}, {}};
  ArrivalMatrix a = MatchArrivals(inst, {{"a", {{0, 0}}, false}});
  EXPECT_EQ(a.ranks(), 1u);
  EXPECT_EQ(a.collectives(), 0u);
}

ArrivalMatrix Ends(std::vector<std::vector<int64_t>> end) {
  ArrivalMatrix a;
  for (size_t p = 0; p < end.size(); ++p) a.part.push_back(p);
  a.start = end;
  a.step.assign(end.size(), std::vector<int64_t>(end[0].size(), 1));
  a.end = std::move(end);
  return a;
}

TEST(EstimateOffsets, MedianEndDifferenceCentredOnTheMedianRank) {
  // c0 ends 1000 1010 1030 (median 1010): -10 0 20; c1 ends 2000 2010 2000
  // (median 2000): 0 10 0. Per rank medians -5 5 10, centred on 5: -10 0 5.
  ClockOffsets o = EstimateOffsets(Ends({{1000, 2000}, {1010, 2010}, {1030, 2000}}));
  EXPECT_EQ(o.offset, (std::vector<double>{-10, 0, 5}));
  // Corrected ends: c0 1010 1010 1025, c1 2010 2010 1995; |residuals| 0 0 15
  // for each: rank 2 has 1.4826 x 15, the median over all six is 0.
  ASSERT_EQ(o.residual.size(), 3u);
  EXPECT_EQ(o.residual[0], 0);
  EXPECT_EQ(o.residual[1], 0);
  EXPECT_NEAR(o.residual[2], 1.4826 * 15, 1e-9);
  EXPECT_EQ(o.clock_residual, 0);
}

TEST(MeasureLateness, CorrectedStartsAgainstTheMedianPerCollectiveAndStep) {
  ArrivalMatrix a;
  a.part = {0, 1, 2};
  // Offsets -10 0 5: corrected starts c0 100 100 120, c1 200 200 210,
  // c2 300 305 295.
  a.start = {{90, 190, 290}, {100, 200, 305}, {125, 215, 300}};
  a.end = a.start;
  // c1's ranks disagree on the step: two of three put it in step 2.
  a.step = {{1, 1, 2}, {1, 2, 2}, {1, 2, 2}};
  ClockOffsets clocks;
  clocks.offset = {-10, 0, 5};
  Lateness l = MeasureLateness(a, clocks);
  EXPECT_EQ(l.late, (std::vector<std::vector<double>>{{0, 0, 0}, {0, 0, 5}, {20, 10, -5}}));
  EXPECT_EQ(l.last_of, (std::vector<size_t>{2, 2, 1}));
  EXPECT_EQ(l.last_count, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(l.step_of, (std::vector<int64_t>{1, 2, 2}));
  EXPECT_EQ(l.step_numbers, (std::vector<int64_t>{1, 2}));
  // Step 2 holds c1 and c2: rank 1 median(0, 5), rank 2 median(10, -5).
  EXPECT_EQ(l.cell, (std::vector<std::vector<double>>{{0, 0}, {0, 2.5}, {20, 2.5}}));
  EXPECT_EQ(l.StepSlot(2), 1u);
  EXPECT_EQ(l.StepSlot(3), 2u);
  EXPECT_EQ(l.StepSlot(kNoStep), 2u);
}

TEST(MeasureLateness, StepVoteTiesGoToTheLowestStep) {
  ArrivalMatrix a;
  a.part = {0, 1};
  a.start = {{0}, {0}};
  a.end = a.start;
  a.step = {{5}, {kNoStep}};
  ClockOffsets clocks;
  clocks.offset = {0, 0};
  EXPECT_EQ(MeasureLateness(a, clocks).step_of, (std::vector<int64_t>{kNoStep}));
}

// Three ranks, four collectives in two steps; rank 2 is 100-120 ns late.
Lateness ThreeRanks() {
  Lateness l;
  l.late = {{0, 0, 0, 0}, {0, 0, 10, 10}, {100, 100, 120, 120}};
  l.last_of = {2, 2, 2, 2};
  l.last_count = {0, 0, 4};
  l.step_of = {1, 1, 2, 2};
  l.step_numbers = {1, 2};
  l.cell = {{0, 0}, {0, 10}, {100, 120}};
  return l;
}

TEST(Score, RobustZOverRanksAndSteps) {
  ScoreOptions o;
  o.z_threshold = 3.5;
  o.min_lateness_ns = 100;
  o.min_ranks = 3;
  ClockOffsets clocks;
  StragglerVerdict v = Score(ThreeRanks(), clocks, o);
  // Cells 0 0 0 10 100 120: median 5, deviations 5 5 5 5 95 115, MAD 5,
  // scale 1.4826 x 5 = 7.413.
  ASSERT_TRUE(v.robust);
  const double scale = 7.413;
  EXPECT_NEAR(v.z[0][0], -5 / scale, 1e-9);
  EXPECT_NEAR(v.z[1][1], 5 / scale, 1e-9);
  EXPECT_NEAR(v.z[2][0], 95 / scale, 1e-9);  // 12.815
  EXPECT_NEAR(v.z[2][1], 115 / scale, 1e-9);
  EXPECT_NEAR(v.score[0], -5 / scale, 1e-9);
  EXPECT_NEAR(v.score[1], 0, 1e-12);
  EXPECT_NEAR(v.score[2], 105 / scale, 1e-9);  // 14.164
  EXPECT_EQ(v.flagged_steps, (std::vector<int64_t>{0, 0, 2}));
  EXPECT_EQ(v.latest_steps, (std::vector<int64_t>{0, 0, 2}));
  EXPECT_EQ(v.typical_late, (std::vector<double>{0, 5, 110}));
  // Last at 4 of 4 with p = 1/3 per collective: (1/3)^4.
  EXPECT_EQ(v.p_last[0], 1);
  EXPECT_NEAR(v.p_last[2], 1.0 / 81, 1e-12);
  EXPECT_EQ(v.candidate, 2u);
  EXPECT_NEAR(v.p_steps, 1.0 / 9, 1e-12);  // latest in 2 of 2 steps
  EXPECT_TRUE(v.is_straggler);
  // (1 - 1/81) x 2/(2 + 1) x 1 (no clock residual).
  EXPECT_NEAR(v.confidence, 80.0 / 81 * 2 / 3, 1e-12);

  clocks.clock_residual = 50;  // lateness 110 against 3 x 50: f_clock 11/15
  EXPECT_NEAR(Score(ThreeRanks(), clocks, o).confidence, 80.0 / 81 * 2 / 3 * 11 / 15, 1e-12);
  o.min_lateness_ns = 200;  // 110 ns is too little
  EXPECT_FALSE(Score(ThreeRanks(), clocks, o).is_straggler);
}

TEST(Score, TwoRanksCountLatestStepsAndCapConfidence) {
  Lateness l;
  l.late = {{-10, -20, -30, -40, -50}, {10, 20, 30, 40, 50}};
  l.last_of = {1, 1, 1, 1, 1};
  l.last_count = {0, 5};
  l.step_of = {1, 2, 3, 4, 5};
  l.step_numbers = {1, 2, 3, 4, 5};
  l.cell = {{-10, -20, -30, -40, -50}, {10, 20, 30, 40, 50}};
  ScoreOptions o;
  o.min_ranks = 2;
  o.min_lateness_ns = 25;
  StragglerVerdict v = Score(l, ClockOffsets{}, o);
  EXPECT_FALSE(v.robust);
  EXPECT_TRUE(std::isnan(v.score[1]));
  EXPECT_TRUE(std::isnan(v.z[1][0]));
  EXPECT_EQ(v.candidate, 1u);  // the most frequent last arrival
  EXPECT_EQ(v.latest_steps, (std::vector<int64_t>{0, 5}));
  EXPECT_NEAR(v.p_steps, 1.0 / 32, 1e-12);  // 0.5^5 < 0.05
  EXPECT_NEAR(v.p_last[1], 1.0 / 32, 1e-12);
  EXPECT_EQ(v.typical_late[1], 30);
  EXPECT_TRUE(v.is_straggler);
  // (1 - 1/32) x 5/6 = 0.807, capped at 0.5 without a robust z.
  EXPECT_EQ(v.confidence, 0.5);
  o.min_ranks = 3;
  EXPECT_FALSE(Score(l, ClockOffsets{}, o).is_straggler);
}

TEST(MeasureWaits, TimeBeyondTheShortestInstancePerTraceAndStep) {
  std::vector<std::vector<Instance>> inst = {{At(0, 100, 1), At(200, 230, 2), At(900, 1000, 2)},
                                             {At(0, 60, 1), At(500, 600, 1)}};
  std::vector<Match> matches = {{"a", {{0, 0}, {1, 0}}, false},  // transfer 60
                                {"b", {{0, 1}, {1, 1}}, false},  // transfer 30
                                {"c", {{0, 2}}, false}};         // one rank: no wait
  CollectiveWaits w = MeasureWaits(inst, matches);
  using Key = std::pair<size_t, int64_t>;
  EXPECT_EQ(w.wait, (std::map<Key, double>{{{0, 1}, 40}, {{0, 2}, 0}, {{1, 1}, 0 + 70}}));
  EXPECT_EQ(w.collective, (std::map<Key, double>{{{0, 1}, 100}, {{0, 2}, 30}, {{1, 1}, 160}}));
}

TEST(LateWindows, FromTheOthersMedianToTheCandidatesStartMerged) {
  ArrivalMatrix a;
  a.part = {0, 1, 2};
  a.start = {{90, 191, 300, 400, 130}, {100, 200, 330, 400, 140}, {150, 230, 290, 403, 160}};
  ClockOffsets clocks;
  clocks.offset = {-10, 0, 5};
  Lateness l;
  l.last_of = {2, 2, 1, 2, 2};
  // c0: others 100 100 -> 100 + 5 = 105 .. 150. c1: others 201 200 -> 200.5
  // + 5 rounds to 206 .. 230. c2: rank 1 was last. c3: others 410 400 -> 405 + 5 = 410,
  // after its start 403: no window. c4: 145 .. 160 merges into 105 .. 160.
  std::vector<Window> w = LateWindows(a, clocks, l, 2);
  EXPECT_EQ(w, (std::vector<Window>{{105, 160}, {206, 230}}));
}

TEST(OverlapWithWindows, ClipsToEachWindow) {
  std::vector<Window> w = {{105, 160}, {206, 230}};
  EXPECT_EQ(OverlapWithWindows(w, 0, 100), 0);
  EXPECT_EQ(OverlapWithWindows(w, 100, 110), 5);
  EXPECT_EQ(OverlapWithWindows(w, 150, 210), 10 + 4);
  EXPECT_EQ(OverlapWithWindows(w, 0, 1000), 55 + 24);
  EXPECT_EQ(OverlapWithWindows(w, 300, 400), 0);
  EXPECT_EQ(OverlapWithWindows({}, 0, 10), 0);
}

TEST(TopActivities, LongestFirstPerSourceWithShares) {
  std::map<std::string, int64_t> host = {{"a", 10}, {"b", 30}, {"c", 20}, {"d", 5}};
  std::map<std::string, int64_t> kernels = {{"k1(int)", 40}, {"k2", 40}, {"k3", 1}};
  TopActivityList top = TopActivities(host, kernels, 3, 80);
  ASSERT_EQ(top.rows.size(), 6u);
  const char* names[] = {"b", "c", "a", "k1(int)", "k2", "k3"};  // ties by name
  const int64_t overlaps[] = {30, 20, 10, 40, 40, 1};
  const double shares[] = {37.5, 25, 12.5, 50, 50, 1.25};  // of 80 ns
  for (size_t j = 0; j < 6; ++j) {
    EXPECT_EQ(top.rows[j].source, j < 3 ? "host" : "kernel");
    EXPECT_EQ(top.rows[j].name, names[j]);
    EXPECT_EQ(top.rows[j].overlap, overlaps[j]);
    EXPECT_EQ(top.rows[j].share, shares[j]);
  }
  // Three host events and two kernels; kernel names up to their arguments.
  EXPECT_EQ(top.summary,
            "host b 37.5%; host c 25.0%; host a 12.5%; kernel k1 50.0%; kernel k2 50.0%");
  EXPECT_TRUE(std::isnan(TopActivities(host, {}, 1, 0).rows[0].share));
}

// Three ranks (10, 11, 12) in two steps of mean length 1000 ns: kernels under
// 10 ns are dropped; the last per (rank, stream, step, name) counts.
std::vector<HtaKernel> HtaRows() {
  return {{0, 7, 1, 50, 5, "ncclA"},    {0, 7, 1, 100, 50, "ncclA"},  {0, 7, 1, 300, 60, "ncclA"},
          {1, 7, 1, 320, 80, "ncclA"},  {2, 7, 1, 310, 100, "ncclA"}, {0, 7, 2, 1300, 60, "ncclA"},
          {1, 7, 2, 1290, 60, "ncclA"}, {2, 7, 2, 1350, 60, "ncclA"}, {0, 7, 1, 400, 50, "ncclB"},
          {1, 7, 1, 410, 50, "ncclB"}};
}

TEST(HtaCandidates, LatestStartersOfTheMostVaryingKernel) {
  // ncclA durations / 1000: step 1 .06 .08 .10 (std .02), step 2 equal (0):
  // mean .01 > ncclB's 0. Step 1 starts 320 (rank 11) 310 (12) 300 (10);
  // step 2 1350 (12) 1300 (10) 1290 (11).
  HtaResult k1 = HtaCandidates(HtaRows(), 1000, 1, {10, 11, 12});
  EXPECT_TRUE(k1.selected);
  ASSERT_EQ(k1.order.size(), 3u);  // counts 11: 1, 12: 1, 10: 0
  EXPECT_EQ(k1.order[0].rank, 11);
  EXPECT_EQ(k1.order[0].count, 1);
  EXPECT_EQ(k1.order[1].rank, 12);
  EXPECT_EQ(k1.order[1].count, 1);
  EXPECT_EQ(k1.order[2].rank, 10);
  EXPECT_EQ(k1.order[2].count, 0);
  // k = 2: step 1 ranks 11 and 12, step 2 ranks 12 and 10.
  HtaResult k2 = HtaCandidates(HtaRows(), 1000, 2, {10, 11, 12});
  EXPECT_EQ(k2.order[0].rank, 12);
  EXPECT_EQ(k2.order[0].count, 2);
  EXPECT_EQ(k2.order[1].rank, 10);
  EXPECT_EQ(k2.order[1].count, 1);
  EXPECT_EQ(k2.order[2].rank, 11);
  EXPECT_EQ(k2.order[2].count, 1);
}

TEST(HtaCandidates, NoKernelOnTwoRanksSelectsNothing) {
  HtaResult r = HtaCandidates({{0, 7, 1, 0, 50, "ncclA"}}, 1000, 1, {3, 1});
  EXPECT_FALSE(r.selected);
  ASSERT_EQ(r.order.size(), 2u);
  EXPECT_EQ(r.order[0].rank, 1);
  EXPECT_EQ(r.order[0].count, 0);
  EXPECT_EQ(r.order[1].rank, 3);
}

}  // namespace
}  // namespace th::stragglers
