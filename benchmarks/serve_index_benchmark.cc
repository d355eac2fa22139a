// The level-of-detail index of `tracehound serve` (issue 18) on a big trace:
// build time and bytes per event, the cache's bytes and load time, and
// viewport queries (all rows, WIDTH px) over the whole trace and random zoomed
// windows: p50 / p99 of the server time and of the binary payload.
//
//   serve_index_benchmark TRACE [--width 3840] [--queries 200] [--builds 3] [--threads N]
//                         [--zoom Z]... [--rows]
// --zoom: windows 1/Z of the trace (default 1, 10, ..., 1e6); --rows: each
// row's pyramid levels and occupied buckets.
//
// A driver, not Google Benchmark: the figures are percentiles over many
// viewports. Times are wall clock of this process (run it alone).
#include <tbb/global_control.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/import/trace_loader.h"
#include "core/serve/lod_index.h"
#include "core/serve/lod_index_io.h"
#include "core/serve/lod_levels.h"
#include "core/serve/lod_viewport.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// CPU seconds of the process (all threads): what a query costs the server,
// without the time other processes hold the cores.
double CpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

struct Options {
  std::string trace;
  int64_t width = 3840;
  int queries = 200;
  int builds = 3;
  int threads = 0;
  bool rows = false;  // print each row's pyramid
  std::vector<double> zooms = {1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6};
};

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::atoll(argv[++i]) : 0; };
    if (a == "--width")
      o.width = next();
    else if (a == "--queries")
      o.queries = static_cast<int>(next());
    else if (a == "--builds")
      o.builds = static_cast<int>(next());
    else if (a == "--threads")
      o.threads = static_cast<int>(next());
    else if (a == "--rows")
      o.rows = true;
    else if (a == "--zoom" && i + 1 < argc) {
      if (o.zooms.size() == 7) o.zooms.clear();  // the first --zoom replaces the default list
      o.zooms.push_back(std::atof(argv[++i]));
    } else
      o.trace = a;
  }
  return o;
}

