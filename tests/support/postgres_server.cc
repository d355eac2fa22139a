#include "tests/support/postgres_server.h"

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace th::testing {

namespace fs = std::filesystem;

namespace {

int FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

std::string PostgresBin() {
  for (const char* v : {"17", "16", "15", "14", "13"}) {
    fs::path bin = fs::path("/usr/lib/postgresql") / v / "bin";
    if (fs::exists(bin / "pg_ctl") && fs::exists(bin / "initdb")) return bin.string();
  }
  return "";
}

int Shell(const std::string& run_as, const std::string& command) {
  std::string line = run_as.empty() ? command : "runuser -u " + run_as + " -- " + command;
  return std::system((line + " >/dev/null 2>&1").c_str());
}

}  // namespace

PostgresServer* PostgresServer::Shared(std::string* why) {
  static std::unique_ptr<PostgresServer> server;
  static std::string failure;
  static bool tried = false;
  if (tried) {
    if (!server && why) *why = failure;
    return server.get();
  }
  tried = true;
  auto s = std::unique_ptr<PostgresServer>(new PostgresServer());
  s->bin_ = PostgresBin();
  if (s->bin_.empty()) {
    failure = "PostgreSQL is not installed (Debian: apt-get install postgresql)";
    if (why) *why = failure;
    return nullptr;
  }
  if (geteuid() == 0) {
    if (!getpwnam("postgres")) {
      failure = "running as root and there is no 'postgres' user to run the server as";
      if (why) *why = failure;
      return nullptr;
    }
    s->run_as_ = "postgres";
  }
  // A directory of its own (not TempDir(): that one is removed at exit
  // before this server is stopped), owned by the user the server runs as.
  std::string templ = (fs::temp_directory_path() / "tracehound-pg-XXXXXX").string();
  if (!::mkdtemp(templ.data())) {
    failure = "cannot create a temporary directory for PostgreSQL";
    if (why) *why = failure;
    return nullptr;
  }
  s->dir_ = templ;
  if (!s->run_as_.empty()) {
    std::string chown = "chown postgres " + s->dir_;
    if (std::system(chown.c_str()) != 0) {
      failure = "cannot hand " + s->dir_ + " to the postgres user";
      if (why) *why = failure;
      return nullptr;
    }
  }
  std::string data = s->dir_ + "/data";
  if (Shell(s->run_as_, s->bin_ + "/initdb -A trust -U tracehound -E UTF8 --no-sync -D " + data) !=
      0) {
    failure = "initdb failed in " + data;
    if (why) *why = failure;
    return nullptr;
  }
  for (int attempt = 0; attempt < 3 && !server; ++attempt) {
    s->port_ = FreeLoopbackPort();
    std::string options = "-p " + std::to_string(s->port_) + " -k " + s->dir_ +
                          " -c listen_addresses=127.0.0.1 -c fsync=off";
    if (Shell(s->run_as_, s->bin_ + "/pg_ctl -w -t 60 -D " + data + " -l " + s->dir_ +
                              "/server.log -o '" + options + "' start") == 0)
      server = std::move(s);
  }
  if (!server) {
    failure = "pg_ctl could not start PostgreSQL (see its log under the test's temp dir)";
    if (why) *why = failure;
  }
  return server.get();
}

PostgresServer::~PostgresServer() {
  Shell(run_as_, bin_ + "/pg_ctl -D " + dir_ + "/data -m immediate -w stop");
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::string PostgresServer::Url(const std::string& database) const {
  return "postgresql://tracehound@127.0.0.1:" + std::to_string(port_) + "/" + database;
}

std::string PostgresServer::NewDatabase() {
  std::string name = "t" + std::to_string(getpid()) + "_" + std::to_string(++databases_);
  std::string command = "psql -q -d '" + Url() + "' -c 'CREATE DATABASE " + name + "'";
  if (std::system((command + " >/dev/null 2>&1").c_str()) != 0) return "";
  return Url(name);
}

}  // namespace th::testing
