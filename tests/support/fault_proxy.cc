#include "tests/support/fault_proxy.h"

namespace th::testing {

FaultProxy::FaultProxy(int upstream_port, std::vector<Fault> schedule, FaultMode mode)
    : upstream_port_(upstream_port), schedule_(std::move(schedule)), mode_(mode) {}

void FaultProxy::Serve(int client) {
  std::string head;
  if (!ReadHead(client, &head)) return;
  Fault fault = Fault::kNone;
  size_t range_at = head.find("\r\nRange:");
  if (range_at == std::string::npos) range_at = head.find("\r\nrange:");
  if (range_at != std::string::npos && !schedule_.empty()) {
    std::string range = head.substr(range_at, head.find("\r\n", range_at + 2) - range_at);
    bool first;
    {
      std::lock_guard<std::mutex> lock(mu_);
      first = ranges_seen_.insert(range).second;
    }
    if (first || mode_ == FaultMode::kEveryTry)
      fault = schedule_[static_cast<size_t>(turn_++) % schedule_.size()];
  }
  if (fault != Fault::kNone) ++faults_;
  if (fault == Fault::kServerError || fault == Fault::kThrottle) {
    std::string body = fault == Fault::kThrottle
                           ? "<Error><Code>SlowDown</Code><Message>Reduce your request "
                             "rate.</Message></Error>"
                           : "<Error><Code>InternalError</Code></Error>";
    std::string reply =
        std::string(fault == Fault::kThrottle ? "HTTP/1.1 503 Slow Down"
                                              : "HTTP/1.1 500 Internal Server Error") +
        "\r\nContent-Type: application/xml\r\nContent-Length: " + std::to_string(body.size()) +
        "\r\nConnection: close\r\n\r\n" + body;
    WriteAll(client, reply.data(), reply.size());
  } else if (fault != Fault::kDrop) {
    // One request per connection: the upstream closes after its answer.
    std::string answer = Exchange(upstream_port_, head);
    size_t body = answer.find("\r\n\r\n");
    size_t n = answer.size();
    if (fault == Fault::kTruncate && body != std::string::npos)
      n = body + 4 + (answer.size() - body - 4) / 2;
    WriteAll(client, answer.data(), n);
  }
}

}  // namespace th::testing
