#include "cli/capture_command.h"

#include <simdjson.h>
#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/capture_http.h"
#include "core/graph/status.h"
#include "core/graph/text_escape.h"
#include "core/import/run_manifest.h"

namespace th::cli {

namespace {

namespace fs = std::filesystem;

constexpr int kExitBadInput = 2;
constexpr const char* kPrefix = "/tracehound/capture";

struct Endpoint {
  std::string text, host;
  int port = 0;
};

struct Got {
  Status status;
  int64_t rank = 0;
  std::string manifest, trace;
};

StatusOr<Endpoint> ParseEndpoint(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    return InvalidInput(text + ": not HOST:PORT");
  Endpoint e{text, text.substr(0, colon)};
  const char* first = text.data() + colon + 1;
  const char* last = text.data() + text.size();
  auto [end, err] = std::from_chars(first, last, e.port);
  if (err != std::errc() || end != last || e.port < 1 || e.port > 65535)
    return InvalidInput(text + ": the port is not a number from 1 to 65535");
  return e;
}

Status NotCaptureServer(const Endpoint& e, const std::string& why) {
  if (SpeaksHttp2Only(e.host, e.port))
    return Unsupported(e.text +
                       ": an HTTP/2-only (gRPC) server, likely JAX's profiler server "
                       "(jax.profiler.start_server): tracehound capture drives "
                       "tracehound.capture.serve() workers; record a JAX job with "
                       "jax.profiler.trace and read its .xplane.pb");
  return Unsupported(e.text + ": not a tracehound.capture server (" + why +
                     "); start one in the job with tracehound.capture.serve(port=...)");
}

// GET the worker's facts: it must be a tracehound.capture server.
Status Probe(const Endpoint& e) {
  auto res = HttpRequest(e.host, e.port, "GET", kPrefix, 10);
  if (!res.ok()) {
    if (res.status().message().find("cannot connect") != std::string::npos)
      return IoError(res.status().message() + " (is the job running tracehound.capture.serve()?)");
    return NotCaptureServer(e, res.status().message());
  }
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  int64_t version = 0;
  if (res->status != 200 || parser.parse(res->body).get(doc) ||
      doc["tracehound_capture"].get_int64().get(version))
    return NotCaptureServer(
        e, "GET " + std::string(kPrefix) + " answered HTTP " + std::to_string(res->status));
  return Ok();
}

std::string ErrorOf(const HttpReply& res) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string_view message;
  if (!parser.parse(res.body).get(doc) && !doc["error"].get_string().get(message))
    return std::string(message);
  return "HTTP " + std::to_string(res.status);
}

// POST the capture, then GET its trace.
Got Collect(const Endpoint& e, const std::string& post_path, double timeout_s) {
  Got got;
  auto res = HttpRequest(e.host, e.port, "POST", post_path, timeout_s + 30);
  if (!res.ok()) {
    got.status = res.status();
    return got;
  }
  if (res->status != 200) {
    got.status = InvalidInput(e.text + ": " + ErrorOf(*res));
    return got;
  }
  got.manifest = std::move(res->body);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string_view id;
  if (parser.parse(got.manifest).get(doc) || doc["id"].get_string().get(id) ||
      doc["rank"].get_int64().get(got.rank)) {
    got.status = InvalidInput(e.text + ": the capture's manifest has no id or rank");
    return got;
  }
  auto trace =
      HttpRequest(e.host, e.port, "GET", std::string(kPrefix) + "/trace?id=" + std::string(id), 60);
  if (!trace.ok() || trace->status != 200) {
    got.status = IoError(e.text + ": the trace of capture " + std::string(id) + " did not come: " +
                         (trace.ok() ? ErrorOf(*trace) : trace.status().message()));
    return got;
  }
  got.trace = std::move(trace->body);
  return got;
}

Status WriteAtomically(const fs::path& path, const std::string& data) {
  const fs::path tmp = path.string() + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) return IoError(tmp.string() + ": cannot write");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) return IoError(path.string() + ": cannot write: " + ec.message());
  return Ok();
}

