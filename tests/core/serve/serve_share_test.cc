// Share links against the real server, bound off loopback (0.0.0.0, asked
// through this machine's non-loopback address when it has one): a share
// token sees its run alone and nothing else, and expired, tampered,
// other-key, wrong-run and revoked tokens and no token are refused; the
// admin token issues tokens (/api/v1/share). HTTPS with a self-signed
// certificate made by the test (openssl), asked by a verifying TLS client;
// bad TLS files are named.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <simdjson.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/serve/serve_server.h"
#include "core/serve/serve_share_api.h"
#include "core/serve/share_keys.h"
#include "tests/core/serve/serve_fixture.h"
#include "tests/support/command_runner.h"
#include "tests/support/test_files.h"

namespace th::serve {
namespace {

const std::string kAdmin = "0123456789abcdef0123456789abcdef";

// This machine's first non-loopback IPv4 address, else 127.0.0.1.
std::string ReachableAddress() {
  ifaddrs* list = nullptr;
  std::string found = "127.0.0.1";
  if (getifaddrs(&list) != 0) return found;
  for (ifaddrs* a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
    char text[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof text);
    if (!IsLoopbackAddress(text)) {
      found = text;
      break;
    }
  }
  freeifaddrs(list);
  return found;
}

int64_t Now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Two runs of different content, a key file, served on 0.0.0.0 with the
// admin token.
struct SharedServer {
  std::vector<std::unique_ptr<ServeRun>> runs;
  std::unique_ptr<ShareAuthority> authority;
  std::unique_ptr<ServeServer> server;
  std::unique_ptr<httplib::Client> client;
  std::string key_file;

  SharedServer() {
    const std::string a = testing::WriteServeFixture("share_a.json");
    const std::string b = th::testing::TempDir() + "/share_b.json";
    std::filesystem::copy_file(a, b, std::filesystem::copy_options::overwrite_existing);
    std::ofstream(b, std::ios::app) << "\n";  // the same events, another content key
    for (const std::string& in : {a, b}) {
      runs.push_back(std::make_unique<ServeRun>(in, std::filesystem::path(in).filename()));
      std::string note;
      EXPECT_TRUE(LoadServeRun(runs.back().get(), {}, &note).ok());
    }
    key_file = th::testing::TempDir() + "/share_server/serve-share.key";
    std::filesystem::remove_all(std::filesystem::path(key_file).parent_path());
    authority = ShareAuthority::Open(key_file).value();
    ServeServerOptions options;
    options.bind = "0.0.0.0";
    options.port = 0;
    options.access.token = kAdmin;
    options.access.share = authority.get();
    server = std::make_unique<ServeServer>(&runs, options);
    EXPECT_TRUE(server->Bind().ok());
    server->Start();
    client = std::make_unique<httplib::Client>(ReachableAddress(), server->port());
  }
  ~SharedServer() { server->Stop(); }

