// Differential tests: every primitive of the CPU engine against a plain std::
// reference, on random and edge inputs. (GPU engines are checked against the
// CPU engine in their own tests.)
#include <gtest/gtest.h>
#include <tracehound/kernels/dispatch.h>
#include <tracehound/kernels/primitives.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

namespace th::kernels {
namespace {

struct Case {
  std::string name;
  std::vector<uint32_t> group;
  std::vector<int64_t> begin, end;
};

std::vector<Case> IntervalCases() {
  std::mt19937_64 rng(42);
  std::vector<Case> cases;
  cases.push_back({"empty", {}, {}, {}});
  cases.push_back({"one", {0}, {5}, {9}});
  cases.push_back({"zero and negative length", {0, 0, 0, 1}, {5, 7, 10, 3}, {5, 2, 12, 3}});
  cases.push_back({"nested and touching", {0, 0, 0, 0}, {0, 2, 10, 20}, {10, 5, 20, 25}});
  for (int size : {10, 1000, 200000}) {
    Case c{"random " + std::to_string(size), {}, {}, {}};
    for (int i = 0; i < size; ++i) {
      c.group.push_back(static_cast<uint32_t>(rng() % 7));
      int64_t b = static_cast<int64_t>(rng() % 100000) - 50000;
      c.begin.push_back(b);
      c.end.push_back(b + static_cast<int64_t>(rng() % 300) - 20);
    }
    cases.push_back(c);
  }
  // Three time-ordered tracks one after the other, groups interleaved: each
  // group a few ascending runs (the merge path).
  Case tracks{"track-major runs", {}, {}, {}};
  for (int track = 0; track < 3; ++track)
    for (int64_t i = 0; i < 5000; ++i) {
      tracks.group.push_back(static_cast<uint32_t>(rng() % 8));
      tracks.begin.push_back(i * 40 + track * 7);
      tracks.end.push_back(i * 40 + track * 7 + static_cast<int64_t>(rng() % 60));
    }
  cases.push_back(tracks);
  // One huge group, sorted (the fast path), with totals beyond 2^31.
  Case big{"sorted, totals past 2^31", {}, {}, {}};
  for (int64_t i = 0; i < 100000; ++i) {
    big.group.push_back(0);
    big.begin.push_back(i * 100000);
    big.end.push_back(i * 100000 + 70000);
  }
  cases.push_back(big);
  return cases;
}

// Reference: paint a map of elementary segments.
std::map<uint32_t, std::vector<std::pair<int64_t, int64_t>>> ReferenceUnion(const Case& c) {
  std::map<uint32_t, std::vector<std::pair<int64_t, int64_t>>> by;
  for (size_t i = 0; i < c.begin.size(); ++i)
    if (c.end[i] > c.begin[i]) by[c.group[i]].push_back({c.begin[i], c.end[i]});
  std::map<uint32_t, std::vector<std::pair<int64_t, int64_t>>> merged;
  for (auto& [g, v] : by) {
    std::sort(v.begin(), v.end());
    for (auto& iv : v) {
      auto& m = merged[g];
      if (!m.empty() && iv.first <= m.back().second)
        m.back().second = std::max(m.back().second, iv.second);
      else
        m.push_back(iv);
    }
  }
  return merged;
}

class CpuEngineTest : public ::testing::Test {
 protected:
  std::unique_ptr<Engine> engine_ = MakeCpuEngine();
};

TEST_F(CpuEngineTest, SortByKeyIsStableAndMatchesStd) {
  std::mt19937_64 rng(1);
  for (size_t n : {size_t{0}, size_t{1}, size_t{100}, size_t{5000}, size_t{300000}}) {
    std::vector<int64_t> keys(n);
    for (auto& k : keys)
      k = static_cast<int64_t>(rng() % 1000) - 500 +
          (n > 1000 ? (1LL << 50) : 0) * (rng() % 2 ? -1 : 1);
    std::vector<uint32_t> vals(n);
    std::iota(vals.begin(), vals.end(), 0u);
    std::vector<std::pair<int64_t, uint32_t>> ref(n);
    for (size_t i = 0; i < n; ++i) ref[i] = {keys[i], vals[i]};
    std::stable_sort(ref.begin(), ref.end(), [](auto& a, auto& b) { return a.first < b.first; });
    ASSERT_TRUE(engine_->SortByKey(keys, vals).ok());
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(keys[i], ref[i].first) << i;
      ASSERT_EQ(vals[i], ref[i].second) << i;  // stable
    }
  }
  std::vector<int64_t> extremes = {INT64_MAX, INT64_MIN, 0, -1, 1, INT64_MIN + 1};
  extremes.resize(4096, 7);
  std::vector<uint32_t> v(extremes.size(), 0);
  ASSERT_TRUE(engine_->SortByKey(extremes, v).ok());
  EXPECT_TRUE(std::is_sorted(extremes.begin(), extremes.end()));
  std::vector<uint32_t> short_values(3);
  EXPECT_FALSE(engine_->SortByKey(extremes, short_values).ok());
}

TEST_F(CpuEngineTest, ReduceByKeyAllOps) {
  std::mt19937_64 rng(2);
  for (size_t n : {size_t{0}, size_t{1}, size_t{100000}}) {
    const uint32_t k = 50;
    std::vector<uint32_t> keys(n);
    std::vector<int64_t> values(n);
    for (size_t i = 0; i < n; ++i) {
      keys[i] = static_cast<uint32_t>(rng() % (k - 1));  // key k-1 never used
      values[i] = static_cast<int64_t>(rng() % 2000000000) - 1000000000 + (1LL << 40);
    }
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMin, ReduceOp::kMax, ReduceOp::kCount}) {
      std::vector<int64_t> ref(k, op == ReduceOp::kMin   ? INT64_MAX
                                  : op == ReduceOp::kMax ? INT64_MIN
                                                         : 0);
      for (size_t i = 0; i < n; ++i) {
        auto& r = ref[keys[i]];
        if (op == ReduceOp::kSum) r += values[i];
        if (op == ReduceOp::kCount) ++r;
        if (op == ReduceOp::kMin) r = std::min(r, values[i]);
        if (op == ReduceOp::kMax) r = std::max(r, values[i]);
      }
      std::vector<int64_t> out(k);
      ASSERT_TRUE(engine_->ReduceByKey(keys, values, op, out).ok());
      EXPECT_EQ(out, ref);
    }
  }
  std::vector<uint32_t> bad = {3};
  std::vector<int64_t> v = {1}, out(2);
  EXPECT_FALSE(engine_->ReduceByKey(bad, v, ReduceOp::kSum, out).ok());
}

