#include "tests/support/fault_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

namespace th::testing {

namespace {

bool WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

// Reads up to the blank line ending a request head (GET/HEAD: no body).
bool ReadHead(int fd, std::string* head) {
  char c[4096];
  while (head->find("\r\n\r\n") == std::string::npos) {
    ssize_t k = ::recv(fd, c, sizeof c, 0);
    if (k <= 0) return false;
    head->append(c, static_cast<size_t>(k));
  }
  return true;
}

std::string ReadToEnd(int fd) {
  std::string out;
  char c[65536];
  ssize_t k;
  while ((k = ::recv(fd, c, sizeof c, 0)) > 0) out.append(c, static_cast<size_t>(k));
  return out;
}

int ConnectLoopback(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

FaultProxy::FaultProxy(int upstream_port, std::vector<Fault> schedule, FaultMode mode)
    : upstream_port_(upstream_port), schedule_(std::move(schedule)), mode_(mode) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::listen(listen_fd_, 64);
  socklen_t len = sizeof a;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
  port_ = ntohs(a.sin_port);
  acceptor_ = std::thread([this] { Accept(); });
}

FaultProxy::~FaultProxy() {
  stop_ = true;
  acceptor_.join();
  ::close(listen_fd_);
  for (std::thread& t : handlers_) t.join();
}

void FaultProxy::Accept() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    int client = ::accept(listen_fd_, nullptr, nullptr);
    if (client >= 0) handlers_.emplace_back([this, client] { Serve(client); });
  }
}

void FaultProxy::Serve(int client) {
  std::string head;
  if (!ReadHead(client, &head)) {
    ::close(client);
    return;
  }
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
    int up = ConnectLoopback(upstream_port_);
    if (up >= 0) {
      // One request per connection: the upstream closes after its answer.
      size_t end = head.find("\r\n\r\n");
      std::string request = head.substr(0, end) + "\r\nConnection: close\r\n\r\n";
      WriteAll(up, request.data(), request.size());
      std::string answer = ReadToEnd(up);
      ::close(up);
      size_t body = answer.find("\r\n\r\n");
      size_t n = answer.size();
      if (fault == Fault::kTruncate && body != std::string::npos)
        n = body + 4 + (answer.size() - body - 4) / 2;
      WriteAll(client, answer.data(), n);
    }
  }
  ::shutdown(client, SHUT_RDWR);
  ::close(client);
}

}  // namespace th::testing
