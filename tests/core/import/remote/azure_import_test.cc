// az:// inputs against Azurite on loopback (Microsoft's Azure Storage
// emulator, which checks Shared Key signatures), through the tracehound
// command; and the Shared Key string to sign in the layout Azure documents.
#include <gtest/gtest.h>

#include <regex>

#include "core/import/remote/azure_shared_key.h"
#include "core/import/remote/sigv4.h"
#include "tests/support/azurite_server.h"
#include "tests/support/command_runner.h"
#include "tests/support/test_files.h"

namespace th::testing {
namespace {

std::string Normalized(std::string json) {
  json = std::regex_replace(json, std::regex(R"("path": "[^"]*")"), R"("path": "P")");
  json = std::regex_replace(json, std::regex(R"("import_seconds": [0-9.e-]+)"), "");
  return std::regex_replace(json, std::regex(R"("import_profile_seconds": \{[^}]*\})"), "");
}

std::string Trace(int kernels) {
  std::string t = R"({"traceEvents": [)";
  for (int i = 0; i < kernels; ++i) {
    t += std::string(i ? "," : "") + R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, )" +
         R"("tid": 7, "ts": )" + std::to_string(10 * i) + R"(, "dur": 5, "args": {"stream": 7}})";
  }
  return t + "]}";
}

TEST(AzureSharedKey, StringToSignLayout) {
  remote::AzureRequest r{"GET",
                         "myaccount",
                         "/mycontainer/dir/a%20b.json",
                         {{"comp", "list"}, {"restype", "container"}},
                         {{"x-ms-version", "2021-08-06"},
                          {"x-ms-date", "Fri, 26 Jun 2015 23:39:12 GMT"},
                          {"Range", "bytes=0-9"},
                          {"If-Match", "\"0x8D\""}}};
  EXPECT_EQ(remote::AzureStringToSign(r),
            "GET\n\n\n\n\n\n\n\n\"0x8D\"\n\n\nbytes=0-9\n"
            "x-ms-date:Fri, 26 Jun 2015 23:39:12 GMT\nx-ms-version:2021-08-06\n"
            "/myaccount/mycontainer/dir/a%20b.json\ncomp:list\nrestype:container");
}

TEST(AzureImport, BlobsReadBackAsTheLocalFilesAndAWrongKeyIsRefused) {
  std::string why;
  AzuriteServer* server = AzuriteServer::Shared(&why);
  if (!server && why.find("not installed") != std::string::npos) GTEST_SKIP() << why;
  ASSERT_NE(server, nullptr) << why;
  std::string plain = WriteTempFile("az/rank0.json", Trace(30000));
  std::string gz = WriteTempFile("az/rank1.json.gz", Gzip(Trace(20000)));
  ASSERT_TRUE(server->Put("traces", "job/rank0.json", plain));
  ASSERT_TRUE(server->Put("traces", "job/rank1.json.gz", gz));
  const std::string env = server->Env() + " TRACEHOUND_REMOTE_CHUNK_MIB=1";
  const std::string az = "az://" + std::string(AzuriteServer::kAccount) + "/traces/";

  CommandResult one = Tracehound("info --json " + az + "job/rank0.json", env);
  ASSERT_EQ(one.status, 0) << one.out;
  EXPECT_EQ(Normalized(one.out), Normalized(Tracehound("info --json " + plain).out));
  CommandResult prefix = Tracehound("info --json " + az + "job/", env);
  ASSERT_EQ(prefix.status, 0) << prefix.out;
  EXPECT_EQ(Normalized(prefix.out), Normalized(Tracehound("info --json " + plain + " " + gz).out));

  std::string wrong_key = std::string(AzuriteServer::kKey);
  wrong_key[0] = wrong_key[0] == 'A' ? 'B' : 'A';
  CommandResult refused = Tracehound("info " + az + "job/rank0.json", server->Env(wrong_key));
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.out.find("HTTP 403"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("container traces of account devstoreaccount1"), std::string::npos)
      << refused.out;
  EXPECT_EQ(refused.out.find(wrong_key), std::string::npos);
}

// An account SAS of the emulator account for blobs, signed with `key` in the
// layout Azure documents for version 2019-12-12: account, permissions,
// services, resource types, start, expiry, IP, protocols, version.
std::string AccountSas(const std::string& permissions, const std::string& key) {
  const std::string version = "2019-12-12", expiry = "2099-01-01T00:00:00Z",
                    protocols = "https,http";
  const std::string to_sign = std::string(AzuriteServer::kAccount) + "\n" + permissions +
                              "\nb\nsco\n\n" + expiry + "\n\n" + protocols + "\n" + version + "\n";
  const std::string sig =
      remote::Base64Encode(remote::HmacSha256(remote::Base64Decode(key), to_sign));
  return "sv=" + version + "&ss=b&srt=sco&sp=" + permissions +
         "&se=" + remote::UriEncode(expiry, false) + "&spr=" + remote::UriEncode(protocols, false) +
         "&sig=" + remote::UriEncode(sig, false);
}

// The command line's environment for a SAS token (quoted: it holds '&').
std::string SasEnv(const AzuriteServer& server, const std::string& sas) {
  return "AZURE_STORAGE_ENDPOINT=" + server.endpoint() +
         " AZURE_STORAGE_KEY= " + "AZURE_STORAGE_SAS_TOKEN='?" + sas + "'";
}

TEST(AzureImport, SasTokensReadAndListAndABadOneIsRefused) {
  std::string why;
  AzuriteServer* server = AzuriteServer::Shared(&why);
  if (!server && why.find("not installed") != std::string::npos) GTEST_SKIP() << why;
  ASSERT_NE(server, nullptr) << why;
  std::string plain = WriteTempFile("sas/rank0.json", Trace(25000));
  std::string gz = WriteTempFile("sas/rank1.json.gz", Gzip(Trace(15000)));
  ASSERT_TRUE(server->Put("sas", "job/rank0.json", plain));
  ASSERT_TRUE(server->Put("sas", "job/rank1.json.gz", gz));
  const std::string az = "az://" + std::string(AzuriteServer::kAccount) + "/sas/";
  const std::string read_list = AccountSas("rl", AzuriteServer::kKey);

  CommandResult one = Tracehound("info --json " + az + "job/rank0.json",
                                 SasEnv(*server, read_list) + " TRACEHOUND_REMOTE_CHUNK_MIB=1");
  ASSERT_EQ(one.status, 0) << one.out;
  EXPECT_EQ(Normalized(one.out), Normalized(Tracehound("info --json " + plain).out));
  CommandResult prefix = Tracehound("info --json " + az + "job/", SasEnv(*server, read_list));
  ASSERT_EQ(prefix.status, 0) << prefix.out;
  EXPECT_EQ(Normalized(prefix.out), Normalized(Tracehound("info --json " + plain + " " + gz).out));

  // Read without list: a blob reads, its prefix is refused.
  const std::string read_only = AccountSas("r", AzuriteServer::kKey);
  EXPECT_EQ(Tracehound("info " + az + "job/rank1.json.gz", SasEnv(*server, read_only)).status, 0);
  CommandResult unlisted = Tracehound("info " + az + "job/", SasEnv(*server, read_only));
  EXPECT_EQ(unlisted.status, 2);
  EXPECT_NE(unlisted.out.find("HTTP 403"), std::string::npos) << unlisted.out;

  // Signed with another key: refused, naming the container, the token unprinted.
  std::string other_key = std::string(AzuriteServer::kKey);
  other_key[0] = other_key[0] == 'A' ? 'B' : 'A';
  const std::string forged = AccountSas("rl", other_key);
  CommandResult refused = Tracehound("info " + az + "job/rank0.json", SasEnv(*server, forged));
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.out.find("HTTP 403"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("container sas of account devstoreaccount1"), std::string::npos)
      << refused.out;
  EXPECT_EQ(refused.out.find(forged.substr(forged.find("sig=") + 4)), std::string::npos)
      << refused.out;
}

}  // namespace
}  // namespace th::testing