TEST_F(CpuEngineTest, SegmentedPercentilesNearestRank) {
  std::vector<int64_t> values = {5, 1, 3, 2, 4, /*seg1*/ 10, /*seg2 empty*/ /*seg3*/ 7, 7, 7};
  std::vector<uint64_t> offsets = {0, 5, 6, 6, 9};
  std::vector<double> pcts = {50, 99, 100, 1};
  std::vector<int64_t> out(4 * 4);
  ASSERT_TRUE(engine_->SegmentedPercentiles(values, offsets, pcts, out).ok());
  EXPECT_EQ(out, (std::vector<int64_t>{3, 5, 5, 1, 10, 10, 10, 10, 0, 0, 0, 0, 7, 7, 7, 7}));
  std::vector<double> bad = {0};
  std::vector<int64_t> o(4);
  EXPECT_FALSE(engine_->SegmentedPercentiles(values, offsets, bad, o).ok());
  // An offset past the values, even before the last one, is refused.
  std::vector<uint64_t> beyond = {0, 200, 5};
  std::vector<double> one = {50};
  std::vector<int64_t> two(2);
  EXPECT_FALSE(engine_->SegmentedPercentiles(values, beyond, one, two).ok());
}

// Against sorting each segment, on random segments of very different sizes
// (the per-thread buffer is reused from a long segment to short ones) with
// many repeated values and percentiles in no order.
TEST_F(CpuEngineTest, SegmentedPercentilesEqualSortedSegments) {
  std::mt19937 rng(7);
  std::vector<int64_t> values;
  std::vector<uint64_t> offsets{0};
  for (int s = 0; s < 200; ++s) {
    const size_t n = s % 17 == 0 ? 20000 + rng() % 5000 : rng() % 40;
    for (size_t k = 0; k < n; ++k) values.push_back(static_cast<int64_t>(rng() % 50) - 10);
    offsets.push_back(values.size());
  }
  const std::vector<double> pcts = {99, 50, 0.5, 100, 50, 75, 1};
  std::vector<int64_t> out((offsets.size() - 1) * pcts.size());
  ASSERT_TRUE(engine_->SegmentedPercentiles(values, offsets, pcts, out).ok());
  for (size_t s = 0; s + 1 < offsets.size(); ++s) {
    std::vector<int64_t> v(values.begin() + offsets[s], values.begin() + offsets[s + 1]);
    std::sort(v.begin(), v.end());
    for (size_t j = 0; j < pcts.size(); ++j) {
      int64_t want = 0;
      if (!v.empty()) {
        auto rank = static_cast<size_t>(std::ceil(pcts[j] / 100.0 * static_cast<double>(v.size())));
        want = v[std::clamp<size_t>(rank, 1, v.size()) - 1];
      }
      ASSERT_EQ(out[s * pcts.size() + j], want) << "segment " << s << " percentile " << pcts[j];
    }
  }
}

