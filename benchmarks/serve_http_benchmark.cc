// `tracehound serve` over HTTP on a big trace, as the viewer meets it:
// time from starting the server to the first full overview viewport (all
// rows, 3,840 px; asked as soon as /runs says overview_ready), with a fresh
// index cache (cold) and with the cached index and overview (which answer
// while the trace still imports), and to the run's readiness,
// against `tracehound info` on the same file; then, on the running server,
// viewport latency and payload over HTTP (whole trace and random windows of
// 1/10 .. 1/10^6 of it) and whole-trace name search.
//
//   serve_http_benchmark TRACE [--tracehound PATH] [--queries 100] [--repeat 3] [--width 3840]
//                        [--search TEXT]... [--regex TEXT]...
//
// A driver, not Google Benchmark. Times are wall clock (client side: the
// request, the server's work and the transfer over loopback). Requests say
// "Accept-Encoding: gzip, deflate, br" as a browser's do; payloads are the
// bytes as sent (gzip where the server compresses, docs/serve.md).
#include <arpa/inet.h>
#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

// What a browser's fetch sends (the client here never decodes: body sizes
// are the bytes on the wire).
const httplib::Headers kBrowserHeaders = {{"Accept-Encoding", "gzip, deflate, br"}};

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

struct Options {
  std::string trace, tracehound = TRACEHOUND_BINARY;
  int queries = 100, repeat = 3;
  int64_t width = 3840;  // px of every viewport asked
  std::vector<std::string> search = {"nccl", "gemm"}, regex = {"^(ncclKernel|ampere).*"};
};

pid_t Spawn(const std::vector<std::string>& args, int out_fd) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (out_fd >= 0) posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  if (out_fd < 0) posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

double InfoSeconds(const Options& o) {
  const Clock::time_point start = Clock::now();
  pid_t pid = Spawn({o.tracehound, "info", o.trace}, -1);
  int status = 0;
  waitpid(pid, &status, 0);
  return Seconds(start);
}

struct Server {
  pid_t pid = -1;
  int port = 0;
  int64_t end_ns = 0;
  double first_paint = 0, ready = 0;
  size_t overview_bytes = 0;
};

std::string ViewportPath(const Options& o, int64_t t0, int64_t t1) {
  return "/api/v1/runs/0/viewport?t0=" + std::to_string(t0) + "&t1=" + std::to_string(t1) +
         "&width=" + std::to_string(o.width) + "&rows=all";
}

