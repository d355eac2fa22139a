// Differential tests of the GPU engines (CUDA, HIP): every primitive against
// the CPU reference engine (MakeCpuEngine) on random and edge inputs, integer
// results equal exactly, plus a few hand-computed cases. One suite, run once
// per backend; without a usable device (or a build without that backend) the
// tests skip and say why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "tracehound/kernels/gpu_engines.h"
#include "tracehound/kernels/primitives.h"

namespace th::kernels {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
// A realistic nanosecond timestamp base: interval totals far beyond 2^31.
constexpr int64_t kEpochNs = 1'700'000'000'000'000'000;

#define TH_ASSERT_OK(expr)                                         \
  do {                                                             \
    const ::th::kernels::KernelStatus th_st_ = (expr);             \
    ASSERT_TRUE(th_st_.ok()) << #expr << ": " << th_st_.message(); \
  } while (0)

// Owns the columns an IntervalColumns points at.
struct Intervals {
  std::vector<uint32_t> group;
  std::vector<int64_t> begin, end;

  void Add(uint32_t g, int64_t b, int64_t e) {
    group.push_back(g);
    begin.push_back(b);
    end.push_back(e);
  }
  IntervalColumns columns() const { return IntervalColumns{group, begin, end}; }
};

std::unique_ptr<Engine> MakeGpuEngine(Backend backend, std::string* why) {
  return backend == Backend::kCuda ? MakeCudaEngine(why) : MakeHipEngine(why);
}

class GpuEngineTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    std::string why;
    gpu_ = MakeGpuEngine(GetParam(), &why);
    if (gpu_ == nullptr) GTEST_SKIP() << BackendName(GetParam()) << " engine unavailable: " << why;
    cpu_ = MakeCpuEngine();
    ASSERT_NE(cpu_, nullptr);
  }

  int64_t Uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }

  std::vector<int64_t> RandomValues(size_t n, int64_t lo, int64_t hi) {
    std::vector<int64_t> v(n);
    for (auto& x : v) x = Uniform(lo, hi);
    return v;
  }

  // n intervals over `groups` groups, begins in [base, base + span), lengths in
  // [-max_len / 4, max_len]: some negative and zero-length (empty) ones.
  Intervals RandomIntervals(size_t n, uint32_t groups, int64_t base, int64_t span,
                            int64_t max_len) {
    Intervals iv;
    for (size_t i = 0; i < n; ++i) {
      const int64_t b = base + Uniform(0, span - 1);
      iv.Add(static_cast<uint32_t>(Uniform(0, groups - 1)), b, b + Uniform(-max_len / 4, max_len));
    }
    return iv;
  }

  void CheckSort(std::vector<int64_t> keys) {
    SCOPED_TRACE("SortByKey n=" + std::to_string(keys.size()));
    std::vector<uint32_t> values(keys.size());
    std::iota(values.begin(), values.end(), 0u);
    auto cpu_keys = keys, gpu_keys = keys;
    auto cpu_values = values, gpu_values = values;
    TH_ASSERT_OK(cpu_->SortByKey(cpu_keys, cpu_values));
    TH_ASSERT_OK(gpu_->SortByKey(gpu_keys, gpu_values));
    EXPECT_EQ(gpu_keys, cpu_keys);
    EXPECT_EQ(gpu_values, cpu_values);
  }

  void CheckReduce(const std::vector<uint32_t>& keys, const std::vector<int64_t>& values,
                   size_t num_keys) {
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMin, ReduceOp::kMax, ReduceOp::kCount}) {
      SCOPED_TRACE("ReduceByKey op=" + std::to_string(static_cast<int>(op)) +
                   " n=" + std::to_string(keys.size()) + " keys=" + std::to_string(num_keys));
      std::vector<int64_t> cpu_out(num_keys, -7), gpu_out(num_keys, -9);
      TH_ASSERT_OK(cpu_->ReduceByKey(keys, values, op, cpu_out));
      TH_ASSERT_OK(gpu_->ReduceByKey(keys, values, op, gpu_out));
      EXPECT_EQ(gpu_out, cpu_out);
    }
  }

  void CheckPercentiles(const std::vector<int64_t>& values, const std::vector<uint64_t>& offsets,
                        const std::vector<double>& pct) {
    SCOPED_TRACE("SegmentedPercentiles n=" + std::to_string(values.size()) +
                 " segments=" + std::to_string(offsets.empty() ? 0 : offsets.size() - 1));
    const size_t slots = (offsets.empty() ? 0 : offsets.size() - 1) * pct.size();
    std::vector<int64_t> cpu_out(slots, -7), gpu_out(slots, -9);
    TH_ASSERT_OK(cpu_->SegmentedPercentiles(values, offsets, pct, cpu_out));
    TH_ASSERT_OK(gpu_->SegmentedPercentiles(values, offsets, pct, gpu_out));
    EXPECT_EQ(gpu_out, cpu_out);
  }

  void CheckIntervals(const Intervals& iv, uint32_t groups) {
    SCOPED_TRACE("intervals n=" + std::to_string(iv.group.size()) +
                 " groups=" + std::to_string(groups));
    std::vector<int64_t> cpu_union(groups, -7), gpu_union(groups, -9);
    TH_ASSERT_OK(cpu_->IntervalUnion(iv.columns(), cpu_union));
    TH_ASSERT_OK(gpu_->IntervalUnion(iv.columns(), gpu_union));
    EXPECT_EQ(gpu_union, cpu_union);
    GapList cpu_gaps, gpu_gaps;
    gpu_gaps.group = {99};  // stale content must be replaced
    TH_ASSERT_OK(cpu_->Gaps(iv.columns(), groups, &cpu_gaps));
    TH_ASSERT_OK(gpu_->Gaps(iv.columns(), groups, &gpu_gaps));
    EXPECT_EQ(gpu_gaps.group, cpu_gaps.group);
    EXPECT_EQ(gpu_gaps.begin, cpu_gaps.begin);
    EXPECT_EQ(gpu_gaps.end, cpu_gaps.end);
  }

  void CheckOverlap(const Intervals& a, const Intervals& b, uint32_t groups) {
    SCOPED_TRACE("IntervalOverlap a=" + std::to_string(a.group.size()) +
                 " b=" + std::to_string(b.group.size()) + " groups=" + std::to_string(groups));
    std::vector<int64_t> cpu_out(groups, -7), gpu_out(groups, -9);
    TH_ASSERT_OK(cpu_->IntervalOverlap(a.columns(), b.columns(), cpu_out));
    TH_ASSERT_OK(gpu_->IntervalOverlap(a.columns(), b.columns(), gpu_out));
    EXPECT_EQ(gpu_out, cpu_out);
  }

  void CheckHistogram(const std::vector<int64_t>& values, int64_t lo, int64_t hi, size_t bins) {
    SCOPED_TRACE("Histogram n=" + std::to_string(values.size()) + " lo=" + std::to_string(lo) +
                 " hi=" + std::to_string(hi) + " bins=" + std::to_string(bins));
    std::vector<uint64_t> cpu_out(bins, 7), gpu_out(bins, 9);
    TH_ASSERT_OK(cpu_->Histogram(values, lo, hi, cpu_out));
    TH_ASSERT_OK(gpu_->Histogram(values, lo, hi, gpu_out));
    EXPECT_EQ(gpu_out, cpu_out);
    EXPECT_EQ(std::accumulate(gpu_out.begin(), gpu_out.end(), uint64_t{0}), values.size());
  }

  void CheckTopK(const std::vector<int64_t>& values, uint32_t k) {
    SCOPED_TRACE("TopK n=" + std::to_string(values.size()) + " k=" + std::to_string(k));
    std::vector<uint32_t> cpu_out, gpu_out = {12345};
    TH_ASSERT_OK(cpu_->TopK(values, k, &cpu_out));
    TH_ASSERT_OK(gpu_->TopK(values, k, &gpu_out));
    EXPECT_EQ(gpu_out, cpu_out);
  }

  void CheckJoin(const std::vector<int64_t>& build, const std::vector<int64_t>& probe) {
    SCOPED_TRACE("Join build=" + std::to_string(build.size()) +
                 " probe=" + std::to_string(probe.size()));
    std::vector<uint32_t> cpu_out(probe.size(), 7), gpu_out(probe.size(), 9);
    TH_ASSERT_OK(cpu_->Join(build, probe, cpu_out));
    TH_ASSERT_OK(gpu_->Join(build, probe, gpu_out));
    EXPECT_EQ(gpu_out, cpu_out);
  }

  std::unique_ptr<Engine> gpu_, cpu_;
  std::mt19937_64 rng_{0x7ace4017d};
};

