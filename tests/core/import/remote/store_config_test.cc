// Credentials and endpoints from the environment and AWS's files, and URL
// parsing: what each cloud's own tools would pick, with no secret in a message.
#include "core/import/remote/store_config.h"

#include <gtest/gtest.h>

#include <map>

#include "core/import/remote/object_url.h"
#include "tests/support/test_files.h"

namespace th::remote {
namespace {

Getenv EnvOf(std::map<std::string, std::string> vars) {
  return [vars](const char* name) {
    auto it = vars.find(name);
    return it == vars.end() ? std::string() : it->second;
  };
}

TEST(StoreConfig, S3FromTheEnvironment) {
  auto c = S3Config(EnvOf({{"AWS_ACCESS_KEY_ID", "AKID"},
                           {"AWS_SECRET_ACCESS_KEY", "SECRET"},
                           {"AWS_SESSION_TOKEN", "TOKEN"},
                           {"AWS_REGION", "eu-west-3"},
                           {"AWS_ENDPOINT_URL", "http://127.0.0.1:9000/"}}));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->access_key, "AKID");
  EXPECT_EQ(c->secret_key, "SECRET");
  EXPECT_EQ(c->session_token, "TOKEN");
  EXPECT_EQ(c->region, "eu-west-3");
  EXPECT_EQ(c->endpoint, "http://127.0.0.1:9000");
  EXPECT_EQ(c->source, "the environment (AWS_ACCESS_KEY_ID)");
  auto half = S3Config(EnvOf({{"AWS_ACCESS_KEY_ID", "AKID"}}));
  ASSERT_FALSE(half.ok());
  EXPECT_EQ(half.status().message(), "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not");
}

TEST(StoreConfig, S3FromAProfileOfTheCredentialsFile) {
  std::string creds = testing::WriteTempFile(
      "aws/credentials",
      "[default]\naws_access_key_id = D\naws_secret_access_key = DS\n\n"
      "[ci]\n# a comment\naws_access_key_id=C\naws_secret_access_key=CS\naws_session_token=CT\n");
  std::string config = testing::WriteTempFile("aws/config", "[profile ci]\nregion = ap-south-1\n");
  auto d = S3Config(EnvOf({{"AWS_SHARED_CREDENTIALS_FILE", creds}, {"AWS_CONFIG_FILE", config}}));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->access_key, "D");
  EXPECT_EQ(d->region, "us-east-1");
  EXPECT_EQ(d->source, "profile default of " + creds);
  auto ci = S3Config(EnvOf({{"AWS_SHARED_CREDENTIALS_FILE", creds},
                            {"AWS_CONFIG_FILE", config},
                            {"AWS_PROFILE", "ci"}}));
  ASSERT_TRUE(ci.ok());
  EXPECT_EQ(ci->access_key, "C");
  EXPECT_EQ(ci->secret_key, "CS");
  EXPECT_EQ(ci->session_token, "CT");
  EXPECT_EQ(ci->region, "ap-south-1");
  auto missing = S3Config(EnvOf({{"AWS_SHARED_CREDENTIALS_FILE", creds}, {"AWS_PROFILE", "x"}}));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "AWS profile x not found in " + creds);
  // Home's file when no variable names one; nothing anywhere: unsigned.
  auto home = S3Config(EnvOf({{"HOME", testing::TempDir() + "/nohome"}}));
  ASSERT_TRUE(home.ok());
  EXPECT_TRUE(home->access_key.empty());
  EXPECT_EQ(home->source, "none (unsigned requests)");
}

TEST(StoreConfig, GcsAndAzure) {
  StoreConfig hmac =
      GcsConfig(EnvOf({{"GOOGLE_HMAC_ACCESS_ID", "G"}, {"GOOGLE_HMAC_SECRET", "GS"}}));
  EXPECT_EQ(hmac.endpoint, "https://storage.googleapis.com");
  EXPECT_EQ(hmac.region, "auto");
  EXPECT_EQ(hmac.access_key, "G");
  StoreConfig bearer = GcsConfig(EnvOf({{"GOOGLE_OAUTH_ACCESS_TOKEN", "ya29.x"},
                                        {"STORAGE_EMULATOR_HOST", "http://127.0.0.1:4443"}}));
  EXPECT_EQ(bearer.bearer_token, "ya29.x");
  EXPECT_EQ(bearer.endpoint, "http://127.0.0.1:4443");
  StoreConfig sas = AzureConfig(
      EnvOf({{"AZURE_STORAGE_SAS_TOKEN", "?sv=2021&sig=abc"}, {"AZURE_STORAGE_KEY", "a2V5"}}));
  EXPECT_EQ(sas.sas_token, "sv=2021&sig=abc");
  EXPECT_EQ(sas.source, "the environment (AZURE_STORAGE_SAS_TOKEN)");
}

TEST(ObjectUrl, Schemes) {
  auto s3 = ParseObjectUrl("s3://bkt/a/b.json.gz");
  ASSERT_TRUE(s3.ok());
  EXPECT_EQ(s3->bucket, "bkt");
  EXPECT_EQ(s3->key, "a/b.json.gz");
  EXPECT_EQ(s3->url(), "s3://bkt/a/b.json.gz");
  EXPECT_EQ(s3->Where(), "bucket bkt");
  auto az = ParseObjectUrl("az://acct/cont/dir/x.xplane.pb");
  ASSERT_TRUE(az.ok());
  EXPECT_EQ(az->bucket, "acct");
  EXPECT_EQ(az->container, "cont");
  EXPECT_EQ(az->key, "dir/x.xplane.pb");
  EXPECT_EQ(az->Where(), "container cont of account acct");
  auto http = ParseObjectUrl("https://example.com:8443/t/trace.json?x=1");
  ASSERT_TRUE(http.ok());
  EXPECT_EQ(http->scheme, Scheme::kHttp);
  EXPECT_EQ(http->url(), "https://example.com:8443/t/trace.json?x=1");
  EXPECT_TRUE(IsRemoteInput("gs://b/k"));
  EXPECT_FALSE(IsRemoteInput("runs/s3:/x"));
  // A member of a remote archive has no objects beside it (no side files).
  EXPECT_TRUE(IsRemoteObjectName("s3://b/job/host.xplane.pb"));
  EXPECT_FALSE(IsRemoteObjectName("s3://b/job/ranks.tar.gz:host.xplane.pb"));
  EXPECT_FALSE(IsRemoteObjectName("gs://b/ranks.zip:x.json"));
  EXPECT_FALSE(IsRemoteObjectName("runs/ranks.tgz:x.json"));
  EXPECT_EQ(ParseObjectUrl("s3:///key").status().message(),
            "s3:///key: the URL names no bucket or host");
  EXPECT_EQ(ParseObjectUrl("az://acct").status().message(),
            "az://acct: an az:// URL is az://ACCOUNT/CONTAINER/PATH");
}

}  // namespace
}  // namespace th::remote
