// tracehound.capture's run manifest: its name beside a trace, reading it
// (errors name the file), and the loader taking rank, host and start time
// from it.
#include "core/import/run_manifest.h"

#include <gtest/gtest.h>

#include "core/import/trace_loader.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

std::string Manifest(int rank, const std::string& extra = "") {
  return R"({"tracehound_manifest": 1, "trace": "x", "rank": )" + std::to_string(rank) +
         R"(, "world_size": 2, "host": "node-)" + std::to_string(rank) +
         R"(", "start_time_ns": 1796290477358502435, "framework": "torch",
            "framework_version": "1.13.0a0", "mode": "programmatic", "steps": 3,
            "tags": {"model": "mlp", "a": "b"})" +
         extra + "}";
}

std::string LegacyTrace(int64_t dur) {
  return R"([{"name": "ProfilerStep#0", "ph": "X", "ts": 5, "dur": )" + std::to_string(dur) +
         R"(, "tid": 1, "pid": "CPU functions", "args": {}}])";
}

TEST(RunManifest, PathBesideATrace) {
  EXPECT_EQ(ManifestPathFor("/r/rank3.trace.json"), "/r/rank3.tracehound-manifest.json");
  EXPECT_EQ(ManifestPathFor("/r/rank3.trace.json.gz"), "/r/rank3.tracehound-manifest.json");
  EXPECT_EQ(ManifestPathFor("/r/rank3.json"), "");
  EXPECT_TRUE(IsManifestFile("/r/rank3.tracehound-manifest.json"));
  EXPECT_FALSE(IsManifestFile("/r/rank3.trace.json"));
}

TEST(RunManifest, ReadsEveryFact) {
  auto m = ReadRunManifest(testing::WriteTempFile("m1.tracehound-manifest.json", Manifest(1)));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->version, 1);
  EXPECT_EQ(*m->rank, 1);
  EXPECT_EQ(*m->world_size, 2);
  EXPECT_EQ(*m->start_time_ns, 1796290477358502435);
  EXPECT_EQ(m->host, "node-1");
  EXPECT_EQ(m->framework_version, "1.13.0a0");
  EXPECT_EQ(*m->steps, 3);
  ASSERT_EQ(m->tags.size(), 2u);
  EXPECT_EQ(m->tags[0], (std::pair<std::string, std::string>{"a", "b"}));
  EXPECT_EQ(m->tags[1], (std::pair<std::string, std::string>{"model", "mlp"}));
}

TEST(RunManifest, BadManifestsAreErrorsNamingTheFile) {
  const std::string not_json = testing::WriteTempFile("bad1.json", "{\"tracehound_manifest\": 1,");
  auto a = ReadRunManifest(not_json);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message().rfind(not_json + ": not a tracehound run manifest: ", 0), 0u)
      << a.status().message();
  auto b = ReadRunManifest(testing::WriteTempFile("bad3.json", R"({"rank": "zero",
      "tracehound_manifest": 1})"));
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("rank is not an integer"), std::string::npos);
  auto c = ReadRunManifest(testing::WriteTempFile("bad4.json", R"({"rank": 0})"));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("no \"tracehound_manifest\" version"), std::string::npos);
}

TEST(RunManifest, LoaderTakesRankHostAndStartTimeFromIt) {
  // The file names say rank 0 and 1; the manifests say the opposite.
  testing::WriteTempFile("run1/rank0.trace.json", LegacyTrace(10));
  testing::WriteTempFile("run1/rank0.tracehound-manifest.json", Manifest(1));
  testing::WriteTempFile("run1/rank1.trace.json", LegacyTrace(20));
  testing::WriteTempFile("run1/rank1.tracehound-manifest.json", Manifest(0));
  auto set = LoadTraceSet({testing::TempDir() + "/run1"}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set->traces.size(), 2u);  // the manifests are no traces
  EXPECT_EQ(set->trust.Count(TrustId::kDirectoryFileOtherFormat), 0);
  EXPECT_EQ(set->trust.Count(TrustId::kInputOtherJsonDocument), 0);
  const Trace& r0 = *set->traces[0];
  EXPECT_EQ(r0.info.rank, 0);
  EXPECT_EQ(r0.info.rank_source, "run manifest");
  EXPECT_EQ(r0.graph.events.dur[0], 20000);  // rank1.trace.json
  EXPECT_EQ(*r0.info.base_time_ns, 1796290477358502435);
  EXPECT_EQ(r0.info.metadata.at("host_name"), "\"node-0\"");
  EXPECT_EQ(r0.trust.Count(TrustId::kRunManifestRead), 1);
}

TEST(RunManifest, UnreadableManifestIsDataLossAndNotUsed) {
  testing::WriteTempFile("run2/rank1.trace.json", LegacyTrace(10));
  testing::WriteTempFile("run2/rank1.tracehound-manifest.json", "not json");
  auto set = LoadTraceSet({testing::TempDir() + "/run2"}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  const Trace& t = *set->traces[0];
  EXPECT_EQ(t.info.rank, 1);
  EXPECT_EQ(t.info.rank_source, "file name");
  EXPECT_FALSE(t.info.base_time_ns.has_value());
  EXPECT_EQ(t.trust.Count(TrustId::kRunManifestUnreadable), 1);
}

}  // namespace
}  // namespace th
