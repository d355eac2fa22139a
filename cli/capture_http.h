// A small blocking HTTP/1.1 client for `tracehound capture`: one request per
// connection (Connection: close), a body read to its Content-Length or to
// the end of the stream. Plain sockets: cpp-httplib's shared library pulls
// OpenSSL into the command's start-up (tests/cli/startup_libraries_test.cc).
#pragma once

#include <string>

#include "core/graph/status.h"

namespace th::cli {

struct HttpReply {
  int status = 0;
  std::string body;
};

// IoError naming HOST:PORT when it cannot connect, times out (timeout_s for
// each read or write) or answers what is not HTTP/1.x.
StatusOr<HttpReply> HttpRequest(const std::string& host, int port, const std::string& method,
                                const std::string& path, double timeout_s);

// True when HOST:PORT answers an HTTP/2 connection preface with a SETTINGS
// frame: an HTTP/2-only server, as gRPC's is.
bool SpeaksHttp2Only(const std::string& host, int port);

}  // namespace th::cli