// Every worker's capture, or the first failure (nothing written then).
Status WriteRun(const std::vector<Endpoint>& endpoints, const std::vector<Got>& got,
                const fs::path& out) {
  std::map<int64_t, size_t> by_rank;
  for (size_t i = 0; i < got.size(); ++i) {
    auto [it, fresh] = by_rank.emplace(got[i].rank, i);
    if (!fresh)
      return InvalidInput(endpoints[i].text + " and " + endpoints[it->second].text +
                          " both are rank " + std::to_string(got[i].rank));
  }
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) return IoError(out.string() + ": cannot create: " + ec.message());
  for (const auto& [rank, i] : by_rank) {
    const std::string stem = "rank" + std::to_string(rank);
    const fs::path trace = out / (stem + ".trace.json");
    if (fs::exists(trace, ec))
      return InvalidInput(trace.string() + " exists already (give another --out)");
  }
  for (const auto& [rank, i] : by_rank) {
    const std::string stem = "rank" + std::to_string(rank);
    TH_RETURN_IF_ERROR(WriteAtomically(out / (stem + ".trace.json"), got[i].trace));
    TH_RETURN_IF_ERROR(
        WriteAtomically(out / (stem + std::string(kManifestSuffix)), got[i].manifest + "\n"));
  }
  return Ok();
}

int Capture(const std::vector<std::string>& workers, std::optional<int64_t> steps, bool snapshot,
            const std::string& out, double timeout_s) {
  auto fail = [](const std::string& message) {
    std::cerr << "tracehound capture: error: " << PrintableBytes(message) << "\n";
    return kExitBadInput;
  };
  if (steps.has_value() == snapshot) return fail("give either --steps N or --snapshot");
  if (steps && *steps < 1) return fail("--steps must be at least 1");
  std::vector<Endpoint> endpoints;
  for (const std::string& w : workers) {
    auto e = ParseEndpoint(w);
    if (!e.ok()) return fail(e.status().message());
    endpoints.push_back(std::move(*e));
  }
  for (const Endpoint& e : endpoints)
    if (Status s = Probe(e); !s.ok()) return fail(s.message());
  const std::string path =
      snapshot ? std::string(kPrefix) + "/snapshot"
               : std::string(kPrefix) + "/steps?n=" + std::to_string(*steps) +
                     "&timeout_s=" + std::to_string(static_cast<int64_t>(timeout_s));
  // Every worker at once: each starts at its next step boundary.
  std::vector<Got> got(endpoints.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < endpoints.size(); ++i)
    threads.emplace_back([&, i] { got[i] = Collect(endpoints[i], path, timeout_s); });
  for (std::thread& t : threads) t.join();
  for (const Got& g : got)
    if (!g.status.ok()) return fail(g.status.message() + " (nothing written)");
  if (Status s = WriteRun(endpoints, got, out); !s.ok()) return fail(s.message());
  std::cout << "captured " << (snapshot ? "the ring buffers" : std::to_string(*steps) + " steps")
            << " of " << endpoints.size() << " worker" << (endpoints.size() == 1 ? "" : "s")
            << " into " << out << "\n";
  for (size_t i = 0; i < got.size(); ++i)
    std::cout << "  rank " << got[i].rank << "  " << endpoints[i].text << "  "
              << got[i].trace.size() << " bytes\n";
  return 0;
}

}  // namespace

void AddCaptureCommand(CLI::App& app, int* exit_code) {
  struct Args {
    std::vector<std::string> workers;
    int64_t steps = 0;
    bool snapshot = false;
    std::string out;
    double timeout_s = 300;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "capture",
      "Trigger a capture in running jobs (tracehound.capture.serve) and collect their traces "
      "into one run: the next N steps of every worker at once, or their ring buffers");
  cmd->add_option("workers", a->workers, "HOST:PORT of each worker")->required();
  auto* steps = cmd->add_option("--steps", a->steps, "capture the next N steps of each worker");
  cmd->add_flag("--snapshot", a->snapshot, "take each worker's ring buffer (its last steps)");
  cmd->add_option("--out", a->out, "the run folder to write")->required();
  cmd->add_option("--timeout", a->timeout_s, "seconds to wait for the steps (default 300)")
      ->check(CLI::Range(1.0, 86400.0));
  cmd->callback([a, steps, exit_code] {
    std::optional<int64_t> n;
    if (*steps) n = a->steps;
    *exit_code = Capture(a->workers, n, a->snapshot, a->out, a->timeout_s);
  });
}

}  // namespace th::cli
