// Loopback HTTP plumbing of the tests' proxies: a server on 127.0.0.1 that
// hands each connection to a function on a thread of its own, and the
// exchange of one request head (GET/HEAD: no body) with an upstream that
// closes the connection after its answer.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace th::testing {

bool WriteAll(int fd, const char* p, size_t n);
// Reads up to the blank line ending a request head; false on a closed socket.
bool ReadHead(int fd, std::string* head);
// The value of header `name` (case-insensitive) in a request head, "" if absent.
std::string HeaderValue(const std::string& head, const std::string& name);
// Sends `request` (a whole head, "Connection: close" added) to 127.0.0.1:port
// and returns the whole answer; "" when the upstream cannot be reached.
std::string Exchange(int port, const std::string& request);

class LoopbackServer {
 public:
  // serve(client) answers one connection; the server closes it afterwards.
  explicit LoopbackServer(std::function<void(int client)> serve);
  ~LoopbackServer();  // stops accepting, joins every connection's thread

  int port() const { return port_; }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  void Accept();

  std::function<void(int)> serve_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> handlers_;
  std::thread acceptor_;
};

}  // namespace th::testing
