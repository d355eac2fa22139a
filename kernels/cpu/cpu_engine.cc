// The oneTBB engine: the reference backend every other one is tested against.
#include <tbb/blocked_range.h>
#include <tbb/combinable.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tracehound/kernels/primitives.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <numeric>
#include <unordered_map>

#include "interval_order.h"

namespace th::kernels {

const char* BackendName(Backend b) {
  switch (b) {
    case Backend::kCpu:
      return "cpu";
    case Backend::kCuda:
      return "cuda";
    case Backend::kHip:
      return "hip";
  }
  return "cpu";
}

namespace {

constexpr size_t kGrain = 1 << 16;

KernelStatus SizeError(const char* what) {
  return KernelStatus(std::string("size mismatch: ") + what);
}

// Stable radix sort of (key, value) pairs on 64-bit keys.
// Phase 1: one parallel, stable scatter on the 8 bits just below the highest
// bit in which keys differ (timestamps share their top bits, so this spreads
// them). Phase 2: every bucket, now small enough for the cache, gets an LSD
// radix sort on the lower bytes, buckets in parallel. Bytes that are equal
// across a bucket are skipped.
struct Item {
  uint64_t key;
  uint32_t value;
};

// LSD radix on the bits below `low_bits`, 8 at a time, ping-ponging between
// a and tmp (the result ends in a). All digit histograms come from one read.
void LsdSort(Item* a, Item* tmp, size_t n, int low_bits) {
  const int passes = (low_bits + 7) / 8;
  uint32_t count[8][256] = {};
  for (size_t i = 0; i < n; ++i)
    for (int p = 0; p < passes; ++p) ++count[p][(a[i].key >> (8 * p)) & 0xFF];
  Item* src = a;
  Item* dst = tmp;
  for (int p = 0; p < passes; ++p) {
    const int shift = 8 * p;
    bool trivial = false;
    for (int b = 0; b < 256; ++b)
      if (count[p][b]) {
        trivial = count[p][b] == n;
        break;
      }
    if (trivial) continue;
    uint32_t offset[256];
    uint32_t sum = 0;
    for (int b = 0; b < 256; ++b) {
      offset[b] = sum;
      sum += count[p][b];
    }
    for (size_t i = 0; i < n; ++i) dst[offset[(src[i].key >> shift) & 0xFF]++] = src[i];
    std::swap(src, dst);
  }
  if (src != a) std::memcpy(static_cast<void*>(a), src, n * sizeof(Item));
}

// Scratch memory kept between calls: a fresh 2 x 16 bytes per key costs page
// faults worth a third of the sort. Only small sorts keep it: a big sort's
// scratch (14 MB for 446k keys) would stay resident for the rest of the run
// while other plugins allocate, so big sorts use memory of their own.
constexpr size_t kKeptScratchKeys = size_t{1} << 16;
struct SortScratch {
  std::mutex mu;
  std::unique_ptr<Item[]> a, b;
  size_t capacity = 0;
};

void RadixSort(std::span<int64_t> keys, std::span<uint32_t> values, SortScratch* scratch) {
  const size_t n = keys.size();
  std::unique_lock<std::mutex> lock;
  if (n <= kKeptScratchKeys) lock = std::unique_lock<std::mutex>(scratch->mu, std::try_to_lock);
  std::unique_ptr<Item[]> own_a, own_b;
  Item* a_ptr;
  Item* b_ptr;
  if (lock.owns_lock()) {
    if (scratch->capacity < n) {
      scratch->a.reset(new Item[n]);
      scratch->b.reset(new Item[n]);
      scratch->capacity = n;
    }
    a_ptr = scratch->a.get();
    b_ptr = scratch->b.get();
  } else {  // a big sort, or another sort is running: use memory of our own
    own_a.reset(new Item[n]);
    own_b.reset(new Item[n]);
    a_ptr = own_a.get();
    b_ptr = own_b.get();
  }
  std::span<Item> a(a_ptr, n), b(b_ptr, n);
  // Flip the sign bit so unsigned order is signed order.
  struct Range {
    uint64_t lo = UINT64_MAX, hi = 0;
  };
  tbb::combinable<Range> ranges;
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, kGrain), [&](const auto& r) {
    Range& m = ranges.local();
    for (size_t i = r.begin(); i < r.end(); ++i) {
      a[i] = {static_cast<uint64_t>(keys[i]) ^ (1ULL << 63), values[i]};
      m.lo = std::min(m.lo, a[i].key);
      m.hi = std::max(m.hi, a[i].key);
    }
  });
  uint64_t lo = UINT64_MAX, hi = 0;
  ranges.combine_each([&](const Range& m) {
    lo = std::min(lo, m.lo);
    hi = std::max(hi, m.hi);
  });
  if (lo == hi) return;         // all keys equal: stable order is the input order
  constexpr int kMsdBits = 11;  // 2048 buckets: ~n/2048 items each, cache-sized
  constexpr size_t kMsd = size_t{1} << kMsdBits;
  const int top = 63 - __builtin_clzll(lo ^ hi);        // highest differing bit
  const int shift = std::max(0, top - (kMsdBits - 1));  // digit ending there
  const size_t chunks = std::max<size_t>(1, std::min<size_t>(64, n / kGrain));
  const size_t chunk = (n + chunks - 1) / chunks;
  std::vector<uint32_t> counts(chunks * kMsd, 0);
  tbb::parallel_for(size_t{0}, chunks, [&](size_t c) {
    uint32_t* h = &counts[c * kMsd];
    for (size_t i = c * chunk, e = std::min(n, (c + 1) * chunk); i < e; ++i)
      ++h[(a[i].key >> shift) & (kMsd - 1)];
  });
  std::vector<uint64_t> offsets(chunks * kMsd), bucket_start(kMsd + 1, 0);
  uint64_t sum = 0;
  for (size_t d = 0; d < kMsd; ++d) {
    bucket_start[d] = sum;
    for (size_t c = 0; c < chunks; ++c) {
      offsets[c * kMsd + d] = sum;
      sum += counts[c * kMsd + d];
    }
  }
  bucket_start[kMsd] = sum;
  tbb::parallel_for(size_t{0}, chunks, [&](size_t c) {
    uint64_t* o = &offsets[c * kMsd];
    for (size_t i = c * chunk, e = std::min(n, (c + 1) * chunk); i < e; ++i)
      b[o[(a[i].key >> shift) & (kMsd - 1)]++] = a[i];
  });
  // Within a bucket keys agree from bit `shift` up; sort on the bits below.
  tbb::parallel_for(size_t{0}, kMsd, [&](size_t d) {
    size_t begin = bucket_start[d], len = bucket_start[d + 1] - begin;
    if (len > 1) LsdSort(b.data() + begin, a.data() + begin, len, shift);
  });
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, kGrain), [&](const auto& r) {
    for (size_t i = r.begin(); i < r.end(); ++i) {
      keys[i] = static_cast<int64_t>(b[i].key ^ (1ULL << 63));
      values[i] = b[i].value;
    }
  });
}

