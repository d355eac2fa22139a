#include "core/import/trace_loader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <sstream>

#include "core/synth/kineto_generator.h"
#include "tests/support/archive_writer.h"
#include "tests/support/test_files.h"
#include "tests/support/xspace_fixture.h"

namespace th {
namespace {

std::string RankTrace(int rank, bool with_distributed_info) {
  std::string s = "{";
  if (with_distributed_info)
    s += "\"distributedInfo\": {\"rank\": " + std::to_string(rank) + ", \"world_size\": 4},";
  s +=
      R"("traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": )" +
      std::to_string(rank + 1) + "}]}";
  return s;
}

void WriteTarGz(const std::string& path,
                const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<testing::ArchiveMember> members;
  for (const auto& [name, body] : files) members.push_back({name, body, ""});
  testing::WriteArchive(path, members, testing::ArchiveKind::kTarGz);
}

TEST(LoadTraceSet, DirectoryOfRanksUsesDistributedInfoThenFileNames) {
  testing::WriteTempFile("dir1/b.json", RankTrace(2, true));
  testing::WriteTempFile("dir1/a.json.gz", testing::Gzip(RankTrace(0, true)));
  testing::WriteTempFile("dir1/worker_rank_1.json", RankTrace(1, false));
  testing::WriteTempFile("dir1/notes.txt", "not a trace");
  testing::WriteTempFile("dir1/et.json", R"({"nodes": []})");
  auto set = LoadTraceSet({testing::TempDir() + "/dir1"}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set->traces.size(), 3u);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(set->traces[r]->info.rank, r);
    EXPECT_EQ(set->traces[r]->graph.events.dur[0], (r + 1) * 1000);
  }
  EXPECT_EQ(set->traces[1]->info.rank_source, "file name");
  // et.json is a JSON document of another kind: info, not a missing rank.
  EXPECT_EQ(set->trust.Count(TrustId::kInputOtherJsonDocument), 1);
  EXPECT_EQ(set->trust.Count(TrustId::kDirectoryFileOtherFormat), 1);
}

// A file or member that is not a regular file is never read: data loss when
// its name says it could be a rank, info otherwise.
TEST(LoadTraceSet, NonRegularFilesAreDataLossOnlyWhenNamedLikeATrace) {
  std::string dir = testing::TempDir() + "/fifos";
  testing::WriteTempFile("fifos/rank0.json", RankTrace(0, true));
  ASSERT_EQ(::mkfifo((dir + "/rank1.json").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((dir + "/control").c_str(), 0600), 0);
  auto set = LoadTraceSet({dir}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->trust.Count(TrustId::kDirectoryTraceFileNotRegular), 1);
  EXPECT_EQ(set->trust.Count(TrustId::kDirectoryOtherFileNotRegular), 1);

  std::string tar = testing::TempDir() + "/links.tar.gz";
  std::string body = RankTrace(0, true);
  testing::WriteArchive(
      tar,
      {{"job/r0.json", body, ""}, {"job/r1.json", "", "r0.json"}, {"job/latest", "", "r0.json"}},
      testing::ArchiveKind::kTarGz);
  auto archived = LoadTraceSet({tar}, LoadOptions{});
  ASSERT_TRUE(archived.ok()) << archived.status().message();
  EXPECT_EQ(archived->traces.size(), 1u);
  EXPECT_EQ(archived->trust.Count(TrustId::kArchiveTraceMemberNotRegular), 1);
  EXPECT_EQ(archived->trust.Count(TrustId::kArchiveOtherMemberNotRegular), 1);
}

TEST(LoadTraceSet, TarGzOfRanks) {
  std::string path = testing::TempDir() + "/ranks.tar.gz";
  WriteTarGz(path, {{"job/r3.json", RankTrace(3, true)},
                    {"job/r1.json.gz", testing::Gzip(RankTrace(1, true))},
                    {"job/README", "hello"}});
  auto set = LoadTraceSet({path}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set->traces.size(), 2u);
  EXPECT_EQ(set->traces[0]->info.rank, 1);
  EXPECT_EQ(set->traces[1]->info.rank, 3);
  EXPECT_EQ(set->traces[0]->info.path, path + ":job/r1.json.gz");
}

TEST(LoadTraceSet, GlobAndErrors) {
  testing::WriteTempFile("glob/x_rank0.json", RankTrace(0, false));
  testing::WriteTempFile("glob/x_rank1.json", RankTrace(1, false));
  auto set = LoadTraceSet({testing::TempDir() + "/glob/x_rank*.json"}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->traces.size(), 2u);

  auto none = LoadTraceSet({testing::TempDir() + "/glob/nothing*.json"}, LoadOptions{});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no file matches"), std::string::npos);

  auto missing = LoadTraceSet({testing::TempDir() + "/missing.json"}, LoadOptions{});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("missing.json"), std::string::npos);

  // A file named explicitly must be a trace.
  std::string et = testing::WriteTempFile("et2.json", R"({"nodes": []})");
  auto not_trace = LoadTraceSet({et}, LoadOptions{});
  ASSERT_FALSE(not_trace.ok());
  EXPECT_NE(not_trace.status().message().find("no traceEvents"), std::string::npos);
}

std::string GeneratedKineto(int rank, int64_t* events) {
  synth::Scenario s;
  s.ranks = 2;
  s.steps = 2;
  std::ostringstream out;
  synth::Manifest manifest;
  EXPECT_TRUE(synth::WriteKinetoTrace(s, rank, out, &manifest).ok());
  *events = manifest.events;
  return out.str();
}

std::string HostCapture(int64_t duration_ps) {
  testing::XSpaceBuilder b;
  auto* host = b.AddPlane(0, "/host:CPU");
  auto* line = b.AddLine(host, 7, "python", 0);
  b.AddEvent(host, line, "step", 1000000, duration_ps);
  return b.Serialize();
}

// The format is decided by content: a wrong suffix, or none, imports the same.
TEST(LoadTraceSet, MisnamedFilesImportByContent) {
  int64_t events0 = 0, events1 = 0;
  std::string json0 = GeneratedKineto(0, &events0);
  std::string json1 = GeneratedKineto(1, &events1);
  std::string as_pb = testing::WriteTempFile("misnamed/rank0.pb", json0);
  std::string gz_no_suffix = testing::WriteTempFile("misnamed/rank1.json", testing::Gzip(json1));
  auto proper = LoadTraceSet({testing::WriteTempFile("proper/rank0.json", json0)}, LoadOptions{});
  ASSERT_TRUE(proper.ok()) << proper.status().message();
  for (const std::string& path : {as_pb, gz_no_suffix}) {
    auto set = LoadTraceSet({path}, LoadOptions{});
    ASSERT_TRUE(set.ok()) << set.status().message();
    ASSERT_EQ(set->traces.size(), 1u);
    EXPECT_EQ(set->traces[0]->info.format, "kineto_json");
  }
  auto set = LoadTraceSet({as_pb}, LoadOptions{});
  EXPECT_EQ(set->traces[0]->graph.events.size(), proper->traces[0]->graph.events.size());
  EXPECT_EQ(set->traces[0]->trust.Entries().size(), proper->traces[0]->trust.Entries().size());
  // A directory walk finds the misnamed file too.
  auto dir = LoadTraceSet({testing::TempDir() + "/misnamed"}, LoadOptions{});
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  EXPECT_EQ(dir->traces.size(), 2u);
}

TEST(LoadTraceSet, XSpaceCaptureWithAnotherName) {
  std::string path = testing::WriteTempFile("xspace_named/host0.bin", HostCapture(5000000));
  auto set = LoadTraceSet({path}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->traces[0]->info.format, "xspace");
  EXPECT_EQ(set->traces[0]->graph.events.dur[0], 5000);
}

TEST(LoadTraceSet, ArchiveOfXSpaceAndJsonMembers) {
  int64_t events = 0;
  std::string path = testing::TempDir() + "/captures.tar.gz";
  WriteTarGz(path, {{"job/hostA.xplane.pb", HostCapture(7000000)},
                    {"job/rank1.json.gz", testing::Gzip(GeneratedKineto(1, &events))},
                    {"job/notes.txt", "hello"}});
  auto set = LoadTraceSet({path}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(set->traces.size(), 2u);
  const Trace* xspace =
      set->traces[0]->info.format == "xspace" ? set->traces[0].get() : set->traces[1].get();
  EXPECT_EQ(xspace->info.path, path + ":job/hostA.xplane.pb");
  EXPECT_EQ(xspace->graph.events.dur[0], 7000);
  EXPECT_EQ(set->trust.Count(TrustId::kArchiveMemberOtherFormat), 1);
}

}  // namespace
}  // namespace th
