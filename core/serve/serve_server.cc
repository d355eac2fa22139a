#include "core/serve/serve_server.h"

#include <chrono>

#include "core/serve/serve_access.h"

namespace th::serve {

ServeServer::ServeServer(const std::vector<std::unique_ptr<ServeRun>>* runs,
                         ServeServerOptions options)
    : options_(std::move(options)),
      router_(runs, options_.access, options_.findings, options_.browser) {}

ServeServer::~ServeServer() { Stop(); }

Status ServeServer::Bind() {
  if (options_.access.token.empty() && !IsLoopbackAddress(options_.bind))
    return InvalidInput("--bind " + options_.bind + ": a non-loopback address needs a token");
  std::string error;
  const HttpModuleApi* api = LoadHttpModule(&error);
  if (!api) return Unsupported(error);
  HttpHandler handler = [this](const HttpRequest& req) { return router_.Handle(req); };
  if (options_.tls.cert.empty() != options_.tls.key.empty())
    return InvalidInput("TLS needs both a certificate and a key (--tls-cert and --tls-key)");
  if (options_.tls.cert.empty()) {
    http_ = api->create(std::move(handler));
  } else {
    http_ = api->create_tls(std::move(handler), options_.tls, &error);
    if (!http_) return InvalidInput(error);
  }
  const int port = http_->Bind(options_.bind, options_.port, &error);
  if (port <= 0) return IoError(error);
  port_ = port;
  return Ok();
}

std::string ServeServer::Url() const {
  const bool v6 = options_.bind.find(':') != std::string::npos;
  std::string url = (options_.tls.cert.empty() ? "http://" : "https://") +
                    (v6 ? "[" + options_.bind + "]" : options_.bind) + ":" + std::to_string(port_) +
                    "/";
  if (!options_.access.token.empty()) url += "?token=" + options_.access.token;
  return url;
}

void ServeServer::Listen() {
  listen_called_ = true;
  if (http_ && !stop_requested_) http_->Listen();
  listen_returned_ = true;
}

void ServeServer::Start() {
  listen_called_ = true;
  thread_ = std::thread([this] { Listen(); });
  while (http_ && !http_->running() && !listen_returned_)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void ServeServer::Stop() {
  stop_requested_ = true;  // a Listen that has not begun returns at once
  if (http_) {
    while (listen_called_ && !http_->running() && !listen_returned_)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    http_->Stop();
  }
  if (thread_.joinable()) thread_.join();
}

}  // namespace th::serve