bool ValidIntervals(const IntervalColumns& iv) {
  return iv.group.size() == iv.begin.size() && iv.end.size() == iv.begin.size();
}

// Per group, the length of the union of its intervals (groups are checked
// below out.size()); groups without intervals get 0.
void UnionLengths(const IntervalColumns& iv, const IntervalOrder& o, std::span<int64_t> out) {
  std::fill(out.begin(), out.end(), 0);
  const std::vector<size_t>& runs = o.runs;
  tbb::parallel_for(size_t{0}, runs.size() - 1, [&](size_t r) {
    int64_t covered_to = INT64_MIN, total = 0;
    for (size_t k = runs[r]; k < runs[r + 1]; ++k) {
      uint32_t i = o.at(k);
      int64_t b = iv.begin[i], e = iv.end[i];
      if (e <= b) continue;
      int64_t from = std::max(b, covered_to);
      if (e > from) total += e - from;
      covered_to = std::max(covered_to, e);
    }
    if (runs[r + 1] > runs[r]) out[iv.group[o.at(runs[r])]] = total;
  });
}

class CpuEngine final : public Engine {
  SortScratch scratch_;

 public:
  Backend backend() const override { return Backend::kCpu; }

  KernelStatus SortByKey(std::span<int64_t> keys, std::span<uint32_t> values) override {
    if (keys.size() != values.size()) return SizeError("keys and values");
    if (keys.size() < 2) return {};
    if (keys.size() < 2048) {
      std::vector<std::pair<int64_t, uint32_t>> p(keys.size());
      for (size_t i = 0; i < keys.size(); ++i) p[i] = {keys[i], values[i]};
      std::stable_sort(p.begin(), p.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (size_t i = 0; i < keys.size(); ++i) std::tie(keys[i], values[i]) = p[i];
      return {};
    }
    RadixSort(keys, values, &scratch_);
    return {};
  }

  KernelStatus ReduceByKey(std::span<const uint32_t> keys, std::span<const int64_t> values,
                           ReduceOp op, std::span<int64_t> out) override {
    if (op != ReduceOp::kCount && keys.size() != values.size()) return SizeError("keys and values");
    const size_t k = out.size();
    const int64_t identity = op == ReduceOp::kMin   ? INT64_MAX
                             : op == ReduceOp::kMax ? INT64_MIN
                                                    : 0;
    for (uint32_t key : keys)
      if (key >= k)
        return KernelStatus("key " + std::to_string(key) + " is not below the output size " +
                            std::to_string(k));
    tbb::combinable<std::vector<int64_t>> partial(
        [&] { return std::vector<int64_t>(k, identity); });
    tbb::parallel_for(tbb::blocked_range<size_t>(0, keys.size(), kGrain), [&](const auto& r) {
      std::vector<int64_t>& acc = partial.local();
      switch (op) {
        case ReduceOp::kSum:
          for (size_t i = r.begin(); i < r.end(); ++i) acc[keys[i]] += values[i];
          break;
        case ReduceOp::kCount:
          for (size_t i = r.begin(); i < r.end(); ++i) ++acc[keys[i]];
          break;
        case ReduceOp::kMin:
          for (size_t i = r.begin(); i < r.end(); ++i)
            acc[keys[i]] = std::min(acc[keys[i]], values[i]);
          break;
        case ReduceOp::kMax:
          for (size_t i = r.begin(); i < r.end(); ++i)
            acc[keys[i]] = std::max(acc[keys[i]], values[i]);
          break;
      }
    });
    std::fill(out.begin(), out.end(), identity);
    partial.combine_each([&](const std::vector<int64_t>& acc) {
      for (size_t i = 0; i < k; ++i) {
        switch (op) {
          case ReduceOp::kSum:
          case ReduceOp::kCount:
            out[i] += acc[i];
            break;
          case ReduceOp::kMin:
            out[i] = std::min(out[i], acc[i]);
            break;
          case ReduceOp::kMax:
            out[i] = std::max(out[i], acc[i]);
            break;
        }
      }
    });
    return {};
  }

  KernelStatus SegmentedPercentiles(std::span<const int64_t> values,
                                    std::span<const uint64_t> offsets,
                                    std::span<const double> percentiles,
                                    std::span<int64_t> out) override {
    if (offsets.empty()) return out.empty() ? KernelStatus() : SizeError("offsets and out");
    const size_t segments = offsets.size() - 1, p = percentiles.size();
    if (out.size() != segments * p) return SizeError("out must be segments x percentiles");
    if (offsets.back() > values.size()) return SizeError("offsets beyond values");
    for (size_t i = 1; i < offsets.size(); ++i)
      if (offsets[i] > values.size()) return SizeError("offsets beyond values");
    for (double pct : percentiles)
      if (!(pct > 0 && pct <= 100))
        return KernelStatus("percentile " + std::to_string(pct) + " is not in (0, 100]");
    // Percentiles in ascending order (each selection then narrows the next);
    // one copy buffer per thread, reused from segment to segment.
    std::vector<size_t> by_pct(p);
    std::iota(by_pct.begin(), by_pct.end(), size_t{0});
    std::sort(by_pct.begin(), by_pct.end(),
              [&](size_t a, size_t b) { return percentiles[a] < percentiles[b]; });
    tbb::enumerable_thread_specific<std::vector<int64_t>> buffers;
    tbb::parallel_for(size_t{0}, segments, [&](size_t s) {
      uint64_t b = offsets[s], e = offsets[s + 1];
      if (e <= b) {
        for (size_t j = 0; j < p; ++j) out[s * p + j] = 0;
        return;
      }
      std::vector<int64_t>& v = buffers.local();
      v.assign(values.begin() + b, values.begin() + e);
      // The value of rank r (1-based) is the r-th smallest: nth_element finds
      // it exactly, ranks ascending, each within what the last one left above.
      size_t from = 0;  // the last rank found: v[0, from) holds no greater value
      for (size_t j : by_pct) {
        auto rank =
            static_cast<size_t>(std::ceil(percentiles[j] / 100.0 * static_cast<double>(v.size())));
        const size_t at = std::clamp<size_t>(rank, 1, v.size()) - 1;  // >= from: ranks ascend
        std::nth_element(v.begin() + from, v.begin() + at, v.end());
        from = at;
        out[s * p + j] = v[at];
      }
    });
    return {};
  }

  KernelStatus IntervalUnion(const IntervalColumns& iv, std::span<int64_t> out) override {
    if (!ValidIntervals(iv)) return SizeError("interval columns");
    for (uint32_t g : iv.group)
      if (g >= out.size())
        return KernelStatus("group " + std::to_string(g) + " is not below the output size");
    UnionLengths(iv, OrderIntervals(iv), out);
    return {};
  }

  KernelStatus IntervalOverlap(const IntervalColumns& a, const IntervalColumns& b,
                               std::span<int64_t> out) override {
    if (!ValidIntervals(a) || !ValidIntervals(b)) return SizeError("interval columns");
    for (const IntervalColumns* c : {&a, &b})
      for (uint32_t g : c->group)
        if (g >= out.size())
          return KernelStatus("group " + std::to_string(g) + " is not below the output size");
    std::vector<int64_t> ua(out.size()), ub(out.size()), uab(out.size());
    const IntervalOrder oa = OrderIntervals(a), ob = OrderIntervals(b);
    UnionLengths(a, oa, ua);
    UnionLengths(b, ob, ub);
    // A ∪ B in (group, begin) order: a linear merge of the two orders, A's
    // interval first among equal keys.
    std::vector<uint32_t> g;
    std::vector<int64_t> bg, en;
    g.reserve(a.size() + b.size());
    bg.reserve(a.size() + b.size());
    en.reserve(a.size() + b.size());
    auto push = [&](const IntervalColumns& c, size_t i) {
      g.push_back(c.group[i]);
      bg.push_back(c.begin[i]);
      en.push_back(c.end[i]);
    };
    size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
      const uint32_t x = i < a.size() ? oa.at(i) : 0, y = j < b.size() ? ob.at(j) : 0;
      const bool take_a =
          j == b.size() ||
          (i < a.size() &&
           (a.group[x] < b.group[y] || (a.group[x] == b.group[y] && a.begin[x] <= b.begin[y])));
      if (take_a) {
        push(a, x);
        ++i;
      } else {
        push(b, y);
        ++j;
      }
    }
    const IntervalColumns merged{g, bg, en};
    UnionLengths(merged, OrderIntervals(merged), uab);
    for (size_t k = 0; k < out.size(); ++k) out[k] = ua[k] + ub[k] - uab[k];
    return {};
  }

