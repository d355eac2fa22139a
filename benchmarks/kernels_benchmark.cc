// Compute primitives per backend and size (Google Benchmark), registered as
// BM_<Primitive>/<backend>/<rows>. Rates are rows (items) per second.
//   kernels_benchmark --benchmark_filter=cpu          # this machine
//   kernels_benchmark --benchmark_filter=cuda         # on a GPU machine (gpu_check.sh)
// Sizes 10^5..10^7 by default; TRACEHOUND_BENCH_MAX_ROWS=100000000 adds 10^8.
#include <benchmark/benchmark.h>
#include <tracehound/kernels/dispatch.h>
#include <tracehound/kernels/primitives.h>

#include <cstdlib>
#include <numeric>
#include <random>

namespace {

using th::kernels::Engine;

std::vector<int64_t> RandomI64(size_t n, uint64_t seed, int64_t mod) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> v(n);
  for (auto& x : v) x = static_cast<int64_t>(rng() % static_cast<uint64_t>(mod));
  return v;
}

void Fail(benchmark::State& state, const th::kernels::KernelStatus& s) {
  if (!s.ok()) state.SkipWithError(s.message().c_str());
}

void RegisterFor(Engine* engine, size_t n) {
  std::string suffix =
      std::string("/") + th::kernels::BackendName(engine->backend()) + "/" + std::to_string(n);

  benchmark::RegisterBenchmark(
      ("BM_SortByKey" + suffix).c_str(),
      [engine, n](benchmark::State& state) {
        auto base = RandomI64(n, 1, INT64_MAX);
        std::vector<uint32_t> values(n);
        for (auto _ : state) {
          state.PauseTiming();
          auto keys = base;
          std::iota(values.begin(), values.end(), 0u);
          state.ResumeTiming();
          Fail(state, engine->SortByKey(keys, values));
        }
        state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
      })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();

  benchmark::RegisterBenchmark(
      ("BM_ReduceByKey" + suffix).c_str(),
      [engine, n](benchmark::State& state) {
        // Pre-interned keys: 10,000 kernel names.
        std::vector<uint32_t> keys(n);
        std::mt19937 rng(2);
        for (auto& k : keys) k = rng() % 10000;
        auto values = RandomI64(n, 3, 1000000);
        std::vector<int64_t> out(10000);
        for (auto _ : state)
          Fail(state, engine->ReduceByKey(keys, values, th::kernels::ReduceOp::kSum, out));
        state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
      })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();

  benchmark::RegisterBenchmark(
      ("BM_IntervalUnion" + suffix).c_str(),
      [engine, n](benchmark::State& state) {
        // Sorted by (group, begin): 64 streams of back-to-back kernels with gaps.
        std::vector<uint32_t> group(n);
        std::vector<int64_t> begin(n), end(n);
        for (size_t i = 0; i < n; ++i) {
          group[i] = static_cast<uint32_t>(i * 64 / n);
          begin[i] = static_cast<int64_t>(i) * 1000;
          end[i] = begin[i] + 700 + static_cast<int64_t>(i % 5) * 100;
        }
        std::vector<int64_t> out(64);
        for (auto _ : state) Fail(state, engine->IntervalUnion({group, begin, end}, out));
        state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
      })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();

  benchmark::RegisterBenchmark(
      ("BM_IntervalOverlap" + suffix).c_str(),
      [engine, n](benchmark::State& state) {
        std::vector<uint32_t> group(n / 2);
        std::vector<int64_t> b1(n / 2), e1(n / 2), b2(n / 2), e2(n / 2);
        for (size_t i = 0; i < n / 2; ++i) {
          group[i] = static_cast<uint32_t>(i * 8 / (n / 2));
          b1[i] = static_cast<int64_t>(i) * 1000;
          e1[i] = b1[i] + 600;
          b2[i] = b1[i] + 300;
          e2[i] = b2[i] + 600;
        }
        std::vector<int64_t> out(8);
        for (auto _ : state)
          Fail(state, engine->IntervalOverlap({group, b1, e1}, {group, b2, e2}, out));
        state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
      })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();

  benchmark::RegisterBenchmark(
      ("BM_SegmentedPercentiles" + suffix).c_str(),
      [engine, n](benchmark::State& state) {
        auto values = RandomI64(n, 4, 1000000);
        const size_t segments = 1000;
        std::vector<uint64_t> offsets(segments + 1);
        for (size_t s = 0; s <= segments; ++s) offsets[s] = s * n / segments;
        std::vector<double> p = {50, 99};
        std::vector<int64_t> out(segments * 2);
        for (auto _ : state) Fail(state, engine->SegmentedPercentiles(values, offsets, p, out));
        state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
      })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();

  benchmark::RegisterBenchmark(
      ("BM_Histogram" + suffix).c_str(),
      [engine, n](benchmark::State& state) {
        auto values = RandomI64(n, 5, 1000000);
        std::vector<uint64_t> bins(64);
        for (auto _ : state) Fail(state, engine->Histogram(values, 0, 1000000, bins));
        state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
      })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();

  benchmark::RegisterBenchmark(
      ("BM_TopK" + suffix).c_str(),
      [engine, n](benchmark::State& state) {
        auto values = RandomI64(n, 6, INT64_MAX);
        std::vector<uint32_t> top;
        for (auto _ : state) Fail(state, engine->TopK(values, 10, &top));
        state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
      })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();

  benchmark::RegisterBenchmark(
      ("BM_Join" + suffix).c_str(),
      [engine, n](benchmark::State& state) {
        // Correlation ids: launches (build) and kernels (probe), mostly matching.
        std::vector<int64_t> build(n / 2), probe(n / 2);
        std::iota(build.begin(), build.end(), int64_t{1000});
        for (size_t i = 0; i < probe.size(); ++i)
          probe[i] = static_cast<int64_t>(1000 + (i * 7919) % (n / 2 + 100));
        std::vector<uint32_t> out(probe.size());
        for (auto _ : state) Fail(state, engine->Join(build, probe, out));
        state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
      })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

}  // namespace

int main(int argc, char** argv) {
  size_t max_rows = 10'000'000;
  if (const char* env = std::getenv("TRACEHOUND_BENCH_MAX_ROWS"))
    max_rows = std::strtoull(env, nullptr, 10);
  std::vector<Engine*> engines;
  for (auto choice : {th::kernels::BackendChoice::kCpu, th::kernels::BackendChoice::kCuda,
                      th::kernels::BackendChoice::kHip}) {
    Engine* e = nullptr;
    if (th::kernels::SelectEngine(choice, 0, &e).ok()) engines.push_back(e);
  }
  for (Engine* e : engines)
    for (size_t n = 100'000; n <= max_rows; n *= 10) RegisterFor(e, n);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
