#include "cli/capture_http.h"

#include <netdb.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

namespace th::cli {

namespace {

constexpr size_t kMaxReplyBytes = size_t{4} << 30;

// A connected socket with send and receive timeouts, or -1 (errno_text set).
int Connect(const std::string& host, int port, double timeout_s, std::string* errno_text) {
  addrinfo hints{}, *found = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  if (int r = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); r != 0) {
    *errno_text = gai_strerror(r);
    return -1;
  }
  int fd = -1;
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    timeval tv{static_cast<time_t>(timeout_s),
               static_cast<suseconds_t>(
                   (timeout_s - static_cast<double>(static_cast<time_t>(timeout_s))) * 1e6)};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      *errno_text = std::strerror(errno);
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  return fd;
}

bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

StatusOr<HttpReply> HttpRequest(const std::string& host, int port, const std::string& method,
                                const std::string& path, double timeout_s) {
  const std::string where = host + ":" + std::to_string(port);
  std::string why;
  int fd = Connect(host, port, timeout_s, &why);
  if (fd < 0) return IoError(where + ": cannot connect: " + why);
  const std::string request = method + " " + path + " HTTP/1.1\r\nHost: " + where +
                              "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
  std::string reply;
  bool sent = SendAll(fd, request), timed_out = false;
  char buf[1 << 16];
  while (sent && reply.size() < kMaxReplyBytes) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0) timed_out = errno == EAGAIN || errno == EWOULDBLOCK;
    if (n <= 0) break;
    reply.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  if (!sent) return IoError(where + ": the request could not be sent");
  if (timed_out) return IoError(where + ": no reply within " + std::to_string(timeout_s) + " s");
  const size_t head_end = reply.find("\r\n\r\n");
  if (!reply.starts_with("HTTP/1.") || head_end == std::string::npos || reply.size() < 12)
    return IoError(where + ": the reply is not HTTP/1.x (" + std::to_string(reply.size()) +
                   " bytes)");
  HttpReply out;
  for (size_t i = 9; i < 12; ++i) {
    if (reply[i] < '0' || reply[i] > '9')
      return IoError(where + ": the reply's status line has no status code");
    out.status = out.status * 10 + (reply[i] - '0');
  }
  out.body = reply.substr(head_end + 4);
  // Content-Length, when given, must match what came (a cut reply is an error).
  std::string head = reply.substr(0, head_end);
  for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (size_t at = head.find("\r\ncontent-length:"); at != std::string::npos) {
    const uint64_t length = std::strtoull(head.c_str() + at + 17, nullptr, 10);
    if (length != out.body.size())
      return IoError(where + ": the reply was cut: " + std::to_string(out.body.size()) + " of " +
                     std::to_string(length) + " body bytes");
  }
  return out;
}

bool SpeaksHttp2Only(const std::string& host, int port) {
  std::string why;
  int fd = Connect(host, port, 2, &why);
  if (fd < 0) return false;
  // The client preface, then an empty SETTINGS frame.
  static constexpr std::string_view kPreface("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0",
                                             24 + 9);
  bool http2 = false;
  if (SendAll(fd, kPreface)) {
    unsigned char head[9];
    http2 = recv(fd, head, sizeof head, MSG_WAITALL) == 9 && head[3] == 0x04;
  }
  close(fd);
  return http2;
}

}  // namespace th::cli
