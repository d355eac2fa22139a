// The serve-http module (http_module.h): cpp-httplib around one handler,
// over HTTP or HTTPS, and the libcrypto functions of the share tokens.
#include <httplib.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

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
  r.accept_encoding = req.get_header_value("Accept-Encoding");
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
  HttplibServer(HttpHandler handler, std::unique_ptr<httplib::Server> http)
      : handler_(std::move(handler)), owned_(std::move(http)), http_(*owned_) {
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
  std::unique_ptr<httplib::Server> owned_;
  httplib::Server& http_;
};

std::unique_ptr<HttpServer> Create(HttpHandler handler) {
  return std::make_unique<HttplibServer>(std::move(handler), std::make_unique<httplib::Server>());
}

// OpenSSL's last error, or "" when it has none.
std::string OpenSslError() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return std::string(" (") + text + ")";
}

// "" when `path` opens for reading, else why not, naming it.
std::string Unreadable(const std::string& what, const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return what + " " + path + ": cannot open: " + std::strerror(errno);
  std::fclose(f);
  return "";
}

// Loads the certificate chain and key into `ctx`; false with *error naming the file.
bool SetUpTls(SSL_CTX& ctx, const TlsFiles& files, std::string* error) {
  SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(&ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_SESSION_RESUMPTION_ON_RENEGOTIATION);
  if (SSL_CTX_use_certificate_chain_file(&ctx, files.cert.c_str()) != 1) {
    *error = "TLS certificate " + files.cert + ": not a PEM certificate" + OpenSslError();
    return false;
  }
  if (SSL_CTX_use_PrivateKey_file(&ctx, files.key.c_str(), SSL_FILETYPE_PEM) != 1) {
    const bool mismatch = ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH;
    *error = "TLS key " + files.key +
             (mismatch ? ": not the key of the certificate " + files.cert
                       : std::string(": not a PEM private key")) +
             OpenSslError();
    return false;
  }
  if (SSL_CTX_check_private_key(&ctx) != 1) {
    *error =
        "TLS key " + files.key + ": not the key of the certificate " + files.cert + OpenSslError();
    return false;
  }
  return true;
}

std::unique_ptr<HttpServer> CreateTls(HttpHandler handler, const TlsFiles& files,
                                      std::string* error) {
  *error = Unreadable("TLS certificate", files.cert);
  if (error->empty()) *error = Unreadable("TLS key", files.key);
  if (!error->empty()) return nullptr;
  auto https = std::make_unique<httplib::SSLServer>(
      [&](SSL_CTX& ctx) { return SetUpTls(ctx, files, error); });
  if (!https->is_valid()) {
    if (error->empty()) *error = "TLS: cannot create an OpenSSL context" + OpenSslError();
    return nullptr;
  }
  return std::make_unique<HttplibServer>(std::move(handler), std::move(https));
}

bool HmacSha256(const unsigned char* key, size_t key_len, const unsigned char* data, size_t len,
                unsigned char* out) {
  unsigned int out_len = 0;
  return HMAC(EVP_sha256(), key, static_cast<int>(key_len), data, len, out, &out_len) != nullptr &&
         out_len == 32;
}

bool RandomBytes(unsigned char* out, size_t n) { return RAND_bytes(out, static_cast<int>(n)) == 1; }

bool EqualBytes(const unsigned char* a, const unsigned char* b, size_t n) {
  return CRYPTO_memcmp(a, b, n) == 0;
}

}  // namespace
}  // namespace th::serve

extern "C" __attribute__((visibility("default"))) const th::serve::HttpModuleApi*
th_serve_http_module() {
  static const th::serve::ServeCrypto crypto{&th::serve::HmacSha256, &th::serve::RandomBytes,
                                             &th::serve::EqualBytes};
  static const th::serve::HttpModuleApi api{&th::serve::Create, &th::serve::CreateTls, &crypto};
  return &api;
}