  httplib::Result Get(const std::string& path, const std::string& token) {
    if (token.empty()) return client->Get(path.c_str());
    return client->Get(path.c_str(), {{"Authorization", "Bearer " + token}});
  }
  std::string Token(size_t run, int64_t expires) {
    return authority->Issue({runs[run]->content_key()}, expires).value();
  }
};

void ExpectStatus(httplib::Result r, int status, const std::string& body) {
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, status) << r->body;
  EXPECT_EQ(r->body, body);
}

TEST(ServeShareTest, AShareTokenSeesItsRunAloneAndNothingElse) {
  SharedServer s;
  ASSERT_NE(s.runs[0]->content_key(), s.runs[1]->content_key());
  const std::string token = s.Token(1, Now() + 3600);
  auto admin = s.Get("/api/v1/runs", kAdmin);
  ASSERT_TRUE(admin);
  EXPECT_NE(admin->body.find("\"run\":0"), std::string::npos);
  EXPECT_NE(admin->body.find("\"run\":1"), std::string::npos);
  auto listed = s.Get("/api/v1/runs", token);
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->status, 200);
  simdjson::dom::parser parser;
  simdjson::dom::array list = parser.parse(listed->body)["runs"].get_array();
  ASSERT_EQ(list.size(), 1u) << listed->body;
  EXPECT_EQ(int64_t(list.at(0)["run"]), 1);
  EXPECT_EQ(std::string_view(list.at(0)["content_key"]), s.runs[1]->content_key());
  for (const char* path : {"/api/v1/runs/1/meta", "/api/v1/runs/1/counters",
                           "/api/v1/runs/1/search?q=kernel", "/api/v1/runs/1/events/0"}) {
    auto r = s.Get(path, token);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << path << " " << r->body;
  }
  // Another run, existing or not, is the same 404: the link tells nothing of it.
  ExpectStatus(s.Get("/api/v1/runs/0/meta", token), 404,
               "{\"error\":\"run: this link shows no run 0\"}");
  ExpectStatus(s.Get("/api/v1/runs/0/tile?row=0&level=10&tile=0", token), 404,
               "{\"error\":\"run: this link shows no run 0\"}");
  ExpectStatus(s.Get("/api/v1/runs/7/meta", token), 404,
               "{\"error\":\"run: this link shows no run 7\"}");
  ExpectStatus(s.Get("/api/v1/runs/x/meta", token), 404,
               "{\"error\":\"run: this link shows no run ?\"}");
  // No new tokens from a share token, and no other API.
  ExpectStatus(s.Get("/api/v1/share?runs=1", token), 403,
               "{\"error\":\"scope: a share link reads the runs it names, nothing else\"}");
  // Read-only: only GET and HEAD reach the server.
  auto post =
      s.client->Post("/api/v1/runs", {{"Authorization", "Bearer " + token}}, "", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  // The page with the token in its query sets it as the cookie of its assets.
  auto page = s.client->Get(("/?token=" + token).c_str());
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Set-Cookie"),
            "th_token=" + token + "; Path=/; HttpOnly; SameSite=Strict");
  EXPECT_EQ(page->get_header_value("Referrer-Policy"), "no-referrer");
  auto asset = s.client->Get("/assets/viewer.js", {{"Cookie", "th_token=" + token}});
  ASSERT_TRUE(asset);
  EXPECT_EQ(asset->status, 200);
}

TEST(ServeShareTest, ExpiredTamperedOtherKeyRevokedAndMissingTokensAreRefused) {
  SharedServer s;
  const std::string good = s.Token(0, Now() + 3600);
  ASSERT_EQ(s.Get("/api/v1/runs/0/meta", good)->status, 200);
  ExpectStatus(s.Get("/api/v1/runs", ""), 401,
               "{\"error\":\"token: missing or wrong (send Authorization: Bearer TOKEN or "
               "?token=TOKEN)\"}");
  auto expired = s.Get("/api/v1/runs/0/meta", s.Token(0, Now() - 1));
  ASSERT_TRUE(expired);
  EXPECT_EQ(expired->status, 401);
  EXPECT_NE(expired->body.find("\"error\":\"token: this link expired at "), std::string::npos)
      << expired->body;
  // The claims of a token for run 0 rewritten to name run 1, its signature kept.
  auto claims = ReadUnverifiedClaims(good);
  ASSERT_TRUE(claims.ok());
  claims->runs = {s.runs[1]->content_key()};
  const std::string forged = Base64UrlEncode(ClaimsJson(*claims)) + good.substr(good.find('.'));
  const std::string bad_signature =
      "{\"error\":\"token: the signature does not match this server's key\"}";
  ExpectStatus(s.Get("/api/v1/runs/1/meta", forged), 401, bad_signature);
  ExpectStatus(s.Get("/api/v1/runs", forged), 401, bad_signature);
  // Signed by another server's key.
  auto other = ShareAuthority::Open(th::testing::TempDir() + "/share_server_other.key");
  ASSERT_TRUE(other.ok());
  const std::string foreign = (*other)->Issue({s.runs[0]->content_key()}, Now() + 3600).value();
  ExpectStatus(s.Get("/api/v1/runs/0/meta", foreign), 401, bad_signature);
  // A valid token for run 0 asking for run 1.
  ExpectStatus(s.Get("/api/v1/runs/1/meta", good), 404,
               "{\"error\":\"run: this link shows no run 1\"}");
  // Revoked while the server runs: refused from the next request on.
  ASSERT_TRUE(RevokeShareToken(s.key_file, good).ok());
  ExpectStatus(s.Get("/api/v1/runs/0/meta", good), 401,
               "{\"error\":\"token: this link was revoked\"}");
  auto page = s.client->Get(("/?token=" + good).c_str());
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 401);
  EXPECT_EQ(page->get_header_value("Set-Cookie"), "");
}

