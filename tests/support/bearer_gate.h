// Cloud Storage's OAuth check in front of the loopback S3 server (Swift), for
// gs:// inputs with a bearer token: no Cloud Storage emulator that checks
// tokens is packaged in Debian or on npm. Every request must carry
// "Authorization: Bearer TOKEN", else it is answered 401 with an XML error;
// an authorised request is re-signed with the server's HMAC keys (SigV4,
// region "auto") and forwarded, so that objects and listings come from the
// real server, which checks that signature.
#pragma once

#include <atomic>
#include <string>

#include "tests/support/loopback_http.h"

namespace th::testing {

class BearerGate {
 public:
  BearerGate(int upstream_port, std::string token, std::string access_key, std::string secret_key);

  std::string endpoint() const { return server_.endpoint(); }
  int authorised() const { return authorised_.load(); }
  int refused() const { return refused_.load(); }

 private:
  void Serve(int client);

  int upstream_port_;
  std::string token_, access_key_, secret_key_;
  std::atomic<int> authorised_{0}, refused_{0};
  LoopbackServer server_{[this](int client) { Serve(client); }};  // last: starts serving
};

}  // namespace th::testing
