// A real PostgreSQL server for tests: a fresh cluster (initdb) in a temporary
// directory, started with pg_ctl on a free loopback port and stopped when the
// object dies. Run as the `postgres` user when the test runs as root (the
// server refuses root). Needs Debian's postgresql (PostgreSQL 15).
#pragma once

#include <memory>
#include <string>

namespace th::testing {

class PostgresServer {
 public:
  // The server of this test process, started on first use; nullptr (and
  // `why` set) when PostgreSQL is not installed or does not start.
  static PostgresServer* Shared(std::string* why);

  ~PostgresServer();
  // postgresql://tracehound@127.0.0.1:PORT/<database>
  std::string Url(const std::string& database = "postgres") const;
  // Creates a fresh, empty database and returns its URL.
  std::string NewDatabase();
  int port() const { return port_; }

 private:
  PostgresServer() = default;
  std::string bin_, dir_, run_as_;
  int port_ = 0;
  int databases_ = 0;
};

}  // namespace th::testing