// Viewports of all rows over windows 1/zoom of the trace, at random places.
void QueryWindows(const th::serve::LodIndex& index, const std::vector<uint32_t>& rows, int64_t t0,
                  int64_t t1, double zoom, int count, int64_t width, std::mt19937_64& rng) {
  std::vector<double> ms, cpu_ms, payload_mb;
  uint64_t in_view = 0, drawn = 0, tiles = 0;
  int level = 0;
  const double span = static_cast<double>(t1 - t0);
  const int64_t len = std::max<int64_t>(width, static_cast<int64_t>(span / zoom));
  for (int q = 0; q < count; ++q) {
    const int64_t room = std::max<int64_t>(1, (t1 - t0) - len);
    const int64_t start =
        zoom <= 1 ? t0 : t0 + static_cast<int64_t>(rng() % static_cast<uint64_t>(room));
    const auto begin = Clock::now();
    const double cpu = CpuSeconds();
    auto v = th::serve::Viewport(index, rows, start, start + len, width);
    ms.push_back(Seconds(begin) * 1e3);
    cpu_ms.push_back((CpuSeconds() - cpu) * 1e3);
    if (!v.ok()) {
      std::fprintf(stderr, "viewport: %s\n", v.status().message().c_str());
      std::exit(1);
    }
    payload_mb.push_back(static_cast<double>(th::serve::ViewportPayloadBytes(*v)) / 1e6);
    in_view += v->events_in_view;
    drawn += v->events_drawn;
    tiles += v->tiles.size();
    level = v->level;
  }
  std::printf(
      "zoom %8.0fx  window %14lld ns  L=%2d  wall ms p50 %6.2f p99 %6.2f  cpu ms p50 %6.2f "
      "p99 %6.2f  payload MB p50 %5.2f p99 %5.2f max %5.2f  per view: %9llu in view, %7llu "
      "drawn, %6llu tiles\n",
      zoom, static_cast<long long>(len), level, Percentile(ms, 0.5), Percentile(ms, 0.99),
      Percentile(cpu_ms, 0.5), Percentile(cpu_ms, 0.99), Percentile(payload_mb, 0.5),
      Percentile(payload_mb, 0.99), *std::max_element(payload_mb.begin(), payload_mb.end()),
      static_cast<unsigned long long>(in_view / count),
      static_cast<unsigned long long>(drawn / count),
      static_cast<unsigned long long>(tiles / count));
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  if (o.trace.empty()) {
    std::fprintf(stderr,
                 "usage: serve_index_benchmark TRACE [--width PX] [--queries N] [--builds N] "
                 "[--threads N]\n");
    return 2;
  }
  std::unique_ptr<tbb::global_control> threads;
  if (o.threads > 0)
    threads = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                    static_cast<size_t>(o.threads));
  auto start = Clock::now();
  auto set = th::LoadTraceSet({o.trace}, th::LoadOptions{});
  if (!set.ok() || set->traces.empty()) {
    std::fprintf(stderr, "%s\n", set.ok() ? "no trace" : set.status().message().c_str());
    return 1;
  }
  const th::EventGraph& graph = set->traces[0]->graph;
  std::printf("trace %s: %zu events, graph %.1f MB, import %.2f s\n", o.trace.c_str(),
              graph.events.size(), static_cast<double>(graph.bytes()) / 1e6, Seconds(start));

  std::vector<double> build_s;
  th::serve::LodIndex index;
  for (int b = 0; b < o.builds; ++b) {
    start = Clock::now();
    index = th::serve::BuildLodIndex(graph);
    build_s.push_back(Seconds(start));
  }
  size_t levels = 0, entries = 0;
  for (uint32_t r = 0; r < index.row_count(); ++r)
    for (const auto& l : index.row_index(r).levels) ++levels, entries += l.bucket.size();
  std::printf(
      "index: %zu rows, %llu events, build s median %.3f (min %.3f, %d builds), %.1f MB = "
      "%.2f bytes/event (graph %.2f bytes/event); pyramid %zu levels, %zu buckets\n",
      index.row_count(), static_cast<unsigned long long>(index.indexed_events()),
      Percentile(build_s, 0.5), *std::min_element(build_s.begin(), build_s.end()), o.builds,
      static_cast<double>(index.bytes()) / 1e6,
      static_cast<double>(index.bytes()) / static_cast<double>(index.indexed_events()),
      static_cast<double>(graph.bytes()) / static_cast<double>(graph.events.size()), levels,
      entries);

  for (uint32_t r = 0; o.rows && r < index.row_count(); ++r) {
    const auto& row = index.row_index(r);
    std::printf("  row %u: track %u depth %u, %zu events, pyramid", r, row.track, row.depth,
                row.size());
    for (const auto& l : row.levels) std::printf(" L%d:%zu", l.level, l.bucket.size());
    std::printf("; occupied");
    for (int level = 8; level <= 30; level += 2) {
      size_t occupied = row.size() > 0;
      for (size_t p = 1; p < row.size(); ++p)
        occupied += th::serve::FloorShift(graph.events.ts[row.order[p]], level) !=
                    th::serve::FloorShift(graph.events.ts[row.order[p - 1]], level);
      std::printf(" L%d:%zu", level, occupied);
    }
    std::printf("\n");
  }
  start = Clock::now();
  const std::string bytes = th::serve::SerializeLodIndex(index);
  const double save_s = Seconds(start);
  start = Clock::now();
  auto loaded = th::serve::DeserializeLodIndex(bytes, graph, "memory");
  std::printf("cache: %.1f MB, write %.3f s, read + check %.3f s (%s)\n",
              static_cast<double>(bytes.size()) / 1e6, save_s, Seconds(start),
              loaded.ok() ? "ok" : loaded.status().message().c_str());

  std::vector<uint32_t> rows(index.row_count());
  std::iota(rows.begin(), rows.end(), 0u);
  int64_t t0 = INT64_MAX, t1 = INT64_MIN;
  for (uint32_t r = 0; r < index.row_count(); ++r) {
    t0 = std::min(t0, index.row_index(r).first_start);
    t1 = std::max(t1, index.row_index(r).reach);
  }
  std::mt19937_64 rng(1);
  std::printf("viewports: all %zu rows, %lld px, %d queries each\n", rows.size(),
              static_cast<long long>(o.width), o.queries);
  for (double zoom : o.zooms)
    QueryWindows(index, rows, t0, t1, zoom, zoom == 1.0 ? std::max(5, o.queries / 10) : o.queries,
                 o.width, rng);
  return 0;
}