  KernelStatus Gaps(const IntervalColumns& iv, uint32_t num_groups, GapList* out) override {
    if (!ValidIntervals(iv)) return SizeError("interval columns");
    for (uint32_t g : iv.group)
      if (g >= num_groups)
        return KernelStatus("group " + std::to_string(g) + " is not below num_groups");
    const IntervalOrder o = OrderIntervals(iv);
    const std::vector<size_t>& runs = o.runs;
    std::vector<GapList> per_run(runs.size() - 1);
    tbb::parallel_for(size_t{0}, runs.size() - 1, [&](size_t r) {
      GapList& gaps = per_run[r];
      int64_t covered_to = INT64_MIN;
      bool any = false;
      for (size_t k = runs[r]; k < runs[r + 1]; ++k) {
        uint32_t i = o.at(k);
        int64_t b = iv.begin[i], e = iv.end[i];
        if (e <= b) continue;
        if (any && b > covered_to) {
          gaps.group.push_back(iv.group[i]);
          gaps.begin.push_back(covered_to);
          gaps.end.push_back(b);
        }
        covered_to = any ? std::max(covered_to, e) : e;
        any = true;
      }
    });
    *out = GapList();
    for (const GapList& g : per_run) {
      out->group.insert(out->group.end(), g.group.begin(), g.group.end());
      out->begin.insert(out->begin.end(), g.begin.begin(), g.begin.end());
      out->end.insert(out->end.end(), g.end.begin(), g.end.end());
    }
    return {};
  }

