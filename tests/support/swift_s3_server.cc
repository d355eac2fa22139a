#include "tests/support/swift_s3_server.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include "tests/support/command_runner.h"
#include "tests/support/test_files.h"

namespace th::testing {

namespace {

std::string Script() {
  return std::string(TRACEHOUND_SOURCE_DIR) + "/tests/support/swift_s3_server.py";
}

}  // namespace

SwiftS3Server* SwiftS3Server::Shared(std::string* why) {
  static SwiftS3Server* server = nullptr;
  static std::string failure;
  if (server || !failure.empty()) {
    if (!server) *why = failure;
    return server;
  }
  if (Shell("/usr/bin/python3 -c 'import swift.common.middleware.s3api' 2>&1").status != 0) {
    failure = "OpenStack Swift (python3-swift, swift-proxy) is not installed";
    *why = failure;
    return nullptr;
  }
  auto* s = new SwiftS3Server();
  s->dir_ = TempDir() + "/swift";
  std::filesystem::create_directories(s->dir_);
  CommandResult r = Shell("/usr/bin/python3 " + Script() + " start " + s->dir_);
  if (r.status != 0) {
    // The free ports are picked before the servers bind them: a test
    // process starting its own server at the same moment may take one.
    std::string retry_dir = s->dir_ + "-retry";
    std::filesystem::create_directories(retry_dir);
    s->dir_ = retry_dir;
    r = Shell("/usr/bin/python3 " + Script() + " start " + s->dir_);
  }
  size_t at = r.out.find("port=");
  if (r.status != 0 || at == std::string::npos) {
    failure = "Swift did not start: " + r.out;
    *why = failure;
    delete s;
    return nullptr;
  }
  std::istringstream in(r.out.substr(at + 5));
  in >> s->port_;
  std::string pids = r.out.substr(r.out.find("pids=") + 5);
  std::istringstream pid_list(pids);
  for (std::string p; std::getline(pid_list, p, ',');) s->pids_.push_back(std::stoi(p));
  server = s;
  // Stopped at exit: the servers run in their own sessions.
  std::atexit([] { delete server; });
  return server;
}

SwiftS3Server::~SwiftS3Server() {
  for (int pid : pids_) ::kill(pid, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (int pid : pids_) {
    while (::kill(pid, 0) == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ::kill(pid, SIGKILL);
  }
}

std::string SwiftS3Server::S3Env(const std::string& endpoint, const std::string& secret) const {
  return "AWS_ENDPOINT_URL=" + (endpoint.empty() ? this->endpoint() : endpoint) +
         " AWS_ACCESS_KEY_ID=test:tester AWS_SECRET_ACCESS_KEY=" + secret +
         " AWS_REGION=auto AWS_SHARED_CREDENTIALS_FILE=/nonexistent AWS_CONFIG_FILE=/nonexistent";
}

std::string SwiftS3Server::GcsEnv(const std::string& secret) const {
  return "STORAGE_EMULATOR_HOST=" + endpoint() +
         " GOOGLE_HMAC_ACCESS_ID=test:tester GOOGLE_HMAC_SECRET=" + secret +
         " GOOGLE_OAUTH_ACCESS_TOKEN=";
}

bool SwiftS3Server::Put(const std::string& bucket,
                        const std::vector<std::pair<std::string, std::string>>& files) {
  std::string cmd = "/usr/bin/python3 " + Script() + " put " + dir_ + " " + bucket;
  for (const auto& [key, path] : files) cmd += " '" + key + "=" + path + "'";
  return Shell(cmd).status == 0;
}

bool SwiftS3Server::MakePublic(const std::string& bucket) {
  return Shell("/usr/bin/python3 " + Script() + " public " + dir_ + " " + bucket).status == 0;
}

}  // namespace th::testing
