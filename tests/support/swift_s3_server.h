// A real S3 server for tests: OpenStack Swift with its s3api middleware
// (Debian's swift-proxy, swift-object, swift-container, swift-account),
// started on loopback by swift_s3_server.py in a temporary directory and
// stopped when the object dies. s3api verifies every request's SigV4
// signature against tempauth's user (access key "test:tester", secret
// "testing").
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace th::testing {

class SwiftS3Server {
 public:
  // The server of this test process, started on first use; nullptr (and
  // `why` set) when Swift is not installed or does not start.
  static SwiftS3Server* Shared(std::string* why);
  ~SwiftS3Server();

  int port() const { return port_; }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // "AWS_ENDPOINT_URL=... AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=...
  // AWS_REGION=auto" for a command line; `endpoint` overrides the server's
  // own (a proxy).
  std::string S3Env(const std::string& endpoint = "", const std::string& secret = "testing") const;
  // The same server as Cloud Storage's XML API with HMAC keys (gs:// inputs):
  // "STORAGE_EMULATOR_HOST=... GOOGLE_HMAC_ACCESS_ID=... GOOGLE_HMAC_SECRET=...".
  std::string GcsEnv(const std::string& secret = "testing") const;
  // Stores files: (key, local path) pairs into `bucket` (created if missing).
  bool Put(const std::string& bucket,
           const std::vector<std::pair<std::string, std::string>>& files);
  // Lets anyone GET the bucket's objects at endpoint()/v1/AUTH_test/BUCKET/KEY.
  bool MakePublic(const std::string& bucket);

 private:
  SwiftS3Server() = default;
  std::string dir_;
  int port_ = 0;
  std::vector<int> pids_;
};

}  // namespace th::testing
