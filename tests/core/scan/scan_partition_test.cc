#include "core/scan/scan_partition.h"

#include <gtest/gtest.h>

#include <map>

namespace th::scan {
namespace {

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(RankDatabaseUrl, InsertsTheRankBeforeTheExtension) {
  EXPECT_EQ(RankDatabaseUrl("sqlite:fleet.db", 3), "sqlite:fleet.rank3.db");
  EXPECT_EQ(RankDatabaseUrl("out/fleet.sqlite", 1), "out/fleet.rank1.sqlite");
  EXPECT_EQ(RankDatabaseUrl("sqlite:fleet", 2), "sqlite:fleet.rank2");
  EXPECT_EQ(RankDatabaseUrl("sqlite:./runs.v2/fleet", 2), "sqlite:./runs.v2/fleet.rank2");
  EXPECT_EQ(RankDatabaseUrl("postgresql://u@h/fleet", 5), "postgresql://u@h/fleet");
}

TEST(MakeRunDispatcher, OneProcessTakesEveryRun) {
  auto p = MakeRunDispatcher({"", "sqlite:x.db", false}, 3, Env({}));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ((*p)->db_url(), "sqlite:x.db");
  EXPECT_EQ((*p)->label(), "");
  EXPECT_TRUE((*p)->primary());
  EXPECT_EQ((*p)->planned_runs(), 3u);
  std::vector<size_t> got;
  while (auto i = (*p)->dispatcher().Next()) got.push_back(*i);
  EXPECT_EQ(got, (std::vector<size_t>{0, 1, 2}));
  std::string summary;
  EXPECT_TRUE((*p)->Finish(&summary).ok());
  EXPECT_EQ(summary, "");
}

TEST(MakeRunDispatcher, ShardWritesWhereItsIndexSays) {
  auto p = MakeRunDispatcher({"auto", "sqlite:out/fleet.{shard}.db", false}, 10,
                             Env({{"JOB_COMPLETION_INDEX", "1"}, {"TRACEHOUND_SHARD_COUNT", "4"}}));
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ((*p)->db_url(), "sqlite:out/fleet.1.db");
  EXPECT_EQ((*p)->label(), "shard 1/4 (JOB_COMPLETION_INDEX=1 TRACEHOUND_SHARD_COUNT=4)");
  EXPECT_EQ((*p)->planned_runs(), 3u);  // 1, 5, 9
  std::vector<size_t> got;
  while (auto i = (*p)->dispatcher().Next()) got.push_back(*i);
  EXPECT_EQ(got, (std::vector<size_t>{1, 5, 9}));
}

TEST(MakeRunDispatcher, RefusesShardsInsideAnMpiJobAndBadShards) {
  auto p = MakeRunDispatcher({"0/2", "sqlite:x.db", false}, 10,
                             Env({{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_RANK", "0"}}));
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("--shard and mpirun"), std::string::npos)
      << p.status().message();
  p = MakeRunDispatcher({"2/2", "sqlite:x.db", false}, 10, Env({}));
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("--shard 2/2: shard index 2"), std::string::npos)
      << p.status().message();
}

}  // namespace
}  // namespace th::scan
