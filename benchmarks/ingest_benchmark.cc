// Ingest benchmarks (Google Benchmark). Inputs are big traces made at run time
// by th_amplify from a real trace (benchmarks/run_ingest.sh does it); nothing
// here is committed data.
//
//   TRACEHOUND_BENCH_JSON=big.json TRACEHOUND_BENCH_GZ=big.json.gz
//   TRACEHOUND_BENCH_XSPACE=big.xplane.pb ./ingest_benchmark
//
// Reported: bytes_per_second = JSON text bytes per second (decompressed bytes
// for .gz), events/s, and for the whole import the events in the graph.
#include <benchmark/benchmark.h>
#include <libdeflate.h>
#include <malloc.h>
#include <tbb/global_control.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/import/common/byte_source.h"
#include "core/import/kineto/event_boundary_scanner.h"
#include "core/import/kineto/kineto_importer.h"
#include "core/import/xspace/xspace_importer.h"
#include "core/import/xspace/xspace_reader.h"

namespace {

const char* Input(const char* var) {
  const char* p = std::getenv(var);
  return p && *p ? p : nullptr;
}

void ImportFile(benchmark::State& state, const char* var) {
  const char* path = Input(var);
  if (!path) {
    state.SkipWithError((std::string(var) + " not set: run benchmarks/run_ingest.sh").c_str());
    return;
  }
  tbb::global_control threads(tbb::global_control::max_allowed_parallelism,
                              static_cast<size_t>(state.range(0)));
  int64_t text = 0, events = 0;
  for (auto _ : state) {
    auto raw = th::OpenFileSource(path);
    auto decoded = th::OpenDecoded(std::move(*raw));
    auto trace = th::kineto::ImportKinetoJson(**decoded, th::kineto::ImportOptions{});
    if (!trace.ok()) {
      state.SkipWithError(trace.status().message().c_str());
      return;
    }
    text += static_cast<int64_t>((*trace)->info.text_bytes);
    events += static_cast<int64_t>((*trace)->graph.events.size());
  }
  state.SetBytesProcessed(text);
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}

void BM_ImportJson(benchmark::State& state) { ImportFile(state, "TRACEHOUND_BENCH_JSON"); }
void BM_ImportGzip(benchmark::State& state) { ImportFile(state, "TRACEHOUND_BENCH_GZ"); }
BENCHMARK(BM_ImportJson)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_ImportGzip)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();

// Streaming inflate with isa-l (what import uses) into a 4 MiB window.
void BM_GunzipIsalStreaming(benchmark::State& state) {
  const char* path = Input("TRACEHOUND_BENCH_GZ");
  if (!path) {
    state.SkipWithError("TRACEHOUND_BENCH_GZ not set");
    return;
  }
  std::vector<char> window(4 << 20);
  int64_t out = 0;
  for (auto _ : state) {
    auto raw = th::OpenFileSource(path);
    auto decoded = th::OpenDecoded(std::move(*raw));
    while (true) {
      auto got = (*decoded)->Read(window.data(), window.size());
      if (!got.ok() || *got == 0) break;
      out += static_cast<int64_t>(*got);
    }
  }
  state.SetBytesProcessed(out);
}
BENCHMARK(BM_GunzipIsalStreaming)->Unit(benchmark::kMillisecond)->UseRealTime();

// libdeflate has no streaming API: the whole file and its whole output are in
// memory (here only to compare raw speed; import cannot use it unbounded).
void BM_GunzipLibdeflateWhole(benchmark::State& state) {
  const char* path = Input("TRACEHOUND_BENCH_GZ");
  if (!path) {
    state.SkipWithError("TRACEHOUND_BENCH_GZ not set");
    return;
  }
  std::ifstream in(path, std::ios::binary);
  std::string gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint32_t isize = 0;
  std::memcpy(&isize, gz.data() + gz.size() - 4, 4);
  std::string out(isize ? isize : (gz.size() * 12), '\0');
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  int64_t total = 0;
  for (auto _ : state) {
    size_t actual = 0;
    if (libdeflate_gzip_decompress(d, gz.data(), gz.size(), out.data(), out.size(), &actual) !=
        LIBDEFLATE_SUCCESS) {
      state.SkipWithError("libdeflate failed (output over 4 GiB or multi-member?)");
      break;
    }
    total += static_cast<int64_t>(actual);
  }
  libdeflate_free_decompressor(d);
  state.SetBytesProcessed(total);
}
BENCHMARK(BM_GunzipLibdeflateWhole)->Unit(benchmark::kMillisecond)->UseRealTime();

