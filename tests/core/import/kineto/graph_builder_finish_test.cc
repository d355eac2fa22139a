// GraphBuilder::Finish on graphs shaped for each of its paths: tracks whose
// slices are contiguous rows in time order (the order is the identity),
// contiguous but out of order, interleaved, B/E pairs late in the rows,
// launches with and without correlation ids. Every result is checked against
// a plain reference: per-track stable time order and the stack nesting.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "core/graph/trace.h"
#include "core/import/kineto/graph_builder.h"

namespace th::kineto {
namespace {

struct Row {
  int64_t ts = 0;
  int64_t dur = 0;
  TrackId track = 0;
  EventKind kind = EventKind::kCpuOp;
  char ph = 'X';
  uint8_t flags = 0;
  int64_t correlation = kNoValue;
};

// Appends the rows as chunks of `chunk_rows` rows and finishes the graph.
std::unique_ptr<Trace> Build(const std::vector<Row>& rows, size_t tracks,
                             size_t chunk_rows = SIZE_MAX) {
  auto trace = std::make_unique<Trace>();
  GraphBuilder builder(trace.get());
  for (size_t at = 0; at < rows.size() || at == 0; at += chunk_rows) {
    ParsedChunk c;
    EventColumns& e = c.events;
    for (size_t i = at; i < rows.size() && i - at < chunk_rows; ++i) {
      const Row& r = rows[i];
      e.ts.push_back(r.ts);
      e.dur.push_back(r.dur);
      e.name.push_back(kEmptyString);
      e.cat.push_back(kEmptyString);
      e.track.push_back(r.track);
      e.parent.push_back(kNoRow);
      e.depth.push_back(0);
      e.ph.push_back(r.ph);
      e.kind.push_back(r.kind);
      e.flags.push_back(r.flags);
      e.correlation.push_back(r.correlation);
      e.external_id.push_back(kNoValue);
      e.args_row.push_back(kNoRow);
    }
    builder.Append(std::move(c));
    if (rows.empty()) break;
  }
  std::vector<TrackKey> keys(tracks);
  for (size_t t = 0; t < tracks; ++t) keys[t].tid = static_cast<int64_t>(t);
  builder.Finish(keys);
  return trace;
}

bool IsSlice(const Row& r) {
  return r.kind != EventKind::kMetadata && r.kind != EventKind::kFlow &&
         !(r.flags & kFlagEndMarker);
}

// The reference: per track, slices sorted by (ts asc, dur desc, row asc), then
// nested with a stack of open slices. `dur` as Finish leaves it (B/E paired).
void ExpectOrderAndNesting(const std::vector<Row>& rows, size_t tracks, const Trace& trace) {
  const EventGraph& g = trace.graph;
  const EventColumns& e = g.events;
  ASSERT_EQ(e.size(), rows.size());
  ASSERT_EQ(g.track_offsets.size(), tracks + 1);
  std::vector<EventId> parent(rows.size(), kNoRow);
  std::vector<uint16_t> depth(rows.size(), 0);
  int64_t crossing = 0;
  std::vector<EventId> order;
  for (TrackId t = 0; t < tracks; ++t) {
    std::vector<EventId> ids;
    for (EventId i = 0; i < rows.size(); ++i)
      if (rows[i].track == t && IsSlice(rows[i])) ids.push_back(i);
    std::stable_sort(ids.begin(), ids.end(), [&](EventId a, EventId b) {
      if (e.ts[a] != e.ts[b]) return e.ts[a] < e.ts[b];
      return e.dur[a] > e.dur[b];
    });
    EXPECT_EQ(g.track_offsets[t], order.size()) << "track " << t;
    std::vector<EventId> stack;
    for (EventId id : ids) {
      while (!stack.empty() && e.ts[stack.back()] + e.dur[stack.back()] <= e.ts[id])
        stack.pop_back();
      if (!stack.empty()) {
        parent[id] = stack.back();
        if (e.ts[id] + e.dur[id] > e.ts[stack.back()] + e.dur[stack.back()]) ++crossing;
      }
      depth[id] = static_cast<uint16_t>(stack.size());
      if (e.dur[id] > 0) stack.push_back(id);
      order.push_back(id);
    }
  }
  EXPECT_EQ(g.track_offsets[tracks], order.size());
  ASSERT_EQ(g.track_order.size(), order.size());
  ASSERT_EQ(g.track_first_row.size(), tracks);
  size_t k = 0;
  for (TrackId t = 0; t < tracks; ++t) {
    const EventGraph::TrackEventsView events = g.TrackEvents(t);
    ASSERT_EQ(events.size(), g.track_offsets[t + 1] - g.track_offsets[t]);
    // Rows already in order are described, not copied into the slots.
    bool identity = events.size() > 0;
    for (uint32_t j = 0; j < events.size(); ++j, ++k) {
      EXPECT_EQ(events[j], order[k]) << "track " << t << " event " << j;
      identity &= order[k] == order[k - j] + j;
    }
    if (events.size() > 0) {
      EXPECT_EQ(events.order == nullptr, identity) << "track " << t;
    }
  }
  for (EventId i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(e.parent[i], parent[i]) << "row " << i;
    EXPECT_EQ(e.depth[i], depth[i]) << "row " << i;
  }
  EXPECT_EQ(trace.trust.Count(TrustId::kCrossingSlice), crossing);
}

// Track 0: nested slices, zero-duration events at equal timestamps, equal ts
// with the longer slice first; track 1: flat. Rows contiguous, in time order.
std::vector<Row> ContiguousInOrder() {
  return {
      {0, 100, 0}, {0, 50, 0},  {0, 0, 0},   {0, 0, 0},   {10, 20, 0}, {10, 0, 0},
      {30, 20, 0}, {50, 0, 0},  {50, 0, 0},  {60, 40, 0}, {70, 10, 0}, {90, 30, 0},
      {100, 0, 0}, {100, 5, 1}, {105, 5, 1}, {110, 0, 1}, {110, 0, 1}, {200, 10, 1},
  };
}

TEST(GraphBuilderFinish, ContiguousTracksInTimeOrder) {
  auto rows = ContiguousInOrder();
  auto trace = Build(rows, 2);
  ExpectOrderAndNesting(rows, 2, *trace);
  EXPECT_EQ(trace->graph.events.depth[2], 2);  // inside rows 0 and 1
  EXPECT_EQ(trace->graph.events.parent[10], 9u);
  EXPECT_GT(trace->trust.Count(TrustId::kCrossingSlice), 0);
}

TEST(GraphBuilderFinish, ContiguousTrackOutOfOrder) {
  // Track 0's rows are contiguous but not in time order; track 1 is in order.
  std::vector<Row> rows = {
      {50, 10, 0}, {0, 100, 0}, {10, 20, 0}, {10, 0, 0},
      {0, 0, 0},   {5, 5, 1},   {6, 1, 1},   {20, 0, 1},
  };
  auto trace = Build(rows, 2);
  ExpectOrderAndNesting(rows, 2, *trace);
  EXPECT_EQ(trace->graph.events.parent[0], 1u);
  EXPECT_EQ(trace->graph.events.depth[3], 2);
}

TEST(GraphBuilderFinish, EqualTimestampsShorterFirstAreReordered) {
  // Same ts, the shorter slice first: time order puts the longer one first,
  // so the check of the rows' own order must fail on the duration alone.
  std::vector<Row> rows = {{0, 5, 0}, {0, 10, 0}, {2, 1, 0}, {20, 0, 1}};
  auto trace = Build(rows, 2);
  ExpectOrderAndNesting(rows, 2, *trace);
  EXPECT_EQ(trace->graph.events.parent[0], 1u);
  EXPECT_EQ(trace->graph.events.depth[2], 2);
}

TEST(GraphBuilderFinish, InterleavedTracksAndNonSliceRows) {
  // Track 0 and 1 interleave; track 2 is contiguous except for a flow row of
  // its own in the middle (not contiguous rows of slices); track 3 is
  // contiguous with metadata rows of another track around it.
  std::vector<Row> rows = {
      {0, 100, 0},
      {0, 50, 1},
      {10, 10, 0},
      {20, 10, 1},
      {30, 0, 0},
      {0, 30, 2},
      {5, 0, 2, EventKind::kFlow, 's'},
      {5, 10, 2},
      {0, 0, 1, EventKind::kMetadata, 'M'},
      {0, 40, 3},
      {10, 10, 3},
      {0, 0, 0, EventKind::kMetadata, 'M'},
      {40, 5, 0},
  };
  auto trace = Build(rows, 4);
  ExpectOrderAndNesting(rows, 4, *trace);
}

TEST(GraphBuilderFinish, BeginEndLateInTheRows) {
  // X rows first, then an unmatched E, then B/E pairs (nested, and interleaved
  // with another track): the pairing starts at the first B or E.
  std::vector<Row> rows = {
      {0, 10, 0},
      {1, 5, 0},
      {2, 0, 1, EventKind::kCpuOp, 'E', kFlagEndMarker},
      {20, 0, 1, EventKind::kCpuOp, 'B'},
      {21, 0, 1, EventKind::kCpuOp, 'B'},
      {22, 0, 0, EventKind::kCpuOp, 'B'},
      {25, 0, 1, EventKind::kCpuOp, 'E', kFlagEndMarker},
      {30, 0, 1, EventKind::kCpuOp, 'E', kFlagEndMarker},
      {31, 0, 1, EventKind::kCpuOp, 'B'},
  };
  for (size_t chunk : {size_t{2}, SIZE_MAX}) {
    auto trace = Build(rows, 2, chunk);
    const EventColumns& e = trace->graph.events;
    EXPECT_EQ(e.dur[3], 10);
    EXPECT_EQ(e.dur[4], 4);
    EXPECT_EQ(e.dur[5], 0);  // its E is missing
    EXPECT_EQ(e.dur[8], 0);
    EXPECT_EQ(trace->trust.Count(TrustId::kUnmatchedEndEvent), 1);
    EXPECT_EQ(trace->trust.Count(TrustId::kUnmatchedBeginEvent), 2);
    ExpectOrderAndNesting(rows, 2, *trace);
    EXPECT_EQ(e.parent[4], 3u);
  }
}

TEST(GraphBuilderFinish, NoBeginEnd) {
  auto rows = ContiguousInOrder();
  auto trace = Build(rows, 2);
  EXPECT_EQ(trace->trust.Count(TrustId::kUnmatchedEndEvent), 0);
  EXPECT_EQ(trace->trust.Count(TrustId::kUnmatchedBeginEvent), 0);
  for (EventId i = 0; i < rows.size(); ++i) EXPECT_EQ(trace->graph.events.dur[i], rows[i].dur);
}

TEST(GraphBuilderFinish, EmptyGraph) {
  auto trace = Build({}, 0);
  EXPECT_EQ(trace->graph.events.size(), 0u);
  ASSERT_EQ(trace->graph.track_offsets.size(), 1u);
  EXPECT_EQ(trace->graph.track_offsets[0], 0u);
  EXPECT_EQ(trace->graph.edges.size(), 0u);
}

TEST(GraphBuilderFinish, LaunchesJoinByCorrelation) {
  // A kernel before its launch in row order, a kernel launched before the
  // capture, one whose launch is missing, one without correlation, a memcpy
  // without launch.
  std::vector<Row> rows = {
      {50, 5, 1, EventKind::kKernel, 'X', 0, 11}, {10, 2, 0, EventKind::kRuntime, 'X', 0, 11},
      {12, 2, 0, EventKind::kDriver, 'X', 0, 12}, {20, 2, 0, EventKind::kRuntime, 'X', 0, 14},
      {60, 5, 1, EventKind::kKernel, 'X', 0, 12}, {70, 5, 1, EventKind::kKernel, 'X', 0, 3},
      {80, 5, 1, EventKind::kKernel, 'X', 0, 13}, {90, 5, 1, EventKind::kKernel},
      {95, 5, 1, EventKind::kMemcpy, 'X', 0, 40}, {96, 1, 1, EventKind::kMemset, 'X', 0, 14},
  };
  auto trace = Build(rows, 2);
  const EdgeTable& edges = trace->graph.edges;
  ASSERT_EQ(edges.size(), 3u);
  EXPECT_EQ(edges.src[0], 1u);
  EXPECT_EQ(edges.dst[0], 0u);
  EXPECT_EQ(edges.src[1], 2u);
  EXPECT_EQ(edges.dst[1], 4u);
  EXPECT_EQ(edges.src[2], 3u);
  EXPECT_EQ(edges.dst[2], 9u);
  const TrustTable& trust = trace->trust;
  EXPECT_EQ(trust.Count(TrustId::kKernelLaunchedBeforeCapture), 1);
  EXPECT_EQ(trust.Count(TrustId::kKernelWithoutLaunch), 1);
  EXPECT_EQ(trust.Count(TrustId::kCopyWithoutLaunch), 1);
  EXPECT_EQ(trust.Count(TrustId::kKernelWithoutCorrelationId), 1);
  EXPECT_EQ(trace->graph.tracks[1].kind, TrackKind::kGpuStream);
  EXPECT_EQ(trace->graph.tracks[0].kind, TrackKind::kCpu);
}

TEST(GraphBuilderFinish, KernelsWithoutAnyLaunch) {
  std::vector<Row> rows = {
      {0, 5, 0, EventKind::kKernel, 'X', 0, 7},
      {10, 5, 0, EventKind::kKernel},
      {20, 5, 0, EventKind::kMemcpy},
  };
  auto trace = Build(rows, 1);
  EXPECT_EQ(trace->graph.edges.size(), 0u);
  const TrustTable& trust = trace->trust;
  // With no launch at all, every correlated kernel counts as launched before the capture.
  EXPECT_EQ(trust.Count(TrustId::kKernelLaunchedBeforeCapture), 1);
  EXPECT_EQ(trust.Count(TrustId::kCopyWithoutLaunch), 1);
  EXPECT_EQ(trust.Count(TrustId::kKernelWithoutCorrelationId), 1);
}

// Random graphs of each shape: contiguous runs per track (sorted or not),
// interleaved rows, and mixtures, many ties in ts and dur, split in chunks.
TEST(GraphBuilderFinish, RandomGraphsMatchTheReference) {
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 300; ++round) {
    const size_t tracks = 1 + rng() % 5;
    const int shape = round % 3;  // 0 contiguous sorted, 1 contiguous, 2 interleaved
    std::vector<std::vector<Row>> per_track(tracks);
    for (TrackId t = 0; t < tracks; ++t) {
      const size_t count = rng() % 40;
      int64_t ts = static_cast<int64_t>(rng() % 5);
      for (size_t k = 0; k < count; ++k) {
        Row r;
        r.track = t;
        ts += static_cast<int64_t>(rng() % 4);
        r.ts = ts;
        r.dur = (rng() % 3 == 0) ? 0 : static_cast<int64_t>(rng() % 30);
        if (round % 6 >= 3 && rng() % 10 == 0) r.kind = EventKind::kMetadata, r.ph = 'M';
        per_track[t].push_back(r);
      }
      if (shape == 0) {
        std::stable_sort(per_track[t].begin(), per_track[t].end(), [](const Row& a, const Row& b) {
          return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur;
        });
      } else if (rng() % 2) {
        std::shuffle(per_track[t].begin(), per_track[t].end(), rng);
      }
    }
    std::vector<Row> rows;
    if (shape == 2) {
      std::vector<size_t> at(tracks, 0);
      for (;;) {
        std::vector<TrackId> left;
        for (TrackId t = 0; t < tracks; ++t)
          if (at[t] < per_track[t].size()) left.push_back(t);
        if (left.empty()) break;
        TrackId t = left[rng() % left.size()];
        rows.push_back(per_track[t][at[t]++]);
      }
    } else {
      std::vector<TrackId> order(tracks);
      for (TrackId t = 0; t < tracks; ++t) order[t] = t;
      std::shuffle(order.begin(), order.end(), rng);
      for (TrackId t : order) rows.insert(rows.end(), per_track[t].begin(), per_track[t].end());
    }
    auto trace = Build(rows, tracks, 1 + rng() % 64);
    SCOPED_TRACE(::testing::Message() << "round " << round);
    ExpectOrderAndNesting(rows, tracks, *trace);
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
}  // namespace th::kineto
