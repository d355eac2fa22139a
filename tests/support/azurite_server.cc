#include "tests/support/azurite_server.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "core/import/remote/azure_shared_key.h"
#include "tests/support/command_runner.h"
#include "tests/support/test_files.h"

namespace th::testing {

namespace {

std::string Binary() { return std::string(TRACEHOUND_NPM_DIR) + "/node_modules/.bin/azurite-blob"; }

int FreePort() {
  CommandResult r = Shell(
      "/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\",0)); "
      "print(s.getsockname()[1])'");
  return r.status == 0 ? std::atoi(r.out.c_str()) : 0;
}

// curl with a Shared Key signature over `method` `path` (after the account).
int SignedCurl(const AzuriteServer& server, const std::string& method, const std::string& path,
               const remote::HeaderList& query, remote::HeaderList headers,
               const std::string& body_file) {
  headers.emplace_back("x-ms-date", remote::HttpDateNow());
  headers.emplace_back("x-ms-version", "2021-08-06");
  remote::AzureRequest r{method, AzuriteServer::kAccount,
                         "/" + std::string(AzuriteServer::kAccount) + path, query, headers};
  std::string cmd = "curl -s -o /dev/null -w '%{http_code}' -X " + method;
  for (const auto& [n, v] : headers) cmd += " -H '" + n + ": " + v + "'";
  cmd += " -H 'Authorization: " + remote::AzureSharedKeyAuthorization(r, AzuriteServer::kKey) + "'";
  if (!body_file.empty()) cmd += " --data-binary @'" + body_file + "'";
  std::string q = remote::CanonicalQuery(query);
  cmd += " '" + server.endpoint() + path + (q.empty() ? "" : "?" + q) + "'";
  CommandResult out = Shell(cmd);
  return out.status == 0 ? std::atoi(out.out.c_str()) : -1;
}

}  // namespace

AzuriteServer* AzuriteServer::Shared(std::string* why) {
  static AzuriteServer* server = nullptr;
  static std::string failure;
  if (server || !failure.empty()) {
    if (!server) *why = failure;
    return server;
  }
  if (::access(Binary().c_str(), X_OK) != 0) {
    failure = "Azurite is not installed (" + Binary() + "; scripts/dev.sh installs it)";
    *why = failure;
    return nullptr;
  }
  auto* s = new AzuriteServer();
  s->port_ = FreePort();
  std::string dir = TempDir() + "/azurite";
  std::filesystem::create_directories(dir);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();
    std::string port = std::to_string(s->port_);
    std::freopen((dir + "/log").c_str(), "w", stdout);
    std::freopen((dir + "/log").c_str(), "a", stderr);
    ::execl(Binary().c_str(), "azurite-blob", "--blobHost", "127.0.0.1", "--blobPort", port.c_str(),
            "--location", dir.c_str(), "--silent", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  s->pid_ = pid;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (Shell("curl -s -o /dev/null '" + s->endpoint() + "?comp=list'").status != 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      failure = "Azurite did not answer within 60 s (" + dir + "/log)";
      *why = failure;
      delete s;
      return nullptr;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  server = s;
  std::atexit([] { delete server; });
  return server;
}

// Azurite's graceful shutdown can take minutes (it drains idle keep-alive
// connections); it holds nothing the tests need, so after a second of grace
// its process group is killed.
AzuriteServer::~AzuriteServer() {
  if (pid_ <= 0) return;
  ::kill(-pid_, SIGTERM);
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (::waitpid(pid_, nullptr, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid_, SIGKILL);
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string AzuriteServer::endpoint() const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/" + kAccount;
}

std::string AzuriteServer::Env(const std::string& key) const {
  return "AZURE_STORAGE_ENDPOINT=" + endpoint() + " AZURE_STORAGE_KEY=" + key;
}

bool AzuriteServer::Put(const std::string& container, const std::string& blob,
                        const std::string& path) {
  int made = SignedCurl(*this, "PUT", "/" + container, {{"restype", "container"}}, {}, "");
  if (made != 201 && made != 409) {
    std::fprintf(stderr, "azurite: creating container %s: HTTP %d\n", container.c_str(), made);
    return false;
  }
  std::string size = std::to_string(std::filesystem::file_size(path));
  int put = SignedCurl(*this, "PUT", "/" + container + "/" + remote::UriEncode(blob, true), {},
                       {{"Content-Length", size},
                        {"Content-Type", "application/octet-stream"},
                        {"x-ms-blob-type", "BlockBlob"}},
                       path);
  if (put != 201) std::fprintf(stderr, "azurite: storing %s: HTTP %d\n", blob.c_str(), put);
  return put == 201;
}

}  // namespace th::testing
