// The serve-http module (http_module.h): cpp-httplib around one handler.
#include <httplib.h>

#include "core/serve/http_module.h"

namespace th::serve {
namespace {

HttpRequest FromHttplib(const httplib::Request& req) {
  HttpRequest r;
  r.method = req.method;
  r.target = req.target;
  r.path = req.path;
  r.params = req.params;
  r.authorization = req.get_header_value("Authorization");
  r.if_none_match = req.get_header_value("If-None-Match");
  r.cookie = req.get_header_value("Cookie");
  r.remote_addr = req.remote_addr;
  return r;
}

// Moves the body (viewports reach megabytes): what set_content does, without the copy.
void ToHttplib(HttpResponse&& a, httplib::Response& res) {
  res.status = a.status;
  for (const auto& [name, value] : a.headers) res.set_header(name.c_str(), value);
  if (!a.content_type.empty()) {
    res.body = std::move(a.body);
    res.set_header("Content-Type", a.content_type);
  }
}

class HttplibServer final : public HttpServer {
 public:
  explicit HttplibServer(HttpHandler handler) : handler_(std::move(handler)) {
    // Every request is routed by the handler, whatever its method or path.
    http_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      ToHttplib(handler_(FromHttplib(req)), res);
      return httplib::Server::HandlerResponse::Handled;
    });
    http_.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty()) return;
      HttpRequest r = FromHttplib(req);
      r.error_status = res.status;
      ToHttplib(handler_(r), res);
    });
  }
  ~HttplibServer() override { http_.stop(); }

  int Bind(const std::string& host, int port, std::string* error) override {
    const int bound = port == 0                        ? http_.bind_to_any_port(host)
                      : http_.bind_to_port(host, port) ? port
                                                       : -1;
    if (bound <= 0) {
      *error = "cannot listen on " + host + ":" + std::to_string(port);
      return -1;
    }
    return bound;
  }
  void Listen() override { http_.listen_after_bind(); }
  void Stop() override { http_.stop(); }
  bool running() const override { return http_.is_running(); }

 private:
  HttpHandler handler_;
  httplib::Server http_;
};

std::unique_ptr<HttpServer> Create(HttpHandler handler) {
  return std::make_unique<HttplibServer>(std::move(handler));
}

}  // namespace
}  // namespace th::serve

extern "C" __attribute__((visibility("default"))) const th::serve::HttpModuleApi*
th_serve_http_module() {
  static const th::serve::HttpModuleApi api{&th::serve::Create};
  return &api;
}