  KernelStatus Histogram(std::span<const int64_t> values, int64_t lo, int64_t hi,
                         std::span<uint64_t> out) override {
    if (out.empty()) return KernelStatus("histogram needs at least one bin");
    if (hi <= lo) return KernelStatus("histogram range is empty (hi <= lo)");
    const size_t bins = out.size();
    const unsigned __int128 width = static_cast<unsigned __int128>(static_cast<__int128>(hi) - lo);
    tbb::combinable<std::vector<uint64_t>> partial([&] { return std::vector<uint64_t>(bins, 0); });
    tbb::parallel_for(tbb::blocked_range<size_t>(0, values.size(), kGrain), [&](const auto& r) {
      auto& acc = partial.local();
      for (size_t i = r.begin(); i < r.end(); ++i) {
        int64_t v = values[i];
        size_t bin;
        if (v < lo) {
          bin = 0;
        } else if (v >= hi) {
          bin = bins - 1;
        } else {
          auto off = static_cast<unsigned __int128>(static_cast<__int128>(v) - lo);
          bin = static_cast<size_t>(off * bins / width);
        }
        ++acc[bin];
      }
    });
    std::fill(out.begin(), out.end(), 0);
    partial.combine_each([&](const std::vector<uint64_t>& acc) {
      for (size_t b = 0; b < bins; ++b) out[b] += acc[b];
    });
    return {};
  }

