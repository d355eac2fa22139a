// A loopback HTTP proxy for fault injection: each connection carries one
// request, forwarded to an upstream server on loopback, unless the request's
// turn in `schedule` says otherwise: the connection dropped without an
// answer, a 500, a 503 SlowDown (S3's throttling), or the upstream answer cut
// to half its body. Only ranged GETs take turns (listings and lookups pass).
// Requests and headers pass unchanged, so signatures still verify upstream.
#pragma once

#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace th::testing {

enum class Fault { kNone, kDrop, kServerError, kThrottle, kTruncate };

enum class FaultMode {
  kFirstTry,  // only the first request for each byte range takes a turn: retries pass
  kEveryTry,  // every ranged request takes a turn
};

class FaultProxy {
 public:
  FaultProxy(int upstream_port, std::vector<Fault> schedule, FaultMode mode);
  ~FaultProxy();

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int faults() const { return faults_.load(); }

 private:
  void Accept();
  void Serve(int client);

  int upstream_port_;
  std::vector<Fault> schedule_;
  FaultMode mode_;
  std::mutex mu_;
  std::set<std::string> ranges_seen_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> turn_{0};
  std::atomic<int> faults_{0};
  std::thread acceptor_;
  std::vector<std::thread> handlers_;
};

}  // namespace th::testing
