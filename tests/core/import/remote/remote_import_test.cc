// Remote inputs against a real S3 server on loopback (OpenStack Swift with
// s3api, which verifies every SigV4 signature), through the tracehound
// command as a user runs it, and through a fault-injecting proxy.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <regex>

#include "core/import/remote/remote_inputs.h"
#include "tests/support/archive_writer.h"
#include "tests/support/bearer_gate.h"
#include "tests/support/command_runner.h"
#include "tests/support/fault_proxy.h"
#include "tests/support/swift_s3_server.h"
#include "tests/support/test_files.h"

namespace th::testing {
namespace {

namespace fs = std::filesystem;

// Skips where Swift is not installed; fails where it is and does not start.
#define REQUIRE_SWIFT(server)                                                           \
  std::string why_;                                                                     \
  SwiftS3Server* server = SwiftS3Server::Shared(&why_);                                 \
  if (!server && why_.find("not installed") != std::string::npos) GTEST_SKIP() << why_; \
  ASSERT_NE(server, nullptr) << why_

// `info --json` with what differs between two reads of the same content
// left out: the input's name and the wall-clock timings.
std::string Normalized(std::string json, const std::string& local_dir = "",
                       const std::string& remote_dir = "") {
  for (size_t at; !local_dir.empty() && (at = json.find(local_dir)) != std::string::npos;)
    json.replace(at, local_dir.size(), remote_dir);
  json = std::regex_replace(json, std::regex(R"("path": "[^"]*")"), R"("path": "P")");
  json = std::regex_replace(json, std::regex(R"("import_seconds": [0-9.e-]+)"), "");
  json = std::regex_replace(json, std::regex(R"("import_profile_seconds": \{[^}]*\})"), "");
  return json;
}

// Local directories are named as their remote prefix `as` in the output.
std::string Info(const std::string& input, const std::string& env = "",
                 const std::string& as = "") {
  CommandResult r = Tracehound("info --json " + input, env);
  EXPECT_EQ(r.status, 0) << input << ": " << r.out;
  return Normalized(r.out, as.empty() ? "" : input, as);
}

// A Kineto trace of `kernels` kernels (about 150 bytes each), so that a read
// spans many 1 MiB ranges.
std::string SyntheticTrace(int kernels) {
  std::string t = R"({"schemaVersion": 1, "traceEvents": [)";
  for (int i = 0; i < kernels; ++i) {
    t += std::string(i ? "," : "") + R"({"ph": "X", "cat": "kernel", "name": "k)" +
         std::to_string(i % 7) + R"(", "pid": 0, "tid": 7, "ts": )" + std::to_string(10 * i) +
         R"(, "dur": 5, "args": {"stream": 7, "correlation": )" + std::to_string(i) + "}}";
  }
  return t + "]}";
}

// One bucket of synthetic traces shared by the tests below.
struct Synthetic {
  std::string dir, plain, gz;
};
const Synthetic& Uploaded(SwiftS3Server* server) {
  static Synthetic s = [&] {
    Synthetic out;
    out.dir = TempDir() + "/job";
    fs::create_directories(out.dir);
    std::string trace = SyntheticTrace(40000);
    out.plain = out.dir + "/rank0.json";
    out.gz = out.dir + "/rank1.json.gz";
    WriteTempFile("job/rank0.json", trace);
    WriteTempFile("job/rank1.json.gz", Gzip(SyntheticTrace(30000)));
    WriteTempFile("job/notes.txt", "not a trace");
    EXPECT_TRUE(server->Put("synth", {{"job/rank0.json", out.plain},
                                      {"job/rank1.json.gz", out.gz},
                                      {"job/notes.txt", out.dir + "/notes.txt"}}));
    return out;
  }();
  return s;
}

TEST(RemoteImport, ObjectsReadBackAsTheLocalFiles) {
  REQUIRE_SWIFT(server);
  const Synthetic& s = Uploaded(server);
  EXPECT_EQ(Info("s3://synth/job/rank0.json", server->S3Env()), Info(s.plain));
  EXPECT_EQ(Info("s3://synth/job/rank1.json.gz", server->S3Env()), Info(s.gz));
}

// Every Kineto and XSpace trace of ../shared/data, uploaded and read back.
TEST(RemoteImport, RealTracesReadBackAsTheLocalFiles) {
  const std::string data = SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent";
  REQUIRE_SWIFT(server);
  std::vector<std::string> traces;
  for (const char* suffix : {".json", ".json.gz", ".xplane.pb"}) {
    for (const std::string& rel : FilesWithOracle(suffix)) traces.push_back(rel);
  }
  ASSERT_FALSE(traces.empty());
  std::vector<std::pair<std::string, std::string>> files;
  for (const std::string& rel : traces) files.emplace_back(rel, data + "/" + rel);
  // XProf's HLO side files, beside their .xplane.pb as on disk.
  for (const std::string& rel : FilesWithOracle(".hlo_proto.pb"))
    files.emplace_back(rel, data + "/" + rel);
  ASSERT_TRUE(server->Put("real", files));
  for (const std::string& rel : traces) {
    SCOPED_TRACE(rel);
    CommandResult local = Tracehound("info --json '" + data + "/" + rel + "'");
    CommandResult remote = Tracehound("info --json 's3://real/" + rel + "'", server->S3Env());
    EXPECT_EQ(remote.status, local.status) << remote.out;
    EXPECT_EQ(Normalized(remote.out, "s3://real/", "DATA/"),
              Normalized(local.out, data + "/", "DATA/"));
  }
}

TEST(RemoteImport, PrefixIsADirectoryAndGlobsMatchKeys) {
  REQUIRE_SWIFT(server);
  const Synthetic& s = Uploaded(server);
  std::string local = Info(s.dir, "", "s3://synth/job");
  EXPECT_EQ(Info("s3://synth/job/", server->S3Env()), local);
  EXPECT_EQ(Info("s3://synth/job", server->S3Env()), local);
  EXPECT_EQ(Info("'s3://synth/job/rank*.json*'", server->S3Env()), Info(s.plain + " " + s.gz));
  // One key a page: the listing follows every continuation token.
  EXPECT_EQ(Info("s3://synth/job/", server->S3Env() + " TRACEHOUND_REMOTE_LIST_PAGE=1"), local);
  CommandResult none = Tracehound("info s3://synth/nothing/", server->S3Env());
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.out.find("s3://synth/nothing/: no such object"), std::string::npos) << none.out;
}

TEST(RemoteImport, WrongCredentialsNameTheBucketAndNoSecret) {
  REQUIRE_SWIFT(server);
  Uploaded(server);
  CommandResult r =
      Tracehound("info s3://synth/job/rank0.json", server->S3Env("", "not-the-secret-x9"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("s3://synth/job/rank0.json: HTTP 403"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("access to bucket synth refused"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("not-the-secret-x9"), std::string::npos) << r.out;
  CommandResult listing = Tracehound("info s3://synth/job/", server->S3Env("", "nope"));
  EXPECT_EQ(listing.status, 2);
  EXPECT_NE(listing.out.find("SignatureDoesNotMatch"), std::string::npos) << listing.out;
}

// gs:// with HMAC keys: Cloud Storage's XML API is S3's, signed with SigV4 in
// region "auto"; the loopback Swift stands in for it (STORAGE_EMULATOR_HOST)
// and checks every signature.
TEST(RemoteImport, CloudStorageWithHmacKeysReadsBackAsTheLocalFiles) {
  REQUIRE_SWIFT(server);
  const Synthetic& s = Uploaded(server);
  EXPECT_EQ(Info("gs://synth/job/rank0.json", server->GcsEnv() + " TRACEHOUND_REMOTE_CHUNK_MIB=1"),
            Info(s.plain));
  EXPECT_EQ(Info("gs://synth/job/rank1.json.gz", server->GcsEnv()), Info(s.gz));
  EXPECT_EQ(Info("gs://synth/job/", server->GcsEnv()), Info(s.dir, "", "gs://synth/job"));
  CommandResult wrong =
      Tracehound("info gs://synth/job/rank0.json", server->GcsEnv("wrong-hmac-7q"));
  EXPECT_EQ(wrong.status, 2);
  EXPECT_NE(wrong.out.find("gs://synth/job/rank0.json: HTTP 403"), std::string::npos) << wrong.out;
  EXPECT_NE(wrong.out.find("access to bucket synth refused"), std::string::npos) << wrong.out;
  EXPECT_EQ(wrong.out.find("wrong-hmac-7q"), std::string::npos) << wrong.out;
}

// gs:// with an OAuth access token (GOOGLE_OAUTH_ACCESS_TOKEN): every request
// (lookup, listing, each range) carries "Authorization: Bearer TOKEN". A gate
// standing in for Cloud Storage's token check refuses any other and forwards
// the rest to Swift re-signed (tests/support/bearer_gate.h).
TEST(RemoteImport, CloudStorageWithAnOAuthTokenReadsBackAsTheLocalFiles) {
  REQUIRE_SWIFT(server);
  const Synthetic& s = Uploaded(server);
  BearerGate gate(server->port(), "ya29.test-token", "test:tester", "testing");
  auto env = [&](const std::string& token) {
    return "STORAGE_EMULATOR_HOST=" + gate.endpoint() +
           " GOOGLE_HMAC_ACCESS_ID= GOOGLE_HMAC_SECRET= GOOGLE_OAUTH_ACCESS_TOKEN=" + token;
  };
  EXPECT_EQ(
      Info("gs://synth/job/rank0.json", env("ya29.test-token") + " TRACEHOUND_REMOTE_CHUNK_MIB=1"),
      Info(s.plain));
  EXPECT_EQ(Info("gs://synth/job/", env("ya29.test-token")), Info(s.dir, "", "gs://synth/job"));
  EXPECT_GT(gate.authorised(), 3);  // lookups, a listing and the ranges
  EXPECT_EQ(gate.refused(), 0);
  CommandResult wrong = Tracehound("info gs://synth/job/rank0.json", env("ya29.expired-7q"));
  EXPECT_EQ(wrong.status, 2);
  EXPECT_NE(wrong.out.find("gs://synth/job/rank0.json: HTTP 401"), std::string::npos) << wrong.out;
  EXPECT_NE(wrong.out.find("access to bucket synth refused; credentials from the environment "
                           "(GOOGLE_OAUTH_ACCESS_TOKEN)"),
            std::string::npos)
      << wrong.out;
  EXPECT_EQ(wrong.out.find("ya29.expired-7q"), std::string::npos) << wrong.out;
  EXPECT_GT(gate.refused(), 0);
}

TEST(RemoteImport, PlainHttpObject) {
  REQUIRE_SWIFT(server);
  const Synthetic& s = Uploaded(server);
  ASSERT_TRUE(server->MakePublic("synth"));
  EXPECT_EQ(Info(server->endpoint() + "/v1/AUTH_test/synth/job/rank1.json.gz"), Info(s.gz));
}

TEST(RemoteImport, FaultsAreRetriedAndTheImportIsExact) {
  REQUIRE_SWIFT(server);
  const Synthetic& s = Uploaded(server);
  FaultProxy proxy(server->port(),
                   {Fault::kDrop, Fault::kServerError, Fault::kNone, Fault::kThrottle,
                    Fault::kTruncate, Fault::kNone},
                   FaultMode::kFirstTry);
  std::string env = server->S3Env(proxy.endpoint()) +
                    " TRACEHOUND_REMOTE_CHUNK_MIB=1 TRACEHOUND_REMOTE_RETRY_DELAY_MS=1";
  EXPECT_EQ(Info("s3://synth/job/", env), Info(s.dir, "", "s3://synth/job"));
  // Seven ranges (six of rank0.json, one of rank1.json.gz), each faulted on
  // its first try by the schedule's turn: drop, 500, -, 503, cut, -, drop.
  EXPECT_EQ(proxy.faults(), 5);
}

TEST(RemoteImport, AFaultThatPersistsNamesTheObjectAndOffset) {
  REQUIRE_SWIFT(server);
  Uploaded(server);
  FaultProxy proxy(server->port(), {Fault::kNone, Fault::kThrottle}, FaultMode::kEveryTry);
  CommandResult r = Tracehound("info s3://synth/job/rank0.json",
                               server->S3Env(proxy.endpoint()) +
                                   " TRACEHOUND_REMOTE_CHUNK_MIB=1 TRACEHOUND_REMOTE_STREAMS=1"
                                   " TRACEHOUND_REMOTE_ATTEMPTS=1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("s3://synth/job/rank0.json: read failed at byte offset 1048576 "
                       "(1048576 bytes): HTTP 503 SlowDown: Reduce your request rate."),
            std::string::npos)
      << r.out;
}

TEST(RemoteImport, AnObjectChangedDuringTheReadIsReported) {
  REQUIRE_SWIFT(server);
  Uploaded(server);
  std::string a = WriteTempFile("v1.json", SyntheticTrace(10));
  std::string b = WriteTempFile("v2.json", SyntheticTrace(20));
  ASSERT_TRUE(server->Put("changing", {{"t.json", a}}));
  setenv("AWS_ENDPOINT_URL", server->endpoint().c_str(), 1);
  setenv("AWS_ACCESS_KEY_ID", "test:tester", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "testing", 1);
  setenv("AWS_REGION", "auto", 1);  // the test server's region (swift_s3_server.py)
  auto seen = remote::LookUpRemoteObject("s3://changing/t.json");
  ASSERT_TRUE(seen.ok()) << seen.status().message();
  ASSERT_TRUE(server->Put("changing", {{"t.json", b}}));
  auto source = remote::OpenRemoteObject("s3://changing/t.json");
  ASSERT_TRUE(source.ok()) << source.status().message();
  auto bytes = ReadAll(**source);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().message(),
            "s3://changing/t.json: the object changed while it was read (its ETag is no longer " +
                seen->etag + "; at byte offset 0)");
}

// Writes (name, content) members, and a symbolic link "job/latest.json",
// as a .tar.gz or a (deflated) .zip.
void WriteArchive(const std::string& path,
                  const std::vector<std::pair<std::string, std::string>>& members, bool zip) {
  std::vector<testing::ArchiveMember> all;
  for (const auto& [name, body] : members) all.push_back({name, body, ""});
  all.push_back({"job/latest.json", "", "rank0.json"});
  testing::WriteArchive(path, all, zip ? testing::ArchiveKind::kZip : testing::ArchiveKind::kTarGz);
}

// Two ranks (a plain and a gzip-compressed member), noise and a note, as local archives and as
// objects of bucket "archives"; and a folder "mixed" holding the .tar.gz beside a plain rank and a
// note, also uploaded as prefix "mixed/".
struct Archives {
  std::string tgz, zip, mixed;
};
const Archives& UploadedArchives(SwiftS3Server* server) {
  static Archives s = [&] {
    Archives out;
    out.mixed = TempDir() + "/mixed";
    fs::create_directories(out.mixed);
    // 3 MiB of noise (no trace, incompressible) between the ranks: rank1
    // and the zip's central directory lie ranges away from rank0.
    std::mt19937 rng(7);
    std::string noise(3 << 20, '\0');
    for (char& c : noise) c = static_cast<char>(rng());
    const std::vector<std::pair<std::string, std::string>> members = {
        {"job/rank0.json", SyntheticTrace(20000)},
        {"job/noise.bin", noise},
        {"job/rank1.json.gz", Gzip(SyntheticTrace(15000))},
        {"job/README.txt", "not a trace"}};
    out.tgz = out.mixed + "/ranks.tar.gz";
    out.zip = TempDir() + "/ranks.zip";
    WriteArchive(out.tgz, members, false);
    WriteArchive(out.zip, members, true);
    WriteTempFile("mixed/rank2.json", SyntheticTrace(100));
    WriteTempFile("mixed/notes.txt", "not a trace");
    EXPECT_TRUE(server->Put("archives", {{"ranks.tar.gz", out.tgz}, {"ranks.zip", out.zip}}));
    EXPECT_TRUE(server->Put("archives", {{"mixed/ranks.tar.gz", out.tgz},
                                         {"mixed/rank2.json", out.mixed + "/rank2.json"},
                                         {"mixed/notes.txt", out.mixed + "/notes.txt"}}));
    return out;
  }();
  return s;
}

TEST(RemoteImport, ArchivesReadBackAsTheLocalArchives) {
  REQUIRE_SWIFT(server);
  const Archives& a = UploadedArchives(server);
  const std::string tgz = Info(a.tgz, "", "s3://archives/ranks.tar.gz");
  const std::string zip = Info(a.zip, "", "s3://archives/ranks.zip");
  EXPECT_NE(tgz.find("s3://archives/ranks.tar.gz:job/latest.json (symbolic link to rank0.json)"),
            std::string::npos)
      << tgz;
  EXPECT_EQ(Info("s3://archives/ranks.tar.gz", server->S3Env()), tgz);
  EXPECT_EQ(Info("s3://archives/ranks.zip", server->S3Env()), zip);
  // 1 MiB ranges: the zip's seeks (central directory, then each member)
  // land in other ranges than the ones streaming.
  const std::string small = server->S3Env() + " TRACEHOUND_REMOTE_CHUNK_MIB=1";
  EXPECT_EQ(Info("s3://archives/ranks.zip", small), zip);
  EXPECT_EQ(Info("s3://archives/ranks.tar.gz", small), tgz);
  ASSERT_TRUE(server->MakePublic("archives"));
  EXPECT_EQ(Info(server->endpoint() + "/v1/AUTH_test/archives/ranks.zip"),
            Info(a.zip, "", server->endpoint() + "/v1/AUTH_test/archives/ranks.zip"));
}

TEST(RemoteImport, APrefixWithAnArchiveExpandsAsAFolder) {
  REQUIRE_SWIFT(server);
  const Archives& a = UploadedArchives(server);
  const std::string local = Info(a.mixed, "", "s3://archives/mixed");
  // Two ranks of the archive, one plain file.
  EXPECT_NE(local.find("\"ranks\": 3"), std::string::npos) << local;
  EXPECT_EQ(Info("s3://archives/mixed/", server->S3Env()), local);
}

TEST(RemoteImport, ATruncatedArchiveNamesTheObjectAndOffset) {
  REQUIRE_SWIFT(server);
  const Archives& a = UploadedArchives(server);
  for (const std::string& path : {a.tgz, a.zip}) {
    const std::string name = "cut" + fs::path(path).filename().string();
    const std::string bytes = ReadFile(path);
    const std::string cut = WriteTempFile(name, bytes.substr(0, bytes.size() * 2 / 3));
    ASSERT_TRUE(server->Put("archives", {{name, cut}}));
    CommandResult local = Tracehound("info " + cut);
    CommandResult remote = Tracehound("info s3://archives/" + name, server->S3Env());
    EXPECT_EQ(remote.status, 2) << remote.out;
    EXPECT_EQ(remote.status, local.status) << local.out;
    EXPECT_NE(remote.out.find("s3://archives/" + name + ":"), std::string::npos) << remote.out;
    EXPECT_NE(remote.out.find("at byte offset "), std::string::npos) << remote.out;
  }
}

// A real multi-rank capture, as it was published (a .tar.gz of eight ranks).
TEST(RemoteImport, RealArchiveReadsBackAsTheLocalArchive) {
  const std::string data = SharedDataDir();
  if (data.empty()) GTEST_SKIP() << "../shared/data is absent";
  const std::string path = data + "/param/et_replay/tests/data/dlrm_kineto.tar.gz";
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
  REQUIRE_SWIFT(server);
  ASSERT_TRUE(server->Put("real-archive", {{"dlrm_kineto.tar.gz", path}}));
  const std::string local = Info(path, "", "s3://real-archive/dlrm_kineto.tar.gz");
  EXPECT_NE(local.find("\"ranks\": 8"), std::string::npos) << local.substr(0, 2000);
  EXPECT_EQ(Info("s3://real-archive/dlrm_kineto.tar.gz", server->S3Env()), local);
}

}  // namespace
}  // namespace th::testing