TEST(ServeShareTest, TheAdminTokenIssuesShareTokens) {
  SharedServer s;
  auto r = s.Get("/api/v1/share?runs=1&expires=2h", kAdmin);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r->body);
  const std::string token{std::string_view(doc["token"])};
  const int64_t expires = doc["expires"];
  EXPECT_GE(expires, Now() + 7200 - 5);
  EXPECT_LE(expires, Now() + 7200);
  EXPECT_EQ(std::string_view(doc["expires_utc"]), UtcTime(expires));
  EXPECT_EQ(std::string_view(doc["runs"].at(0)), s.runs[1]->content_key());
  EXPECT_EQ(std::string_view(doc["id"]), ReadUnverifiedClaims(token)->id);
  EXPECT_EQ(s.Get("/api/v1/runs/1/meta", token)->status, 200);
  EXPECT_EQ(s.Get("/api/v1/runs/0/meta", token)->status, 404);
  ExpectStatus(s.Get("/api/v1/share?runs=5", kAdmin), 400,
               "{\"error\":\"runs: 5 is not a run number\"}");
  ExpectStatus(s.Get("/api/v1/share?runs=0&expires=9y", kAdmin), 400,
               "{\"error\":\"expires: 9y: expected a number and a unit (s, m, h, d or w), e.g. "
               "7d\"}");
  ExpectStatus(s.Get("/api/v1/share?runs=0", ""), 401,
               "{\"error\":\"token: missing or wrong (send Authorization: Bearer TOKEN or "
               "?token=TOKEN)\"}");
}

// A run of the fleet database is seen by its scan content hash before it is
// opened (its content key is not known yet), and the admin's share names it so.
TEST(ServeShareTest, ADatabaseRunIsNamedByItsFleetHashBeforeItOpens) {
  Runs runs;
  runs.push_back(std::make_unique<ServeRun>("/nowhere/a", "a"));
  runs.push_back(std::make_unique<ServeRun>("/nowhere/b", "b"));
  std::vector<RunSummary> summaries(2);
  summaries[0].db_run_id = "0123456789abcdef0123456789abcdef:fedcba9876543210fedcba9876543210";
  summaries[1].db_run_id = "";  // a run of files: no fleet hash
  EXPECT_EQ(FleetContentHash(summaries[0]), "0123456789abcdef0123456789abcdef");
  EXPECT_EQ(FleetContentHash(summaries[1]), "");
  ShareClaims claims;
  claims.runs = {"0123456789abcdef0123456789abcdef"};
  EXPECT_EQ(VisibleRuns(runs, summaries, claims), (std::vector<bool>{true, false}));
  claims.runs = {"fedcba9876543210fedcba9876543210"};  // the pipeline half names nothing
  EXPECT_EQ(VisibleRuns(runs, summaries, claims), (std::vector<bool>{false, false}));

  const std::string dir = th::testing::TempDir() + "/share_fleet";
  std::filesystem::remove_all(dir);
  auto authority = ShareAuthority::Open(dir + "/k.key");
  ASSERT_TRUE(authority.ok());
  ApiResponse r = ShareResponse(runs, summaries, authority->get(), {{"runs", "0"}}, Now());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.body.find("\"runs\":[\"0123456789abcdef0123456789abcdef\"]"), std::string::npos)
      << r.body;
  ApiResponse importing = ShareResponse(runs, summaries, authority->get(), {{"runs", "1"}}, Now());
  EXPECT_EQ(importing.status, 503);
  EXPECT_EQ(importing.body, "{\"error\":\"runs: run 1 is still importing\"}");
}

// A self-signed certificate for 127.0.0.1 and its key in `dir`.
bool MakeCertificate(const std::string& dir, const std::string& name) {
  std::filesystem::create_directories(dir);
  return th::testing::Shell("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=" + name +
                            " -addext subjectAltName=IP:127.0.0.1 -keyout " + dir +
                            "/key.pem -out " + dir + "/cert.pem")
             .status == 0;
}

