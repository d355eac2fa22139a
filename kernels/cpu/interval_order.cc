#include "interval_order.h"

#include <tbb/blocked_range.h>
#include <tbb/combinable.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <span>

namespace th::kernels {
namespace {

constexpr size_t kGrain = 1 << 16;
// A group of more ascending runs than this is sorted, not merged run by run.
constexpr size_t kMaxMergedRuns = 64;
// Histogram chunks of the parallel counting partition.
constexpr size_t kMaxChunks = 16;

// Stable sort of `idx` (input indices, ascending) by begin: a bottom-up merge
// of its ascending runs when they are few, else a stable sort. `buf` is scratch.
void SortByBegin(std::span<uint32_t> idx, std::span<const int64_t> begin,
                 std::vector<uint32_t>& buf) {
  const size_t n = idx.size();
  auto by_begin = [&](uint32_t x, uint32_t y) { return begin[x] < begin[y]; };
  std::vector<size_t> starts{0};
  for (size_t k = 1; k < n; ++k)
    if (begin[idx[k - 1]] > begin[idx[k]]) {
      starts.push_back(k);
      if (starts.size() > kMaxMergedRuns) {
        std::stable_sort(idx.begin(), idx.end(), by_begin);
        return;
      }
    }
  if (starts.size() == 1) return;
  starts.push_back(n);
  buf.resize(n);
  uint32_t* src = idx.data();
  uint32_t* dst = buf.data();
  while (starts.size() > 2) {
    const size_t runs = starts.size() - 1;
    std::vector<size_t> next;
    for (size_t r = 0; r < runs; r += 2) {
      const size_t lo = starts[r], mid = starts[r + 1];
      const size_t hi = r + 1 < runs ? starts[r + 2] : mid;
      // std::merge takes the first range's element of equal keys first: stable.
      std::merge(src + lo, src + mid, src + mid, src + hi, dst + lo, by_begin);
      next.push_back(lo);
    }
    next.push_back(n);
    std::swap(src, dst);
    starts = std::move(next);
  }
  if (src != idx.data()) std::copy(src, src + n, idx.data());
}

// The comparison sort, for group ids too sparse to count.
void SortByGroupAndBegin(const IntervalColumns& iv, IntervalOrder& o) {
  const size_t n = iv.size();
  o.order.resize(n);
  std::iota(o.order.begin(), o.order.end(), 0u);
  tbb::parallel_sort(o.order.begin(), o.order.end(), [&](uint32_t a, uint32_t b) {
    if (iv.group[a] != iv.group[b]) return iv.group[a] < iv.group[b];
    if (iv.begin[a] != iv.begin[b]) return iv.begin[a] < iv.begin[b];
    return a < b;
  });
  for (size_t k = 0; k < n; ++k)
    if (k == 0 || iv.group[o.order[k]] != iv.group[o.order[k - 1]]) o.runs.push_back(k);
  o.runs.push_back(n);
}

// Stable counting partition of the indices by group (groups below
// `num_groups`), chunks counted and scattered in parallel.
void PartitionByGroup(const IntervalColumns& iv, size_t num_groups, IntervalOrder& o) {
  const size_t n = iv.size();
  size_t chunks = std::clamp<size_t>(n / kGrain, 1, kMaxChunks);
  if (num_groups * chunks > n) chunks = 1;  // histograms no larger than the order
  const size_t chunk = (n + chunks - 1) / chunks;
  std::vector<uint32_t> offsets(chunks * num_groups, 0);
  tbb::parallel_for(size_t{0}, chunks, [&](size_t c) {
    uint32_t* h = &offsets[c * num_groups];
    for (size_t i = c * chunk, e = std::min(n, (c + 1) * chunk); i < e; ++i) ++h[iv.group[i]];
  });
  uint32_t sum = 0;
  for (size_t g = 0; g < num_groups; ++g) {
    const uint32_t start = sum;
    for (size_t c = 0; c < chunks; ++c) {
      const uint32_t count = offsets[c * num_groups + g];
      offsets[c * num_groups + g] = sum;
      sum += count;
    }
    if (sum > start) o.runs.push_back(start);
  }
  o.runs.push_back(n);
  o.order.resize(n);
  tbb::parallel_for(size_t{0}, chunks, [&](size_t c) {
    uint32_t* at = &offsets[c * num_groups];
    for (size_t i = c * chunk, e = std::min(n, (c + 1) * chunk); i < e; ++i)
      o.order[at[iv.group[i]]++] = static_cast<uint32_t>(i);
  });
}

}  // namespace

IntervalOrder OrderIntervals(const IntervalColumns& iv) {
  const size_t n = iv.size();
  IntervalOrder o;
  std::atomic<bool> sorted{true};
  tbb::combinable<uint32_t> max_group([] { return 0u; });
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, kGrain), [&](const auto& r) {
    uint32_t& top = max_group.local();
    bool in_order = true;
    for (size_t i = r.begin(); i < r.end(); ++i) {
      top = std::max(top, iv.group[i]);
      if (i > 0 && in_order &&
          (iv.group[i - 1] > iv.group[i] ||
           (iv.group[i - 1] == iv.group[i] && iv.begin[i - 1] > iv.begin[i])))
        in_order = false;
    }
    if (!in_order) sorted.store(false, std::memory_order_relaxed);
  });
  if (sorted) {
    for (size_t k = 0; k < n; ++k)
      if (k == 0 || iv.group[k] != iv.group[k - 1]) o.runs.push_back(k);
    o.runs.push_back(n);
    return o;
  }
  const size_t num_groups =
      size_t{max_group.combine([](uint32_t a, uint32_t b) { return std::max(a, b); })} + 1;
  if (num_groups > 2 * n + 1024) {
    SortByGroupAndBegin(iv, o);
    return o;
  }
  PartitionByGroup(iv, num_groups, o);
  tbb::enumerable_thread_specific<std::vector<uint32_t>> scratch;
  tbb::parallel_for(size_t{0}, o.runs.size() - 1, [&](size_t r) {
    std::span<uint32_t> idx(o.order.data() + o.runs[r], o.runs[r + 1] - o.runs[r]);
    SortByBegin(idx, iv.begin, scratch.local());
  });
  return o;
}

}  // namespace th::kernels
