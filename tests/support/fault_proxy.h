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
#include <vector>

#include "tests/support/loopback_http.h"

namespace th::testing {

enum class Fault { kNone, kDrop, kServerError, kThrottle, kTruncate };

enum class FaultMode {
  kFirstTry,  // only the first request for each byte range takes a turn: retries pass
  kEveryTry,  // every ranged request takes a turn
};

class FaultProxy {
 public:
  FaultProxy(int upstream_port, std::vector<Fault> schedule, FaultMode mode);

  std::string endpoint() const { return server_.endpoint(); }
  int faults() const { return faults_.load(); }

 private:
  void Serve(int client);

  int upstream_port_;
  std::vector<Fault> schedule_;
  FaultMode mode_;
  std::mutex mu_;
  std::set<std::string> ranges_seen_;
  std::atomic<int> turn_{0};
  std::atomic<int> faults_{0};
  LoopbackServer server_{[this](int client) { Serve(client); }};  // last: starts serving
};

}  // namespace th::testing