// Runs everywhere: without a device, the reason must be given.
TEST_P(GpuEngineTest, EngineOrReason) {
  std::string why;
  std::unique_ptr<Engine> engine = MakeGpuEngine(GetParam(), &why);
  EXPECT_EQ(MakeGpuEngine(GetParam(), nullptr) == nullptr,
            engine == nullptr);  // a null why_not is fine
  if (engine == nullptr) {
    EXPECT_FALSE(why.empty());
    GTEST_SKIP() << BackendName(GetParam()) << " engine unavailable: " << why;
  }
  EXPECT_EQ(engine->backend(), GetParam());
  EXPECT_TRUE(GetParam() == Backend::kCuda ? CudaBuilt() : HipBuilt());
  const std::vector<std::string> devices =
      GetParam() == Backend::kCuda ? CudaDevices() : HipDevices();
  ASSERT_FALSE(devices.empty());
  for (const std::string& d : devices)
    std::cout << BackendName(GetParam()) << " device: " << d << "\n";
}

TEST_P(GpuEngineTest, SortByKey) {
  CheckSort({});
  CheckSort({42});
  CheckSort(std::vector<int64_t>(5000, -3));  // all equal: values keep their order
  CheckSort(RandomValues(100'000, -50, 50));  // many duplicates: stability
  CheckSort(RandomValues(1 << 20, kMin, kMax));
  std::vector<int64_t> edges = {kMax, kMin, 0, -1, 1, kMin, kMax, kMin + 1, kMax - 1};
  CheckSort(edges);
  std::vector<int64_t> sorted = RandomValues(70'000, kEpochNs, kEpochNs + 1'000'000);
  std::sort(sorted.begin(), sorted.end());
  CheckSort(sorted);
  std::reverse(sorted.begin(), sorted.end());
  CheckSort(sorted);

  std::vector<int64_t> keys = {3, 1, 3, 1};
  std::vector<uint32_t> values = {0, 1, 2, 3};
  TH_ASSERT_OK(gpu_->SortByKey(keys, values));
  EXPECT_EQ(keys, (std::vector<int64_t>{1, 1, 3, 3}));
  EXPECT_EQ(values, (std::vector<uint32_t>{1, 3, 0, 2}));
}

TEST_P(GpuEngineTest, ReduceByKey) {
  CheckReduce({}, {}, 5);  // identities everywhere
  CheckReduce({}, {}, 0);
  CheckReduce({2}, {-17}, 3);
  // All rows on one key, totals far beyond 2^31.
  CheckReduce(std::vector<uint32_t>(1 << 20, 0),
              RandomValues(1 << 20, 3'000'000'000, 4'000'000'000), 1);
  CheckReduce(std::vector<uint32_t>(100'003, 6),
              RandomValues(100'003, -(int64_t{1} << 40), int64_t{1} << 40), 9);
  for (uint32_t num_keys : {1u, 37u, 4096u, 4097u, 100'000u}) {  // shared- and global-memory paths
    std::vector<uint32_t> keys(300'001);
    for (auto& k : keys) k = static_cast<uint32_t>(Uniform(0, num_keys - 1));
    CheckReduce(keys, RandomValues(keys.size(), -(int64_t{1} << 40), int64_t{1} << 40), num_keys);
  }
  // Sorted keys (runs), some keys absent.
  std::vector<uint32_t> keys(200'000);
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<uint32_t>(2 * (i / 1000));
  CheckReduce(keys, RandomValues(keys.size(), kMin / 1'000'000, kMax / 1'000'000), 401);
  // kCount reads no values.
  {
    std::vector<uint32_t> keys = {1, 1, 0, 3};
    std::vector<int64_t> cpu_out(4), gpu_out(4);
    TH_ASSERT_OK(cpu_->ReduceByKey(keys, {}, ReduceOp::kCount, cpu_out));
    TH_ASSERT_OK(gpu_->ReduceByKey(keys, {}, ReduceOp::kCount, gpu_out));
    EXPECT_EQ(gpu_out, cpu_out);
  }
  // Extreme values for min and max.
  CheckReduce({0, 0, 1, 1}, {kMin, kMax, kMax, -kMax}, 2);  // sums -1 and 0: no overflow

  std::vector<int64_t> out(4);
  TH_ASSERT_OK(gpu_->ReduceByKey(std::vector<uint32_t>{0, 2, 0}, std::vector<int64_t>{5, -1, 7},
                                 ReduceOp::kSum, out));
  EXPECT_EQ(out, (std::vector<int64_t>{12, 0, -1, 0}));
  TH_ASSERT_OK(gpu_->ReduceByKey(std::vector<uint32_t>{0, 2, 0}, std::vector<int64_t>{5, -1, 7},
                                 ReduceOp::kMin, out));
  EXPECT_EQ(out, (std::vector<int64_t>{5, kMax, -1, kMax}));
  TH_ASSERT_OK(gpu_->ReduceByKey(std::vector<uint32_t>{0, 2, 0}, std::vector<int64_t>{5, -1, 7},
                                 ReduceOp::kMax, out));
  EXPECT_EQ(out, (std::vector<int64_t>{7, kMin, -1, kMin}));
  TH_ASSERT_OK(gpu_->ReduceByKey(std::vector<uint32_t>{0, 2, 0}, std::vector<int64_t>{5, -1, 7},
                                 ReduceOp::kCount, out));
  EXPECT_EQ(out, (std::vector<int64_t>{2, 0, 1, 0}));
}

TEST_P(GpuEngineTest, SegmentedPercentiles) {
  const std::vector<double> pct = {0.1, 1, 25, 33.333, 50, 90, 95, 99, 99.9, 100};
  CheckPercentiles({}, {}, pct);
  CheckPercentiles({}, {0}, pct);
  CheckPercentiles({}, {0, 0, 0}, pct);  // empty segments give 0
  CheckPercentiles({42}, {0, 1}, pct);
  CheckPercentiles(std::vector<int64_t>(10'000, 5), {0, 3'000, 3'000, 10'000}, pct);  // all equal
  // Random segment sizes: empty, one, small, large; duplicates.
  std::vector<uint64_t> offsets = {0};
  for (int s = 0; s < 400; ++s) {
    const int kind = static_cast<int>(Uniform(0, 3));
    const int64_t len = kind == 0   ? 0
                        : kind == 1 ? 1
                        : kind == 2 ? Uniform(2, 100)
                                    : Uniform(100, 20'000);
    offsets.push_back(offsets.back() + static_cast<uint64_t>(len));
  }
  CheckPercentiles(RandomValues(offsets.back(), -1000, 1000), offsets, pct);
  CheckPercentiles(RandomValues(offsets.back(), kMin, kMax), offsets, pct);
  // Segments that start past 0 and end before the last value.
  CheckPercentiles(RandomValues(1'000, -5, 5), {100, 250, 250, 600, 900}, {50, 100});
  CheckPercentiles(RandomValues(1 << 20, kEpochNs, kEpochNs + 1'000'000'000), {0, 1 << 20}, pct);
  // Offsets that decrease: such a segment is empty, and later ones may overlap earlier ones.
  CheckPercentiles(RandomValues(100, -50, 50), {0, 50, 20, 80, 80, 10, 100}, pct);

  std::vector<int64_t> out(4 * 2);
  TH_ASSERT_OK(gpu_->SegmentedPercentiles(std::vector<int64_t>{5, 1, 4, 2, 3, 9},
                                          std::vector<uint64_t>{0, 5, 5},
                                          std::vector<double>{20, 50, 100, 1}, out));
  EXPECT_EQ(out, (std::vector<int64_t>{1, 3, 5, 1, 0, 0, 0, 0}));
}

TEST_P(GpuEngineTest, IntervalUnionAndGaps) {
  CheckIntervals({}, 3);
  CheckIntervals({}, 0);
  Intervals one;
  one.Add(1, 10, 20);
  CheckIntervals(one, 2);
  Intervals empties;  // zero-length and negative intervals only
  empties.Add(0, 5, 5);
  empties.Add(0, 9, 3);
  empties.Add(1, kMin, kMin);
  CheckIntervals(empties, 2);
  // Unsorted, overlapping, nested, touching, across groups; timestamps ~1.7e18.
  CheckIntervals(RandomIntervals(200'000, 37, kEpochNs, 1'000'000'000, 100'000), 37);
  CheckIntervals(RandomIntervals(1 << 20, 1, kEpochNs, int64_t{1} << 40, 1'000'000), 1);
  CheckIntervals(RandomIntervals(1'000, 5, -1'000'000, 2'000'000, 5'000), 5);
  CheckIntervals(RandomIntervals(100, 1'000, 0, 1'000, 50), 1'000);  // most groups have none
  CheckIntervals(RandomIntervals(50'000, 3, 0, 100, 10), 3);         // many equal begins
  Intervals sorted = RandomIntervals(100'000, 8, kEpochNs, 1'000'000'000, 10'000);
  std::vector<size_t> order(sorted.group.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return std::pair(sorted.group[x], sorted.begin[x]) <
           std::pair(sorted.group[y], sorted.begin[y]);
  });
  Intervals in_order;
  for (size_t i : order) in_order.Add(sorted.group[i], sorted.begin[i], sorted.end[i]);
  CheckIntervals(in_order, 8);
  Intervals wide;  // lengths near 2^63
  wide.Add(0, -(int64_t{1} << 62), (int64_t{1} << 62) - 1);
  wide.Add(0, 0, 5);
  wide.Add(1, kMin, kMin + 10);
  wide.Add(1, kMax - 10, kMax);
  CheckIntervals(wide, 2);

  Intervals g;
  g.Add(0, 20, 30);
  g.Add(0, 0, 10);
  g.Add(0, 17, 17);  // empty: no coverage, no split of the gap
  g.Add(0, 30, 35);  // touches [20, 30): one component
  g.Add(0, 5, 15);
  g.Add(0, 18, 16);  // negative: empty
  g.Add(1, 5, 5);
  g.Add(1, 7, 3);
  g.Add(2, -10, -5);
  g.Add(2, -3, -1);
  std::vector<int64_t> lengths(3);
  TH_ASSERT_OK(gpu_->IntervalUnion(g.columns(), lengths));
  EXPECT_EQ(lengths, (std::vector<int64_t>{30, 0, 7}));
  GapList gaps;
  TH_ASSERT_OK(gpu_->Gaps(g.columns(), 3, &gaps));
  EXPECT_EQ(gaps.group, (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(gaps.begin, (std::vector<int64_t>{15, -5}));
  EXPECT_EQ(gaps.end, (std::vector<int64_t>{20, -3}));
}

TEST_P(GpuEngineTest, IntervalOverlap) {
  const Intervals none;
  CheckOverlap(none, none, 4);
  const Intervals a = RandomIntervals(100'000, 16, kEpochNs, 1'000'000'000, 50'000);
  const Intervals b = RandomIntervals(60'000, 16, kEpochNs, 1'000'000'000, 80'000);
  CheckOverlap(a, none, 16);
  CheckOverlap(none, b, 16);
  CheckOverlap(a, b, 16);
  CheckOverlap(a, a, 16);  // overlap = union
  CheckOverlap(RandomIntervals(1 << 19, 1, 0, int64_t{1} << 36, 1 << 20),
               RandomIntervals(1 << 19, 1, 0, int64_t{1} << 36, 1 << 16), 1);
  CheckOverlap(RandomIntervals(500, 300, -10'000, 20'000, 400),
               RandomIntervals(700, 300, -10'000, 20'000, 400), 300);

  Intervals x, y;
  x.Add(0, 0, 10);
  y.Add(0, 5, 20);
  x.Add(1, 0, 5);
  y.Add(1, 5, 10);  // touching only
  x.Add(2, 0, 100);
  y.Add(2, 10, 20);
  y.Add(2, 15, 30);
  y.Add(2, 90, 80);  // empty
  std::vector<int64_t> out(3);
  TH_ASSERT_OK(gpu_->IntervalOverlap(x.columns(), y.columns(), out));
  EXPECT_EQ(out, (std::vector<int64_t>{5, 0, 20}));
}

TEST_P(GpuEngineTest, Histogram) {
  CheckHistogram({}, 0, 10, 4);
  CheckHistogram({5}, 0, 10, 1);
  const std::vector<int64_t> small = RandomValues(300'000, -1000, 1000);
  for (size_t bins : {1, 7, 64, 1200, 5000, 8192, 8193, 100'000})
    CheckHistogram(small, -500, 700, bins);
  CheckHistogram(RandomValues(200'000, kMin, kMax), kMin, kMax,
                 1000);  // (v - lo) * bins overflows 64 bits
  CheckHistogram(RandomValues(200'000, kMin, kMax), kMin / 3, kMax / 2, 77'777);
  CheckHistogram(RandomValues(1'000, -6, -3), -5, -4,
                 3);  // range 1, more bins than values in range
  CheckHistogram(std::vector<int64_t>(1 << 20, 42), 0, 100, 10);  // all equal
  CheckHistogram(RandomValues(1 << 20, kEpochNs, kEpochNs + 1'000'000'000), kEpochNs,
                 kEpochNs + 999'999'937, 256);

  std::vector<uint64_t> out(3);
  TH_ASSERT_OK(
      gpu_->Histogram(std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -3, 100}, 0, 10, out));
  EXPECT_EQ(out, (std::vector<uint64_t>{5, 3, 5}));
}

TEST_P(GpuEngineTest, TopK) {
  CheckTopK({}, 5);
  CheckTopK({7}, 0);
  CheckTopK({7}, 3);
  const std::vector<int64_t> dupes = RandomValues(100'000, 0, 49);
  for (uint32_t k : {0u, 1u, 10u, 1000u, 100'000u, 100'005u}) CheckTopK(dupes, k);
  CheckTopK(std::vector<int64_t>(10'000, -1), 10);  // all tied: lowest indices
  CheckTopK(RandomValues(1 << 20, kMin, kMax), 100);
  CheckTopK({kMin, kMax, 0, kMax, kMin, -1}, 6);

  std::vector<uint32_t> out;
  TH_ASSERT_OK(gpu_->TopK(std::vector<int64_t>{5, 9, 9, 1, 5}, 3, &out));
  EXPECT_EQ(out, (std::vector<uint32_t>{1, 2, 0}));
}

TEST_P(GpuEngineTest, Join) {
  CheckJoin({}, {});
  CheckJoin({}, {1, 2, 3});
  CheckJoin({1, 2, 3}, {});
  CheckJoin(std::vector<int64_t>(1000, 4), {4, 5, 4});  // all equal: index 0
  CheckJoin(RandomValues(20'000, 0, 4'999), RandomValues(50'000, -100, 5'999));
  CheckJoin(RandomValues(1 << 20, kMin, kMax), RandomValues(1 << 18, kMin, kMax));
  std::vector<int64_t> build = RandomValues(1 << 18, kEpochNs, kEpochNs + (1 << 17));
  std::vector<int64_t> probe(build.rbegin(), build.rend());
  CheckJoin(build, probe);
  CheckJoin({kMin, kMax, 0}, {kMax, kMin, 0, 1});

  std::vector<uint32_t> out(4);
  TH_ASSERT_OK(gpu_->Join(std::vector<int64_t>{7, 3, 7, 9}, std::vector<int64_t>{7, 9, 4, 3}, out));
  EXPECT_EQ(out, (std::vector<uint32_t>{0, 3, kNoMatch, 1}));
}

// Bad input is an error status (never a crash), and the engine stays usable.
TEST_P(GpuEngineTest, ErrorsAreStatuses) {
  std::vector<int64_t> keys = {1, 2, 3};
  std::vector<uint32_t> values = {1, 2};
  EXPECT_FALSE(gpu_->SortByKey(keys, values).ok());

  std::vector<int64_t> out(2);
  const KernelStatus bad_key = gpu_->ReduceByKey(std::vector<uint32_t>{0, 5},
                                                 std::vector<int64_t>{1, 1}, ReduceOp::kSum, out);
  EXPECT_FALSE(bad_key.ok());
  EXPECT_NE(bad_key.message().find("ReduceByKey"), std::string::npos) << bad_key.message();

  Intervals iv;
  iv.Add(3, 0, 1);
  EXPECT_FALSE(gpu_->IntervalUnion(iv.columns(), out).ok());
  GapList gaps;
  EXPECT_FALSE(gpu_->Gaps(iv.columns(), 2, &gaps).ok());

  std::vector<uint64_t> bins(4);
  EXPECT_FALSE(gpu_->Histogram(std::vector<int64_t>{1}, 10, 10, bins).ok());
  std::vector<int64_t> pct_out(1);
  EXPECT_FALSE(gpu_->SegmentedPercentiles(std::vector<int64_t>{1}, std::vector<uint64_t>{0, 1},
                                          std::vector<double>{0.0}, pct_out)
                   .ok());
  std::vector<uint32_t> join_out(1);
  EXPECT_FALSE(gpu_->Join(std::vector<int64_t>{1}, std::vector<int64_t>{1, 2}, join_out).ok());

  // Still usable.
  CheckSort(RandomValues(1000, -10, 10));
}

INSTANTIATE_TEST_SUITE_P(Backends, GpuEngineTest, ::testing::Values(Backend::kCuda, Backend::kHip),
                         [](const auto& info) { return std::string(BackendName(info.param)); });

}  // namespace
}  // namespace th::kernels