TEST_F(CpuEngineTest, IntervalUnionOverlapAndGapsMatchReference) {
  for (const Case& c : IntervalCases()) {
    SCOPED_TRACE(c.name);
    auto ref = ReferenceUnion(c);
    std::vector<int64_t> out(8, -1);
    ASSERT_TRUE(engine_->IntervalUnion({c.group, c.begin, c.end}, out).ok());
    for (uint32_t g = 0; g < 8; ++g) {
      int64_t want = 0;
      for (auto& iv : ref[g]) want += iv.second - iv.first;
      EXPECT_EQ(out[g], want) << "group " << g;
    }
    GapList gaps;
    ASSERT_TRUE(engine_->Gaps({c.group, c.begin, c.end}, 8, &gaps).ok());
    size_t k = 0;
    for (auto& [g, ivs] : ref) {
      for (size_t i = 1; i < ivs.size(); ++i, ++k) {
        ASSERT_LT(k, gaps.begin.size());
        EXPECT_EQ(gaps.group[k], g);
        EXPECT_EQ(gaps.begin[k], ivs[i - 1].second);
        EXPECT_EQ(gaps.end[k], ivs[i].first);
      }
    }
    EXPECT_EQ(k, gaps.begin.size());
  }
  // Overlap: two shifted copies of the random set.
  Case a = IntervalCases()[5];
  Case b = a;
  for (auto& x : b.begin) x += 50;
  for (auto& x : b.end) x += 50;
  auto ua = ReferenceUnion(a), ub = ReferenceUnion(b);
  std::vector<int64_t> out(8);
  ASSERT_TRUE(
      engine_->IntervalOverlap({a.group, a.begin, a.end}, {b.group, b.begin, b.end}, out).ok());
  for (uint32_t g = 0; g < 8; ++g) {
    int64_t want = 0;  // brute force over the merged components
    for (auto& x : ua[g])
      for (auto& y : ub[g])
        want += std::max<int64_t>(0, std::min(x.second, y.second) - std::max(x.first, y.first));
    EXPECT_EQ(out[g], want) << g;
  }
}