TEST(ServeShareTest, HttpsWithACertificateAndKey) {
  const std::string dir = th::testing::TempDir() + "/serve_tls";
  if (th::testing::Shell("openssl version").status != 0)
    GTEST_SKIP() << "the openssl command is not installed: skipped";
  ASSERT_TRUE(MakeCertificate(dir, "tracehound-test"));
  std::vector<std::unique_ptr<ServeRun>> runs;
  runs.push_back(std::make_unique<ServeRun>(testing::WriteServeFixture("tls.json"), "tls.json"));
  std::string note;
  ASSERT_TRUE(LoadServeRun(runs.back().get(), {}, &note).ok());
  ServeServerOptions options;
  options.port = 0;
  options.tls = {dir + "/cert.pem", dir + "/key.pem"};
  ServeServer server(&runs, options);
  Status bound = server.Bind();
  ASSERT_TRUE(bound.ok()) << bound.message();
  server.Start();
  EXPECT_EQ(server.Url(), "https://127.0.0.1:" + std::to_string(server.port()) + "/");
  httplib::SSLClient tls("127.0.0.1", server.port());
  tls.set_ca_cert_path((dir + "/cert.pem").c_str());
  tls.enable_server_certificate_verification(true);
  auto r = tls.Get("/api/v1/runs");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("\"name\":\"tls.json\""), std::string::npos);
  // Plain HTTP to the TLS port gets no answer.
  httplib::Client plain("127.0.0.1", server.port());
  plain.set_connection_timeout(2);
  plain.set_read_timeout(2);
  auto refused = plain.Get("/api/v1/runs");
  EXPECT_TRUE(!refused || refused->status != 200);
  // A client that does not trust the certificate refuses the server.
  httplib::SSLClient untrusting("127.0.0.1", server.port());
  untrusting.enable_server_certificate_verification(true);
  untrusting.set_ca_cert_path((dir + "/none.pem").c_str());
  EXPECT_FALSE(untrusting.Get("/api/v1/runs"));
  server.Stop();
}

TEST(ServeShareTest, BadTlsFilesAreNamed) {
  const std::string dir = th::testing::TempDir() + "/serve_tls_bad";
  if (th::testing::Shell("openssl version").status != 0)
    GTEST_SKIP() << "the openssl command is not installed: skipped";
  ASSERT_TRUE(MakeCertificate(dir + "/a", "a"));
  ASSERT_TRUE(MakeCertificate(dir + "/b", "b"));
  std::ofstream(dir + "/not.pem") << "not a certificate\n";
  std::vector<std::unique_ptr<ServeRun>> none;
  auto bind = [&](const std::string& cert, const std::string& key) {
    ServeServerOptions options;
    options.port = 0;
    options.tls = {cert, key};
    ServeServer server(&none, options);
    return server.Bind().message();
  };
  EXPECT_EQ(bind(dir + "/missing.pem", dir + "/a/key.pem"),
            "TLS certificate " + dir + "/missing.pem: cannot open: No such file or directory");
  EXPECT_EQ(bind(dir + "/a/cert.pem", dir + "/missing.pem"),
            "TLS key " + dir + "/missing.pem: cannot open: No such file or directory");
  EXPECT_TRUE(bind(dir + "/not.pem", dir + "/a/key.pem")
                  .starts_with("TLS certificate " + dir + "/not.pem: not a PEM certificate"));
  EXPECT_TRUE(bind(dir + "/a/cert.pem", dir + "/not.pem")
                  .starts_with("TLS key " + dir + "/not.pem: not a PEM private key"));
  EXPECT_TRUE(bind(dir + "/a/cert.pem", dir + "/b/key.pem")
                  .starts_with("TLS key " + dir + "/b/key.pem: not the key of the certificate " +
                               dir + "/a/cert.pem"))
      << bind(dir + "/a/cert.pem", dir + "/b/key.pem");
  EXPECT_EQ(bind(dir + "/a/cert.pem", ""),
            "TLS needs both a certificate and a key (--tls-cert and --tls-key)");
}

}  // namespace
}  // namespace th::serve
