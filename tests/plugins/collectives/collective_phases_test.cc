// The collectives analyzer's phases (plugins/collectives/collective_phases.h)
// on hand-built instances and matches; every expected figure is worked out in
// the comments.
#include "collective_phases.h"

#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

namespace th::collectives {
namespace {

Instance At(int64_t ts, int64_t end, int64_t step = kNoStep) {
  Instance x;
  x.ts = ts;
  x.end = end;
  x.step = step;
  return x;
}

Instance Sized(std::string collective, std::string dtype, int64_t in, int64_t out,
               int64_t group_size, int64_t ts = 0, int64_t end = 400) {
  Instance x = At(ts, end);
  x.collective = std::move(collective);
  x.dtype = std::move(dtype);
  x.in_nelems = in;
  x.out_nelems = out;
  x.group_size = group_size;
  return x;
}

TEST(TimeMatch, ShortestDurationIsTheTransferTheRestIsWait) {
  // Durations 300 230 300: transfer 230, waits 70 0 70. Starts 100 150 150:
  // skew 50; the first of the latest starts is rank 11.
  std::vector<std::vector<Instance>> inst = {{At(100, 400)}, {At(150, 380)}, {At(150, 450)}};
  Match m{"k", {{0, 0}, {1, 0}, {2, 0}}, false};
  MatchTiming t = TimeMatch(m, inst, {10, 11, 12});
  EXPECT_EQ(t.transfer, 230);
  EXPECT_EQ(t.wait_max, 70);
  EXPECT_EQ(t.wait_total, 140);
  EXPECT_EQ(t.skew, 50);
  EXPECT_EQ(t.last_rank, 11);
}

TEST(TimeMatch, OneRankMeasuresNothing) {
  std::vector<std::vector<Instance>> inst = {{At(100, 400)}};
  MatchTiming t = TimeMatch({"k", {{0, 0}}, false}, inst, {3});
  EXPECT_EQ(t.transfer, -1);
  EXPECT_EQ(t.wait_max, -1);
  EXPECT_EQ(t.wait_total, -1);
  EXPECT_EQ(t.skew, -1);
  EXPECT_EQ(t.last_rank, -1);
}

TEST(MeasureBandwidth, BytesOverTransferTimesTheBusFactor) {
  // max(1000, 500) floats = 4000 bytes over 200 ns = 20 GB/s; all-reduce over
  // a group of 4: x 2 x 3/4 = 30 GB/s.
  Bandwidth b = MeasureBandwidth(Sized("allreduce", "float", 1000, 500, 4), 200, 2);
  EXPECT_EQ(b.algbw, 20);
  EXPECT_EQ(b.busbw, 30);
  EXPECT_EQ(b.basis, "transfer");
  // No group size: the ranks present (2) give all-gather's factor 1/2.
  b = MeasureBandwidth(Sized("allgather", "float", 1000, 500, -1), 200, 2);
  EXPECT_EQ(b.busbw, 10);
}

TEST(MeasureBandwidth, OwnDurationWithoutTransferAndNaNWhenUnknown) {
  // One rank: 4000 bytes over its own 400 ns; a group of one has no bus factor.
  Bandwidth b = MeasureBandwidth(Sized("allreduce", "float", 1000, 500, -1), -1, 1);
  EXPECT_EQ(b.algbw, 10);
  EXPECT_TRUE(std::isnan(b.busbw));
  EXPECT_EQ(b.basis, "own duration (lower bound)");
  b = MeasureBandwidth(Sized("barrier", "float", 1000, 500, 4), 200, 4);  // no bus factor
  EXPECT_EQ(b.algbw, 20);
  EXPECT_TRUE(std::isnan(b.busbw));
  b = MeasureBandwidth(Sized("allreduce", "", 1000, 500, 4), 200, 4);  // size unknown
  EXPECT_TRUE(std::isnan(b.algbw));
  EXPECT_TRUE(std::isnan(b.busbw));
  EXPECT_EQ(b.basis, "");
}

TEST(SummarizeCollectives, RowsRankRowsAndTotals) {
  // Ranks 5, 6, 7; rank 7 has no collectives. Match 0 on ranks 5 and 6
  // (durations 100 and 60, names disagree, group of 3); match 1 on rank 5 only.
  Instance a0 = Sized("allreduce", "float", 10, 10, 3, 0, 100);
  a0.step = 1;
  std::vector<std::vector<Instance>> inst = {{a0, At(200, 250)}, {At(10, 70, 1)}, {}};
  std::vector<Match> matches = {{"m0", {{0, 0}, {1, 0}}, true}, {"m1", {{0, 1}}, false}};
  CollectiveSummary s = SummarizeCollectives(inst, matches, {5, 6, 7}, 2);
  ASSERT_EQ(s.rows.size(), 2u);
  EXPECT_EQ(s.rows[0].match, &matches[0]);
  EXPECT_EQ(s.rows[0].first, &inst[0][0]);
  EXPECT_EQ(s.rows[0].timing.transfer, 60);
  EXPECT_EQ(s.rows[0].timing.last_rank, 6);
  EXPECT_DOUBLE_EQ(s.rows[0].bandwidth.algbw, 40.0 / 60);  // 10 floats over 60 ns
  EXPECT_EQ(s.rows[1].timing.transfer, -1);
  EXPECT_EQ(s.rows[1].bandwidth.basis, "");
  EXPECT_EQ(s.matched, 1u);
  EXPECT_EQ(s.mismatched, 1u);
  EXPECT_EQ(s.partial, 1u);     // 2 ranks of a group of 3
  EXPECT_EQ(s.incomplete, 1u);  // match 1: 1 of the 2 ranks with collectives
  EXPECT_EQ(s.time, 160);       // 100 + 60, matched only
  EXPECT_EQ(s.wait, 40);        // 100 - 60
  // (id, rank, step, ts, dur, wait, bytes); no step is -1, no transfer no wait.
  ASSERT_EQ(s.rank_rows.size(), 3u);
  const RankCollectiveRow want[] = {
      {0, 5, 1, 0, 100, 40, 40}, {0, 6, 1, 10, 60, 0, -1}, {1, 5, -1, 200, 50, -1, -1}};
  for (size_t r = 0; r < 3; ++r) {
    const RankCollectiveRow& got = s.rank_rows[r];
    EXPECT_EQ(std::tie(got.id, got.rank, got.step, got.ts, got.dur, got.wait, got.bytes),
              std::tie(want[r].id, want[r].rank, want[r].step, want[r].ts, want[r].dur,
                       want[r].wait, want[r].bytes))
        << "row " << r;
  }
  ASSERT_EQ(s.ranks.size(), 2u);  // rank 7 ran none
  const RankTotals& r5 = s.ranks.at(5);
  EXPECT_EQ(r5.count, 2);
  EXPECT_EQ(r5.unmatched, 1);
  EXPECT_EQ(r5.last, 0);
  EXPECT_EQ(r5.time, 150);
  EXPECT_EQ(r5.wait, 40);
  EXPECT_EQ(r5.transfer, 60);
  const RankTotals& r6 = s.ranks.at(6);
  EXPECT_EQ(r6.count, 1);
  EXPECT_EQ(r6.last, 1);
  EXPECT_EQ(r6.time, 60);
  EXPECT_EQ(r6.wait, 0);
}

}  // namespace
}  // namespace th::collectives