TEST_F(CpuEngineTest, IntervalOverlapOfSortedInputsTakesTheMergePath) {
  Case a = IntervalCases().back();  // sorted by (group, begin)
  Case b = a;
  for (size_t i = 0; i < b.begin.size(); ++i) {
    b.begin[i] += 50000;
    b.end[i] += 50000;
  }
  Case both = a;
  both.group.insert(both.group.end(), b.group.begin(), b.group.end());
  both.begin.insert(both.begin.end(), b.begin.begin(), b.begin.end());
  both.end.insert(both.end.end(), b.end.begin(), b.end.end());
  auto len = [](const Case& c) {
    int64_t total = 0;
    for (auto& [g, ivs] : ReferenceUnion(c))
      for (auto& iv : ivs) total += iv.second - iv.first;
    return total;
  };
  std::vector<int64_t> out(1);
  ASSERT_TRUE(
      engine_->IntervalOverlap({a.group, a.begin, a.end}, {b.group, b.begin, b.end}, out).ok());
  EXPECT_EQ(out[0], len(a) + len(b) - len(both));
  EXPECT_GT(out[0], int64_t{1} << 31);
}

TEST_F(CpuEngineTest, HistogramTopKJoin) {
  std::vector<int64_t> values = {-5, 0, 1, 9, 10, 99, 100, 1000, INT64_MIN, INT64_MAX};
  std::vector<uint64_t> bins(10);
  ASSERT_TRUE(engine_->Histogram(values, 0, 100, bins).ok());
  EXPECT_EQ(bins, (std::vector<uint64_t>{5, 1, 0, 0, 0, 0, 0, 0, 0, 4}));
  std::vector<uint64_t> wide(4);
  ASSERT_TRUE(engine_->Histogram(values, INT64_MIN, INT64_MAX, wide).ok());
  EXPECT_EQ(std::accumulate(wide.begin(), wide.end(), uint64_t{0}), values.size());
  EXPECT_FALSE(engine_->Histogram(values, 5, 5, wide).ok());

  std::mt19937_64 rng(3);
  std::vector<int64_t> big(300000);
  for (auto& v : big) v = static_cast<int64_t>(rng() % 1000);
  std::vector<uint32_t> top;
  ASSERT_TRUE(engine_->TopK(big, 25, &top).ok());
  std::vector<uint32_t> ref(big.size());
  std::iota(ref.begin(), ref.end(), 0u);
  std::stable_sort(ref.begin(), ref.end(), [&](uint32_t a, uint32_t b) { return big[a] > big[b]; });
  ref.resize(25);
  EXPECT_EQ(top, ref);
  ASSERT_TRUE(engine_->TopK(std::span<const int64_t>(), 5, &top).ok());
  EXPECT_TRUE(top.empty());

  std::vector<int64_t> build = {7, 3, 7, -1, 1LL << 40};
  std::vector<int64_t> probe = {7, 8, -1, 1LL << 40, 3};
  std::vector<uint32_t> idx(probe.size());
  ASSERT_TRUE(engine_->Join(build, probe, idx).ok());
  EXPECT_EQ(idx, (std::vector<uint32_t>{0, kNoMatch, 3, 4, 1}));
}

TEST(Dispatch, ChoosesCpuWithoutAGpuAndRefusesAbsentBackends) {
  BackendChoice c;
  EXPECT_TRUE(ParseBackendChoice("auto", &c));
  EXPECT_FALSE(ParseBackendChoice("tpu", &c));
  Engine* e = nullptr;
  ASSERT_TRUE(SelectEngine(BackendChoice::kAuto, 1 << 30, &e).ok());
  auto backends = DescribeBackends();
  ASSERT_EQ(backends.size(), 3u);
  EXPECT_TRUE(backends[0].usable);
  if (!backends[1].usable) {
    EXPECT_EQ(e->backend(), Backend::kCpu);
    KernelStatus s = SelectEngine(BackendChoice::kCuda, 10, &e);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("backend cuda is not available"), std::string::npos) << s.message();
  }
  if (!backends[2].usable) {
    KernelStatus hip = SelectEngine(BackendChoice::kHip, 10, &e);
    EXPECT_FALSE(hip.ok());
  }
}

}  // namespace
}  // namespace th::kernels
