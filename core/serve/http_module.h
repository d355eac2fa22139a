// The serve-http module: cpp-httplib (which maps libssl and libcrypto) kept
// out of the tracehound executable, loaded by `tracehound serve` alone (as
// the other on-demand modules, modules/module_loader.h). The module only
// moves bytes: every request goes to one handler of the executable
// (ServeRouter), including the errors httplib answers itself (an overlong
// URL), which arrive with `error_status` set. The module also hands out the
// libcrypto functions the share tokens need (ServeCrypto), so that they too
// are mapped by `serve` alone.
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
  std::string authorization, if_none_match, cookie, remote_addr, accept_encoding;
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

// TLS material for an HTTPS server: PEM files.
struct TlsFiles {
  std::string cert, key;
};

// OpenSSL's HMAC-SHA256, RAND_bytes and CRYPTO_memcmp.
struct ServeCrypto {
  // HMAC-SHA256 of `data` under `key` into out[32]; false when OpenSSL fails.
  bool (*hmac_sha256)(const unsigned char* key, size_t key_len, const unsigned char* data,
                      size_t len, unsigned char* out);
  // `n` bytes from the CSPRNG; false when it is not seeded.
  bool (*random_bytes)(unsigned char* out, size_t n);
  // Equality of a[0, n) and b[0, n) in time independent of the contents.
  bool (*equal)(const unsigned char* a, const unsigned char* b, size_t n);
};

struct HttpModuleApi {
  std::unique_ptr<HttpServer> (*create)(HttpHandler handler);
  // An HTTPS server; nullptr with *error naming the file that could not be
  // used (unreadable, not PEM, a key that is not the certificate's).
  std::unique_ptr<HttpServer> (*create_tls)(HttpHandler handler, const TlsFiles& files,
                                            std::string* error);
  const ServeCrypto* crypto;
};

// Loads the module on first use; nullptr with *error naming it and why.
const HttpModuleApi* LoadHttpModule(std::string* error);

}  // namespace th::serve

#define TH_SERVE_HTTP_MODULE_ENTRY "th_serve_http_module"