  KernelStatus TopK(std::span<const int64_t> values, uint32_t k,
                    std::vector<uint32_t>* out) override {
    const size_t n = values.size();
    const size_t take = std::min<size_t>(k, n);
    auto better = [&](uint32_t a, uint32_t b) {
      return values[a] != values[b] ? values[a] > values[b] : a < b;
    };
    // Per chunk top-k, then the top-k of the candidates.
    const size_t chunks = std::max<size_t>(1, n / kGrain);
    std::vector<std::vector<uint32_t>> cands(chunks);
    tbb::parallel_for(size_t{0}, chunks, [&](size_t c) {
      size_t b = c * n / chunks, e = (c + 1) * n / chunks;
      std::vector<uint32_t> idx(e - b);
      std::iota(idx.begin(), idx.end(), static_cast<uint32_t>(b));
      size_t t = std::min(take, idx.size());
      std::partial_sort(idx.begin(), idx.begin() + t, idx.end(), better);
      idx.resize(t);
      cands[c] = std::move(idx);
    });
    std::vector<uint32_t> all;
    for (auto& c : cands) all.insert(all.end(), c.begin(), c.end());
    std::partial_sort(all.begin(), all.begin() + std::min(take, all.size()), all.end(), better);
    all.resize(std::min(take, all.size()));
    *out = std::move(all);
    return {};
  }

  KernelStatus Join(std::span<const int64_t> build, std::span<const int64_t> probe,
                    std::span<uint32_t> out) override {
    if (probe.size() != out.size()) return SizeError("probe and out");
    if (build.size() >= kNoMatch) return KernelStatus("build side too large for 32-bit indices");
    // Open addressing, first occurrence wins; probes run in parallel.
    size_t cap = 16;
    while (cap < build.size() * 2) cap *= 2;
    std::vector<int64_t> keys(cap);
    std::vector<uint32_t> rows(cap, kNoMatch);
    auto hash = [](int64_t x) {
      uint64_t h = static_cast<uint64_t>(x) * 0x9E3779B97F4A7C15ULL;
      return h ^ (h >> 32);
    };
    for (uint32_t i = 0; i < build.size(); ++i) {
      size_t s = hash(build[i]) & (cap - 1);
      while (rows[s] != kNoMatch && keys[s] != build[i]) s = (s + 1) & (cap - 1);
      if (rows[s] == kNoMatch) {
        rows[s] = i;
        keys[s] = build[i];
      }
    }
    tbb::parallel_for(tbb::blocked_range<size_t>(0, probe.size(), kGrain), [&](const auto& r) {
      for (size_t i = r.begin(); i < r.end(); ++i) {
        size_t s = hash(probe[i]) & (cap - 1);
        while (rows[s] != kNoMatch && keys[s] != probe[i]) s = (s + 1) & (cap - 1);
        out[i] = rows[s];
      }
    });
    return {};
  }
};

}  // namespace

std::unique_ptr<Engine> MakeCpuEngine() { return std::make_unique<CpuEngine>(); }

}  // namespace th::kernels
