#include "tests/support/loopback_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

namespace th::testing {

bool WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

bool ReadHead(int fd, std::string* head) {
  char c[4096];
  while (head->find("\r\n\r\n") == std::string::npos) {
    ssize_t k = ::recv(fd, c, sizeof c, 0);
    if (k <= 0) return false;
    head->append(c, static_cast<size_t>(k));
  }
  return true;
}

std::string HeaderValue(const std::string& head, const std::string& name) {
  for (size_t at = head.find("\r\n"); at != std::string::npos && at + 2 < head.size();) {
    const size_t line = at + 2;
    const size_t end = head.find("\r\n", line);
    if (end == std::string::npos || end == line) break;
    const size_t colon = head.find(':', line);
    if (colon < end && colon - line == name.size() &&
        ::strncasecmp(head.data() + line, name.data(), name.size()) == 0) {
      size_t v = colon + 1;
      while (v < end && head[v] == ' ') ++v;
      return head.substr(v, end - v);
    }
    at = end;
  }
  return "";
}

std::string Exchange(int port, const std::string& request) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return "";
  }
  const size_t end = request.find("\r\n\r\n");
  const std::string head = request.substr(0, end) + "\r\nConnection: close\r\n\r\n";
  WriteAll(fd, head.data(), head.size());
  std::string out;
  char c[65536];
  ssize_t k;
  while ((k = ::recv(fd, c, sizeof c, 0)) > 0) out.append(c, static_cast<size_t>(k));
  ::close(fd);
  return out;
}

LoopbackServer::LoopbackServer(std::function<void(int client)> serve) : serve_(std::move(serve)) {
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

LoopbackServer::~LoopbackServer() {
  stop_ = true;
  acceptor_.join();
  ::close(listen_fd_);
  for (std::thread& t : handlers_) t.join();
}

void LoopbackServer::Accept() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    int client = ::accept(listen_fd_, nullptr, nullptr);
    if (client < 0) continue;
    handlers_.emplace_back([this, client] {
      serve_(client);
      ::shutdown(client, SHUT_RDWR);
      ::close(client);
    });
  }
}

}  // namespace th::testing
