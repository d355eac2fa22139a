// `tracehound serve --share` and `--revoke` as a user runs them, against a
// running `tracehound serve` off loopback with the same key file: the link
// printed opens its run (and only it), the key file is made 0600 once and
// reused by both, and a revocation reaches the running server without a
// restart; bad durations, unknown runs and TLS files are named with exit 2;
// `--tls-cert`/`--tls-key` serve HTTPS to curl trusting the test's certificate.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>

#include "tests/core/serve/serve_fixture.h"
#include "tests/support/command_runner.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

using testing::Shell;
using testing::Tracehound;

// `tracehound serve ARGS` in the background, its output in files.
class Background {
 public:
  Background(const std::string& args, const std::string& dir) : out_(dir + "/serve.out") {
    auto r = Shell(std::string(TRACEHOUND_BINARY) + " serve " + args + " >" + out_ + " 2>" + dir +
                   "/serve.err & echo $!");
    pid_ = std::atoi(r.out.c_str());
  }
  ~Background() {
    if (pid_ > 0) kill(pid_, SIGTERM);
  }
  // The "serving URL" line, waiting at most 20 s.
  std::string Url() {
    for (int i = 0; i < 2000; ++i) {
      const std::string out = th::testing::ReadFile(out_);
      if (out.find('\n') != std::string::npos) return out.substr(0, out.find('\n'));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return "";
  }

 private:
  std::string out_;
  int pid_ = -1;
};

TEST(ServeShareCommand, ALinkOpensItsRunUntilRevoked) {
  const std::string dir = th::testing::TempDir() + "/cli_share";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string shared = serve::testing::WriteServeFixture("cli_share_a.json");
  const std::string other = dir + "/other.json";
  std::filesystem::copy_file(shared, other);
  Shell("echo >> " + other);  // another content key
  const std::string key = dir + "/keys/share.key";

  Background serve("--bind 0.0.0.0 --port 0 --no-cache --no-findings --token adm1n --key-file " +
                       key + " " + other + " " + shared,
                   dir);
  std::smatch m;
  const std::string url = serve.Url();
  ASSERT_TRUE(std::regex_search(url, m, std::regex(R"(^serving http://0\.0\.0\.0:(\d+)/)"))) << url;
  const std::string port = m[1];
  struct stat st {};
  ASSERT_EQ(stat(key.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  auto made = Tracehound("serve --share " + shared + " --expires 2h --bind 0.0.0.0 --port " + port +
                         " --key-file " + key);
  ASSERT_EQ(made.status, 0) << made.out;
  ASSERT_TRUE(std::regex_search(
      made.out, m,
      std::regex(
          R"(http://[^/:]+:(\d+)/\?token=([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)#key=([0-9a-f]{32}))")))
      << made.out;
  EXPECT_EQ(m[1], port);
  const std::string token = m[2], content_key = m[3];
  EXPECT_NE(made.out.find("read-only, 1 run, expires "), std::string::npos) << made.out;
  // The link names the trace by its bytes, nothing of its contents.
  EXPECT_EQ(made.out.find("cli_share_a"), std::string::npos) << made.out;

  httplib::Client client("127.0.0.1", std::stoi(port));
  const std::string q = "?token=" + token;
  std::string runs;
  for (int i = 0; i < 2000 && runs.find("\"ready\":true") == std::string::npos; ++i) {
    auto r = client.Get(("/api/v1/runs" + q).c_str());
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    runs = r->body;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_NE(runs.find("\"run\":1,"), std::string::npos) << runs;
  EXPECT_EQ(runs.find("\"run\":0,"), std::string::npos) << runs;
  EXPECT_NE(runs.find("\"content_key\":\"" + content_key + "\""), std::string::npos) << runs;
  EXPECT_EQ(client.Get(("/api/v1/runs/1/meta" + q).c_str())->status, 200);
  EXPECT_EQ(client.Get(("/api/v1/runs/0/meta" + q).c_str())->status, 404);

  auto revoked = Tracehound("serve --revoke '" + made.out.substr(0, made.out.find('\n')) +
                            "' --key-file " + key);
  ASSERT_EQ(revoked.status, 0) << revoked.out;
  EXPECT_NE(revoked.out.find("revoked share link "), std::string::npos) << revoked.out;
  auto refused = client.Get(("/api/v1/runs/1/meta" + q).c_str());
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  EXPECT_EQ(refused->body, "{\"error\":\"token: this link was revoked\"}");
  EXPECT_EQ(client.Get("/api/v1/runs/0/meta?token=adm1n")->status, 200);
}

TEST(ServeShareCommand, BadRequestsAreNamedWithExitTwo) {
  const std::string dir = th::testing::TempDir() + "/cli_share_bad";
  std::filesystem::create_directories(dir);
  const std::string key = dir + "/share.key";
  auto duration = Tracehound(
      "serve --share 0123456789abcdef0123456789abcdef --expires 3x "
      "--key-file " +
      key);
  EXPECT_EQ(duration.status, 2);
  EXPECT_NE(duration.out.find("--expires 3x: expected a number and a unit"), std::string::npos)
      << duration.out;
  auto missing = Tracehound("serve --share " + dir + "/nothing.json --key-file " + key);
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.out.find("--share " + dir + "/nothing.json: neither a trace"),
            std::string::npos)
      << missing.out;
  auto revoke = Tracehound("serve --revoke nonsense --key-file " + key);
  EXPECT_EQ(revoke.status, 2);
  EXPECT_NE(revoke.out.find("--revoke: neither a token id"), std::string::npos) << revoke.out;
  auto none = Tracehound("serve");
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.out.find("serve: give trace INPUTs or --db URL"), std::string::npos) << none.out;
  // Without --key-file: serve-share.key in --cache-dir.
  auto by_key =
      Tracehound("serve --share 0123456789abcdef0123456789abcdef --cache-dir " + dir + "/cache");
  EXPECT_EQ(by_key.status, 0) << by_key.out;
  EXPECT_NE(by_key.out.find("http://127.0.0.1:8765/?token="), std::string::npos) << by_key.out;
  EXPECT_NE(by_key.out.find("signed with " + dir + "/cache/serve-share.key"), std::string::npos)
      << by_key.out;
  EXPECT_TRUE(std::filesystem::exists(dir + "/cache/serve-share.key"));
}

TEST(ServeShareCommand, TlsServesHttpsAndNamesABadFile) {
  if (Shell("openssl version && curl --version").status != 0)
    GTEST_SKIP() << "openssl or curl is not installed: skipped";
  const std::string dir = th::testing::TempDir() + "/cli_tls";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string cert = dir + "/cert.pem", key = dir + "/key.pem";
  ASSERT_EQ(Shell("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost "
                  "-addext subjectAltName=IP:127.0.0.1 -keyout " +
                  key + " -out " + cert)
                .status,
            0);
  const std::string trace = serve::testing::WriteServeFixture("cli_tls.json");
  auto missing = Tracehound("serve --port 0 --no-cache --tls-cert " + dir + "/none.pem --tls-key " +
                            key + " " + trace);
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.out.find("TLS certificate " + dir +
                             "/none.pem: cannot open: No such file or directory"),
            std::string::npos)
      << missing.out;
  Background serve(
      "--port 0 --no-cache --no-findings --tls-cert " + cert + " --tls-key " + key + " " + trace,
      dir);
  std::smatch m;
  const std::string url = serve.Url();
  ASSERT_TRUE(std::regex_search(url, m, std::regex(R"(^serving (https://127\.0\.0\.1:\d+/)$)")))
      << url;
  auto r = Shell("curl -sS --cacert " + cert + " " + std::string(m[1]) + "api/v1/runs");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"name\":\"cli_tls.json\""), std::string::npos) << r.out;
  auto untrusted = Shell("curl -sS " + std::string(m[1]) + "api/v1/runs");
  EXPECT_NE(untrusted.status, 0) << untrusted.out;  // a self-signed certificate is not trusted
}

}  // namespace
}  // namespace th
