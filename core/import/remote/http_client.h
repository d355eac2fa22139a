// libcurl transfers for the remote module: one request per call on a pooled
// easy handle (connections are reused), with the retry policy of
// object_store.h. Linked into the remote module only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/graph/status.h"
#include "core/import/remote/object_store.h"

namespace th::remote {

struct HttpRequest {
  std::string method = "GET";  // GET or HEAD
  std::string url;
  std::vector<std::string> headers;  // "Name: value"
  char* out = nullptr;  // ranged reads: the body goes here (at most out_capacity bytes)
  size_t out_capacity = 0;
};

struct HttpReply {
  long status = 0;
  std::string body;                            // when no `out` was given
  size_t received = 0;                         // body bytes received
  bool overflow = false;                       // more than out_capacity arrived
  std::map<std::string, std::string> headers;  // names lowercased
};

// One attempt. A transport failure (refused, reset, timeout, a body cut short
// of its Content-Length) is an IoError with curl's reason.
Status Perform(const HttpRequest& request, const RemoteOptions& options, HttpReply* reply);

// Whether an answer is worth another try: 5xx, 429, S3's SlowDown/503.
bool RetryableStatus(long status);

// Runs `attempt` until it succeeds, fails for good (returns false in
// *retry), or options.attempts are spent, sleeping backoff with full jitter
// in between. `attempt` sets *retry when its failure is transient.
Status WithRetries(const RemoteOptions& options, const std::function<Status(bool* retry)>& attempt);

// The text of <tag>...</tag> elements of an XML body, entities decoded.
std::vector<std::string> XmlValues(const std::string& xml, const std::string& tag);
// The first such value, or "".
std::string XmlValue(const std::string& xml, const std::string& tag);

}  // namespace th::remote
