// A generated 4-rank job served as one run: every rank's rows are there in
// rank order, each row's tiles are its rank's own index's tiles with the ids
// shifted by the rank's offset, and events, search and meta answer across
// ranks; launch edges stay within their rank.
#include "core/serve/rank_merge.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>

#include "core/import/trace_loader.h"
#include "core/serve/lod_index.h"
#include "core/serve/serve_api.h"
#include "core/serve/serve_flows_api.h"
#include "core/serve/serve_run.h"
#include "core/synth/kineto_generator.h"
#include "tests/support/test_files.h"

namespace th::serve {
namespace {

std::string WriteJob(const std::string& name) {
  synth::Scenario s;
  s.ranks = 4;
  s.steps = 2;
  s.kernels_per_step = 40;
  s.straggler_rank = 2;
  const std::string dir = th::testing::TempDir() + "/" + name;
  std::filesystem::remove_all(dir);
  auto paths = synth::WriteKinetoTraces(s, dir, false, nullptr);
  EXPECT_TRUE(paths.ok()) << paths.status().message();
  return dir;
}

TEST(RankMergeTest, EachRanksTilesAreItsOwnIndexsTilesWithIdsShifted) {
  const std::string dir = WriteJob("rank_merge_tiles");
  auto set = LoadTraceSet({dir}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set->traces.size(), 4u);
  std::vector<LodIndex> own;
  for (const auto& t : set->traces) own.push_back(BuildLodIndex(t->graph));
  MergedRanks merged = MergeRanks(*set);
  ASSERT_EQ(merged.ranks.size(), 4u);
  const EventGraph& g = merged.set->traces.front()->graph;
  const LodIndex index = BuildLodIndex(g);
  uint32_t row = 0;
  int drawn = 0;  // tiles compared that hold events
  for (size_t k = 0; k < 4; ++k) {
    const RankSpan& r = merged.ranks[k];
    EXPECT_EQ(r.rank, static_cast<int64_t>(k));
    for (uint32_t local = 0; local < own[k].row_count(); ++local, ++row) {
      ASSERT_LT(row, index.row_count());
      EXPECT_EQ(index.row(row).track, own[k].row(local).track + r.first_track);
      EXPECT_EQ(index.row(row).depth, own[k].row(local).depth);
      for (int level : {0, 10, 20}) {
        const EventGraph& rg = set->traces[k]->graph;
        const RowIndex& ri = own[k].row_index(local);
        if (ri.size() == 0) continue;
        const int64_t tile = (rg.events.ts[rg.TrackEvents(ri.track)[0]] >> level) >> 8;
        auto mine = index.Tile(row, level, tile);
        auto theirs = own[k].Tile(local, level, tile);
        ASSERT_TRUE(mine.ok() && theirs.ok());
        std::vector<EventId> shifted;
        for (EventId e : theirs->drawn) shifted.push_back(e + r.first_event);
        EXPECT_EQ(mine->drawn, shifted) << "rank " << k << " row " << local << " L" << level;
        EXPECT_EQ(mine->buckets, theirs->buckets);
        drawn += !theirs->empty();
      }
    }
  }
  EXPECT_EQ(row, index.row_count());
  EXPECT_GT(drawn, 100);
  for (size_t e = 0; e < g.edges.size(); ++e) {  // edges stay within a rank
    size_t a = 0, b = 0;
    for (size_t k = 0; k < 4; ++k) {
      if (g.edges.src[e] >= merged.ranks[k].first_event) a = k;
      if (g.edges.dst[e] >= merged.ranks[k].first_event) b = k;
    }
    EXPECT_EQ(a, b);
  }
}

TEST(RankMergeTest, ADirectoryOfRanksIsOneRunAnsweringAcrossRanks) {
  const std::string dir = WriteJob("rank_merge_run");
  Runs runs;
  runs.push_back(std::make_unique<ServeRun>(dir, "job"));
  std::string note;
  Status s = LoadServeRun(runs[0].get(), ServeLoadOptions{}, &note);
  ASSERT_TRUE(s.ok()) << s.message();
  const ServeRun& run = *runs[0];
  ASSERT_EQ(run.ranks().size(), 4u);
  const std::string meta = MetaResponse(runs, "0").body;
  for (int k = 0; k < 4; ++k)
    EXPECT_NE(meta.find("\"rank " + std::to_string(k) + "\""), std::string::npos) << k;
  EXPECT_NE(meta.find("\"clock_offsets\":[]"), std::string::npos);
  EXPECT_NE(meta.find("\"clock_offsets_note\""), std::string::npos);
  // The last rank's first event answers under its job-wide id.
  const EventId last = run.ranks().back().first_event;
  ApiResponse e = EventResponse(runs, "0", std::to_string(last));
  EXPECT_EQ(e.status, 200) << e.body;
  EXPECT_EQ(EventResponse(runs, "0", std::to_string(run.graph().events.size())).status, 404);
  // Steps of every rank.
  EXPECT_EQ(run.graph().steps.size(), 4u * 2u);
  // Search: the steps of every rank, on one row per rank.
  ApiResponse found = SearchResponse(runs, "0", {{"q", "ProfilerStep"}});
  ASSERT_EQ(found.status, 200);
  EXPECT_NE(found.body.find("\"hits_total\":8,"), std::string::npos) << found.body.substr(0, 200);
  std::set<size_t> ranks_hit;
  const std::regex row_re("\\{\"row\":(\\d+),\"hits\":");
  for (std::sregex_iterator m(found.body.begin(), found.body.end(), row_re), end; m != end; ++m)
    ranks_hit.insert(run.RankOfTrack(run.index().row(std::stoul((*m)[1])).track));
  EXPECT_EQ(ranks_hit.size(), 4u);
  // Flows: bundles over the whole run join rows of one rank.
  RunExtras extras;
  ApiResponse flows =
      FlowsResponse(runs, "0", &extras,
                    {{"t0", "0"}, {"t1", std::to_string(run.end_rel_ns() + 1)}, {"width", "200"}});
  ASSERT_EQ(flows.status, 200) << flows.body;
  const std::regex flow_re("\"from_row\":(\\d+),\"to_row\":(\\d+)");
  std::set<size_t> ranks_with_flows;
  for (std::sregex_iterator m(flows.body.begin(), flows.body.end(), flow_re), end; m != end; ++m) {
    const size_t a = run.RankOfTrack(run.index().row(std::stoul((*m)[1])).track);
    EXPECT_EQ(a, run.RankOfTrack(run.index().row(std::stoul((*m)[2])).track));
    ranks_with_flows.insert(a);
  }
  EXPECT_EQ(ranks_with_flows.size(), 4u);
}

}  // namespace
}  // namespace th::serve