// XSpace on TRACEHOUND_BENCH_XSPACE (run_ingest.sh makes a ~1 GB one with
// th_amplify; default: the 0.86 MB TPU capture in ../shared/data), one thread:
//   BM_XSpaceRead     decode only, the file's bytes already in memory
//   BM_XSpaceReadFile map the file and decode (ReadXSpaceFile)
//   BM_XSpaceImport   map, decode and import into the event graph
// bytes_per_second = file bytes per wall-clock second.
std::string XSpacePath() {
  if (const char* p = Input("TRACEHOUND_BENCH_XSPACE")) return p;
  return std::string(TRACEHOUND_SHARED_DATA) +
         "/xprof/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb";
}

void XSpaceCounters(benchmark::State& state, int64_t bytes, uint64_t events) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * bytes);
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(events) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}

void BM_XSpaceRead(benchmark::State& state) {
  std::string bytes;
  {
    std::error_code ec;
    const auto size = std::filesystem::file_size(XSpacePath(), ec);
    std::ifstream in(XSpacePath(), std::ios::binary);
    if (!ec && in) {
      bytes.resize(size);
      in.read(bytes.data(), static_cast<std::streamsize>(size));
      if (!in) bytes.clear();
    }
  }
  if (bytes.empty()) {
    state.SkipWithError("no XSpace file (set TRACEHOUND_BENCH_XSPACE)");
    return;
  }
  uint64_t events = 0;
  for (auto _ : state) {
    auto data = th::xspace::ReadXSpace(bytes, "bench");
    if (!data.ok()) {
      state.SkipWithError(data.status().message().c_str());
      return;
    }
    events = data->EventsTotal();
  }
  XSpaceCounters(state, static_cast<int64_t>(bytes.size()), events);
}
BENCHMARK(BM_XSpaceRead)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_XSpaceReadFile(benchmark::State& state) {
  std::string path = XSpacePath();
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (ec) {
    state.SkipWithError("no XSpace file (set TRACEHOUND_BENCH_XSPACE)");
    return;
  }
  uint64_t events = 0;
  for (auto _ : state) {
    auto data = th::xspace::ReadXSpaceFile(path);
    if (!data.ok()) {
      state.SkipWithError(data.status().message().c_str());
      return;
    }
    events = data->EventsTotal();
  }
  XSpaceCounters(state, static_cast<int64_t>(size), events);
}
BENCHMARK(BM_XSpaceReadFile)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_XSpaceImport(benchmark::State& state) {
  std::string path = XSpacePath();
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (ec) {
    state.SkipWithError("no XSpace file (set TRACEHOUND_BENCH_XSPACE)");
    return;
  }
  tbb::global_control threads(tbb::global_control::max_allowed_parallelism,
                              static_cast<size_t>(state.range(0)));
  uint64_t rows = 0;
  double parse = 0, finish = 0, import = 0, free = 0;  // of the last iteration
  for (auto _ : state) {
    const auto started = std::chrono::steady_clock::now();
    auto trace = th::xspace::ImportXSpaceFile(path);
    if (!trace.ok()) {
      state.SkipWithError(trace.status().message().c_str());
      return;
    }
    const auto imported = std::chrono::steady_clock::now();
    rows = (*trace)->graph.events.size();
    parse = (*trace)->info.parse_seconds;
    finish = (*trace)->info.finish_seconds;
    // Freeing the graph is not import: timed apart (free_s) and reported
    // with it in incl_free_MB/s.
    state.PauseTiming();
    (*trace).reset();
    free = std::chrono::duration<double>(std::chrono::steady_clock::now() - imported).count();
    import = std::chrono::duration<double>(imported - started).count();
    state.ResumeTiming();
  }
  XSpaceCounters(state, static_cast<int64_t>(size), rows);  // events/s: rows in the graph
  // Where the wall time went: decode + convert (streamed together), then
  // derived lines + GraphBuilder, then (outside the timed part) freeing it.
  state.counters["decode_convert_s"] = parse;
  state.counters["finish_s"] = finish;
  state.counters["free_s"] = free;
  state.counters["incl_free_MB/s"] = static_cast<double>(size) / 1e6 / (import + free);
}
BENCHMARK(BM_XSpaceImport)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();

// The serial front of import: event boundaries over text already in memory.
void BM_EventBoundaryScan(benchmark::State& state) {
  const char* path = Input("TRACEHOUND_BENCH_JSON");
  if (!path) {
    state.SkipWithError("TRACEHOUND_BENCH_JSON not set");
    return;
  }
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t start = text.find('[', text.find("\"traceEvents\"")) + 1;
  for (auto _ : state) {
    th::kineto::EventBoundaryScanner scanner;
    size_t last = 0;
    auto r = scanner.Scan(text.data(), start, text.size(), &last);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * (text.size() - start)));
}
BENCHMARK(BM_EventBoundaryScan)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  mallopt(M_MMAP_THRESHOLD, 1 << 20);  // as the tracehound command does
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
