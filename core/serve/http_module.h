// The serve-http module: cpp-httplib (which maps libssl and libcrypto) kept
// out of the tracehound executable, loaded by `tracehound serve` alone (as
// the other on-demand modules, modules/module_loader.h). The module only
// moves bytes: every request goes to one handler of the executable
// (ServeRouter), including the errors httplib answers itself (an overlong
// URL), which arrive with `error_status` set.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace th::serve {

struct HttpRequest {
  std::string method, target, path;  // path percent-decoded, without the query
  std::multimap<std::string, std::string> params;
  std::string authorization, if_none_match, cookie, remote_addr;
  int error_status = 0;  // non-zero: httplib refused the request with this status
};

struct HttpResponse {
  int status = 200;
  std::string body, content_type;
  std::vector<std::pair<std::string, std::string>> headers;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

class HttpServer {
 public:
  virtual ~HttpServer() = default;
  // Binds host:port (0: any free port); the bound port, or -1 with *error.
  virtual int Bind(const std::string& host, int port, std::string* error) = 0;
  // Answers requests (httplib's thread pool) until Stop; blocking.
  virtual void Listen() = 0;
  virtual void Stop() = 0;
  virtual bool running() const = 0;
};

struct HttpModuleApi {
  std::unique_ptr<HttpServer> (*create)(HttpHandler handler);
};

// Loads the module on first use; nullptr with *error naming it and why.
const HttpModuleApi* LoadHttpModule(std::string* error);

}  // namespace th::serve

#define TH_SERVE_HTTP_MODULE_ENTRY "th_serve_http_module"
