// ServeServer: the HTTP server of `tracehound serve`: a ServeRouter behind
// the serve-http module's httplib server (http_module.h).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/graph/status.h"
#include "core/serve/http_module.h"
#include "core/serve/serve_router.h"
#include "core/serve/serve_run.h"

namespace th::serve {

struct ServeServerOptions {
  std::string bind = "127.0.0.1";
  int port = 8765;                    // 0: any free port
  ServeAccess access;                 // the token is required unless `bind` is a loopback address
  FindingsSource findings = nullptr;  // runs the pipeline for /findings; none: 404
  RunBrowser browser;                 // summaries, lazy opening, stored findings
  TlsFiles tls;                       // HTTPS when both are set
};

class ServeServer {
 public:
  // `runs` must outlive the server; it is not resized while serving.
  ServeServer(const std::vector<std::unique_ptr<ServeRun>>* runs, ServeServerOptions options);
  ~ServeServer();
  ServeServer(const ServeServer&) = delete;
  ServeServer& operator=(const ServeServer&) = delete;

  // Loads the module and binds the address; an error names what failed (a
  // missing token off loopback, a TLS file, the address, the module).
  Status Bind();
  int port() const { return port_; }
  // http://HOST:PORT/ or https://... (with ?token=T when a token is set).
  std::string Url() const;
  // Answers requests until Stop (blocking), after Bind.
  void Listen();
  // Listens on a thread of its own, returning once it accepts connections.
  void Start();
  // Starts the findings of run `run`, now ready, in the background.
  void RunReady(size_t run) { router_.RunReady(run); }
  // Stops listening (from any thread, also before Listen began: Listen then
  // returns at once); joins the thread of Start.
  void Stop();

 private:
  ServeServerOptions options_;
  ServeRouter router_;
  std::unique_ptr<HttpServer> http_;
  int port_ = 0;
  std::atomic<bool> listen_called_{false}, listen_returned_{false}, stop_requested_{false};
  std::thread thread_;
};

}  // namespace th::serve
