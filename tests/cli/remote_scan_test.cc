// `tracehound scan` over a bucket of a real S3 server on loopback (OpenStack
// Swift with s3api, tests/support/swift_s3_server.h): the same results as the
// scan of the same folder, the object URLs and ETags stored, and a rescan
// that skips what it has without reading it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/scan/database.h"
#include "core/scan/database_merge.h"
#include "core/synth/kineto_generator.h"
#include "tests/support/command_runner.h"
#include "tests/support/swift_s3_server.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::Tracehound;

std::vector<std::string> Column(const std::string& url, const std::string& sql) {
  std::vector<std::string> out;
  auto db = scan::OpenDatabase(url);
  EXPECT_TRUE(db.ok()) << db.status().message();
  if (!db.ok()) return out;
  auto rows = (*db)->Query(sql);
  EXPECT_TRUE(rows.ok()) << rows.status().message();
  if (!rows.ok()) return out;
  for (const auto& row : rows->rows) out.push_back(scan::SqlText(row[0]));
  return out;
}

std::string Dump(const std::string& url) {
  auto db = scan::OpenDatabase(url);
  EXPECT_TRUE(db.ok()) << db.status().message();
  auto dump = db.ok() ? scan::DumpResultsContent(**db) : StatusOr<std::string>(Internal("no db"));
  EXPECT_TRUE(dump.ok()) << dump.status().message();
  return dump.ok() ? *dump : "";
}

void ReplaceAll(std::string* s, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = s->find(from, at)) != std::string::npos; at += to.size())
    s->replace(at, from.size(), to);
}

TEST(RemoteScan, ABucketScansAsItsFolderAndARescanSkipsIt) {
  std::string why;
  testing::SwiftS3Server* server = testing::SwiftS3Server::Shared(&why);
  if (!server && why.find("not installed") != std::string::npos) GTEST_SKIP() << why;
  ASSERT_NE(server, nullptr) << why;

  const std::string dir = testing::TempDir() + "/job";
  synth::Scenario s;
  s.ranks = 2;
  s.steps = 2;
  s.kernels_per_step = 8;
  s.collectives_per_step = 1;
  auto paths = synth::WriteKinetoTraces(s, dir, true, nullptr);
  ASSERT_TRUE(paths.ok()) << paths.status().message();
  std::vector<std::pair<std::string, std::string>> files;
  for (const std::string& p : *paths)
    files.emplace_back("job/" + fs::path(p).filename().string(), p);
  ASSERT_TRUE(server->Put("fleet", files));

  const std::string local_db = "sqlite:" + testing::TempDir() + "/local.db";
  const std::string remote_db = "sqlite:" + testing::TempDir() + "/remote.db";
  CommandResult local = Tracehound("scan " + dir + " --db '" + local_db + "'");
  ASSERT_EQ(local.status, 0) << local.out;
  CommandResult remote =
      Tracehound("scan s3://fleet/job/ --db '" + remote_db + "'", server->S3Env());
  ASSERT_EQ(remote.status, 0) << remote.out;

  // The object URLs and their ETags are what the database holds of the inputs.
  std::vector<std::string> remote_paths =
      Column(remote_db, "SELECT path FROM traces ORDER BY path");
  ASSERT_EQ(remote_paths.size(), 2u);
  EXPECT_EQ(remote_paths[0], "s3://fleet/" + files[0].first);
  std::vector<std::string> etags = Column(remote_db, "SELECT file_hash FROM traces ORDER BY path");
  for (const std::string& e : etags) EXPECT_TRUE(e.starts_with("etag:")) << e;

  // The same results: the dumps differ only by where the files were and
  // by what identifies them (bytes' hash locally, ETag remotely).
  std::string a = Dump(local_db), b = Dump(remote_db);
  ReplaceAll(&b, "s3://fleet/job", dir);
  const char* ids[] = {"SELECT content_hash FROM runs",
                       "SELECT file_hash FROM traces ORDER BY path"};
  for (const char* sql : ids) {
    std::vector<std::string> from = Column(remote_db, sql), to = Column(local_db, sql);
    ASSERT_EQ(from.size(), to.size());
    for (size_t i = 0; i < from.size(); ++i) ReplaceAll(&b, from[i], to[i]);
  }
  EXPECT_EQ(a, b);
  EXPECT_NE(b.find("findings"), std::string::npos);

  CommandResult again =
      Tracehound("scan s3://fleet/job/ --db '" + remote_db + "'", server->S3Env());
  EXPECT_EQ(again.status, 0) << again.out;
  EXPECT_NE(again.out.find("scanned 0, skipped 1"), std::string::npos) << again.out;
  EXPECT_EQ(remote.out.find("testing"), std::string::npos) << "the secret was printed";
}

}  // namespace
}  // namespace th