// Starts serve, waits for the run, fetches the overview: the first paint.
Server StartServe(const Options& o, const std::string& cache) {
  Server s;
  int out[2];
  if (pipe(out) != 0) return s;
  const Clock::time_point start = Clock::now();
  // --no-findings: the pipeline would share the cores with the timed requests.
  s.pid =
      Spawn({o.tracehound, "serve", "--port", "0", "--cache-dir", cache, "--no-findings", o.trace},
            out[1]);
  close(out[1]);
  std::string line;
  char c;
  while (read(out[0], &c, 1) == 1 && c != '\n') line.push_back(c);
  close(out[0]);
  std::smatch m;
  if (!std::regex_search(line, m, std::regex(R"(:(\d+)/)"))) return s;
  s.port = std::stoi(m[1]);
  httplib::Client client("127.0.0.1", s.port);
  client.set_decompress(false);  // bodies as sent
  for (;;) {
    auto r = client.Get("/api/v1/runs");
    // (A server before overview_ready says only ready.)
    if (r && (r->body.find("\"overview_ready\":true") != std::string::npos ||
              r->body.find("\"ready\":true") != std::string::npos)) {
      std::regex_search(r->body, m, std::regex(R"("end_ns":(\d+))"));
      s.end_ns = std::stoll(m[1]);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  auto v = client.Get(ViewportPath(o, 0, s.end_ns).c_str(), kBrowserHeaders);
  s.first_paint = Seconds(start);
  s.overview_bytes = v ? v->body.size() : 0;
  for (;;) {
    auto r = client.Get("/api/v1/runs");
    if (r && r->body.find("\"ready\":true") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  s.ready = Seconds(start);
  return s;
}

// Waits (at most 60 s) until the cold start has stored its index and
// overview (a server that stores no overview: 2 s after its index).
void WaitForCache(const std::string& dir) {
  int after_index = 0;
  for (int i = 0; i < 6000 && after_index < 200; ++i) {
    bool index = false, overview = false;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (name.find(".tmp") != std::string::npos) continue;
      index |= name.ends_with(".thidx");
      overview |= name.ends_with(".thov");
    }
    if (index && overview) return;
    if (index) ++after_index;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void StopServe(Server& s) {
  kill(s.pid, SIGTERM);
  waitpid(s.pid, nullptr, 0);
}

// GET `path` over a fresh loopback connection, read with a 1 MiB buffer
// (cpp-httplib's client reads 4 KiB at a time, which dominates a 10 MB
// answer); the bytes received, headers included, or 0 on failure.
size_t RawGet(int port, const std::string& path) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (fd >= 0) close(fd);
    return 0;
  }
  const std::string request =
      "GET " + path +
      " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip, deflate, br\r\n"
      "Connection: close\r\n\r\n";
  if (write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size())) {
    close(fd);
    return 0;
  }
  static std::vector<char> buffer(1 << 20);
  size_t total = 0;
  for (ssize_t n; (n = read(fd, buffer.data(), buffer.size())) > 0;)
    total += static_cast<size_t>(n);
  close(fd);
  return total;
}

// The whole-trace view again, read as a browser would (RawGet).
void WholeViewRaw(const Options& o, const Server& s) {
  std::vector<double> ms;
  size_t bytes = 0;
  for (int q = 0; q < o.queries; ++q) {
    const Clock::time_point start = Clock::now();
    bytes = RawGet(s.port, ViewportPath(o, 0, s.end_ns));
    ms.push_back(Seconds(start) * 1e3);
  }
  std::printf("whole view, 1 MiB reads: p50 %.2f ms, p99 %.2f ms (%.3f MB)\n", Percentile(ms, 0.5),
              Percentile(ms, 0.99), static_cast<double>(bytes) / 1e6);
}

void Viewports(const Options& o, const Server& s) {
  httplib::Client client("127.0.0.1", s.port);
  client.set_decompress(false);  // bodies as sent
  std::mt19937_64 rng(42);
  std::printf("%-10s %9s %9s %11s %11s\n", "window", "p50 ms", "p99 ms", "p50 MB", "max MB");
  for (double zoom : {1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6}) {
    std::vector<double> ms, mb;
    const int64_t span = std::max<int64_t>(1, static_cast<int64_t>(s.end_ns / zoom));
    for (int q = 0; q < o.queries; ++q) {
      const int64_t t0 =
          zoom == 1 ? 0 : std::uniform_int_distribution<int64_t>(0, s.end_ns - span)(rng);
      const Clock::time_point start = Clock::now();
      auto r = client.Get(ViewportPath(o, t0, t0 + span).c_str(), kBrowserHeaders);
      ms.push_back(Seconds(start) * 1e3);
      mb.push_back(r ? static_cast<double>(r->body.size()) / 1e6 : -1);
    }
    std::printf("1/%-8.0f %9.2f %9.2f %11.3f %11.3f\n", zoom, Percentile(ms, 0.5),
                Percentile(ms, 0.99), Percentile(mb, 0.5), Percentile(mb, 1.0));
  }
}

void Searches(const Options& o, const Server& s) {
  httplib::Client client("127.0.0.1", s.port);
  auto run = [&](const std::string& q, const char* mode) {
    std::vector<double> ms;
    std::string hits;
    for (int i = 0; i < o.repeat; ++i) {
      const Clock::time_point start = Clock::now();
      auto r = client.Get(("/api/v1/runs/0/search?limit=100&mode=" + std::string(mode) +
                           "&q=" + httplib::detail::encode_query_param(q))
                              .c_str());
      ms.push_back(Seconds(start) * 1e3);
      std::smatch m;
      if (r && std::regex_search(r->body, m, std::regex(R"("hits_total":(\d+))"))) hits = m[1];
    }
    std::printf("search %-9s %-28s %10s hits, median %.1f ms\n", mode, q.c_str(), hits.c_str(),
                Median(ms));
  };
  for (const std::string& q : o.search) run(q, "substring");
  for (const std::string& q : o.regex) run(q, "regex");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  bool own_search = false, own_regex = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--tracehound")
      o.tracehound = next();
    else if (a == "--queries")
      o.queries = std::atoi(next().c_str());
    else if (a == "--repeat")
      o.repeat = std::atoi(next().c_str());
    else if (a == "--width")
      o.width = std::atoll(next().c_str());
    else if (a == "--search") {
      if (!own_search) o.search.clear();
      own_search = true;
      o.search.push_back(next());
    } else if (a == "--regex") {
      if (!own_regex) o.regex.clear();
      own_regex = true;
      o.regex.push_back(next());
    } else
      o.trace = a;
  }
  if (o.trace.empty()) {
    std::fprintf(stderr, "usage: serve_http_benchmark TRACE [--queries N] [--repeat N]\n");
    return 2;
  }
  std::vector<double> info, cold, cached, cached_ready;
  Server last;
  for (int i = 0; i < o.repeat; ++i) {
    info.push_back(InfoSeconds(o));
    char dir[] = "/tmp/serve-bench-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    Server c = StartServe(o, dir);
    cold.push_back(c.first_paint);
    WaitForCache(dir);
    StopServe(c);
    last = StartServe(o, dir);
    cached.push_back(last.first_paint);
    cached_ready.push_back(last.ready);
    std::printf(
        "start %d: info %.2f s, serve cold %.2f s, cached %.2f s (ready %.2f s; overview %.2f "
        "MB)\n",
        i, info.back(), cold.back(), cached.back(), cached_ready.back(), last.overview_bytes / 1e6);
    if (i + 1 < o.repeat) StopServe(last);
    std::filesystem::remove_all(dir);
  }
  std::printf(
      "median: info %.2f s, first paint cold %.2f s (%.2fx info), cached %.2f s (ready %.2f s)\n",
      Median(info), Median(cold), Median(cold) / Median(info), Median(cached),
      Median(cached_ready));
  Viewports(o, last);
  WholeViewRaw(o, last);
  Searches(o, last);
  StopServe(last);
  return 0;
}
