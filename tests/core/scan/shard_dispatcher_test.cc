#include "core/scan/shard_dispatcher.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

namespace th::scan {
namespace {

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

std::string Error(const std::string& value, std::map<std::string, std::string> vars = {}) {
  auto spec = ParseShardSpec(value, Env(std::move(vars)));
  EXPECT_FALSE(spec.ok()) << value << " parsed as " << spec->index << "/" << spec->count;
  return spec.ok() ? "" : spec.status().message();
}

TEST(ShardSpec, ExplicitIndexAndCount) {
  auto spec = ParseShardSpec("2/5", Env({{"SLURM_ARRAY_TASK_ID", "4"}}));
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->index, 2u);  // the flag wins over the environment
  EXPECT_EQ(spec->count, 5u);
  EXPECT_EQ(spec->source, "--shard 2/5");
}

TEST(ShardSpec, BadValuesAreNamed) {
  for (const char* v : {"", "3", "a/4", "1/b", "1/", "-1/4", "1/4x", "1.5/4", "1//4"})
    EXPECT_NE(Error(v).find(std::string("'") + v + "'"), std::string::npos) << v;
  std::string e = Error("4/4");
  EXPECT_NE(e.find("index 4 is not below the shard count 4"), std::string::npos) << e;
  e = Error("0/0");
  EXPECT_NE(e.find("at least 1"), std::string::npos) << e;
}

TEST(ShardSpec, SlurmArray) {
  auto spec =
      ParseShardSpec("auto", Env({{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_COUNT", "8"}}));
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->index, 3u);
  EXPECT_EQ(spec->count, 8u);
  EXPECT_NE(spec->source.find("SLURM_ARRAY_TASK_ID=3"), std::string::npos);
  // --array=1-8: ids 1..8 become indices 0..7.
  spec = ParseShardSpec("auto", Env({{"SLURM_ARRAY_TASK_ID", "8"},
                                     {"SLURM_ARRAY_TASK_COUNT", "8"},
                                     {"SLURM_ARRAY_TASK_MIN", "1"}}));
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->index, 7u);
  // --array=10-40:10 -> ids 10, 20, 30, 40 are indices 0..3.
  spec = ParseShardSpec("auto", Env({{"SLURM_ARRAY_TASK_ID", "30"},
                                     {"SLURM_ARRAY_TASK_COUNT", "4"},
                                     {"SLURM_ARRAY_TASK_MIN", "10"},
                                     {"SLURM_ARRAY_TASK_STEP", "10"}}));
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->index, 2u);
  EXPECT_EQ(spec->count, 4u);
  // /N overrides the array's count.
  spec =
      ParseShardSpec("/16", Env({{"SLURM_ARRAY_TASK_ID", "9"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}));
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->index, 9u);
  EXPECT_EQ(spec->count, 16u);
}

TEST(ShardSpec, SlurmErrorsNameTheVariable) {
  std::string e = Error("auto", {{"SLURM_ARRAY_TASK_ID", "x"}, {"SLURM_ARRAY_TASK_COUNT", "4"}});
  EXPECT_NE(e.find("SLURM_ARRAY_TASK_ID='x'"), std::string::npos) << e;
  e = Error("auto", {{"SLURM_ARRAY_TASK_ID", "2"}});
  EXPECT_NE(e.find("SLURM_ARRAY_TASK_COUNT is not"), std::string::npos) << e;
  e = Error("auto", {{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_COUNT", "4"}});
  EXPECT_NE(e.find("index 5 is not below the shard count 4"), std::string::npos) << e;
  EXPECT_NE(e.find("SLURM_ARRAY_TASK_ID=5"), std::string::npos) << e;
  e = Error("auto", {{"SLURM_ARRAY_TASK_ID", "15"},
                     {"SLURM_ARRAY_TASK_COUNT", "4"},
                     {"SLURM_ARRAY_TASK_MIN", "10"},
                     {"SLURM_ARRAY_TASK_STEP", "10"}});
  EXPECT_NE(e.find("not in the array"), std::string::npos) << e;
}

TEST(ShardSpec, KubernetesIndexedJob) {
  auto spec = ParseShardSpec("/6", Env({{"JOB_COMPLETION_INDEX", "5"}}));
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->index, 5u);
  EXPECT_EQ(spec->count, 6u);
  spec =
      ParseShardSpec("auto", Env({{"JOB_COMPLETION_INDEX", "1"}, {"TRACEHOUND_SHARD_COUNT", "3"}}));
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->index, 1u);
  EXPECT_EQ(spec->count, 3u);
  EXPECT_NE(spec->source.find("TRACEHOUND_SHARD_COUNT=3"), std::string::npos);
  std::string e = Error("auto", {{"JOB_COMPLETION_INDEX", "1"}});
  EXPECT_NE(e.find("TRACEHOUND_SHARD_COUNT"), std::string::npos) << e;
  e = Error("/2", {{"JOB_COMPLETION_INDEX", "2"}});
  EXPECT_NE(e.find("index 2 is not below the shard count 2"), std::string::npos) << e;
}

TEST(ShardSpec, EnvironmentOnlyWhenAskedAndPresent) {
  std::string e = Error("auto");
  EXPECT_NE(e.find("SLURM_ARRAY_TASK_ID"), std::string::npos) << e;
  EXPECT_NE(e.find("JOB_COMPLETION_INDEX"), std::string::npos) << e;
  e = Error("/4");
  EXPECT_NE(e.find("--shard i/N"), std::string::npos) << e;
}

// Every run lands in exactly one shard, including counts that do not divide
// evenly and shards beyond the run count; several threads share a dispatcher.
TEST(ShardRunDispatcher, ShardsPartitionTheRuns) {
  for (size_t runs : {0u, 1u, 7u, 200u}) {
    for (size_t n : {1u, 3u, 4u, 9u}) {
      std::multiset<size_t> seen;
      for (size_t i = 0; i < n; ++i) {
        ShardRunDispatcher d(runs, ShardSpec{i, n, "test"});
        std::vector<std::vector<size_t>> per_thread(3);
        std::vector<std::thread> threads;
        for (auto& out : per_thread)
          threads.emplace_back([&d, &out] {
            while (auto r = d.Next()) out.push_back(*r);
          });
        for (auto& t : threads) t.join();
        size_t taken = 0;
        for (const auto& out : per_thread) {
          taken += out.size();
          for (size_t r : out) {
            EXPECT_EQ(r % n, i);
            seen.insert(r);
          }
        }
        EXPECT_EQ(taken, d.size()) << runs << " runs, shard " << i << "/" << n;
      }
      ASSERT_EQ(seen.size(), runs) << runs << " runs over " << n << " shards";
      size_t expect = 0;
      for (size_t r : seen) EXPECT_EQ(r, expect++);
    }
  }
}

}  // namespace
}  // namespace th::scan
