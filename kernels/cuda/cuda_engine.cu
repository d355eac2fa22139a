// CUDA backend of the compute primitives (see primitives.h for the semantics,
// which every backend reproduces exactly).
//
// Each method copies its host spans to device 0, computes with CUB device-wide
// algorithms and a few small kernels, and copies the results back. To keep
// nvcc's compile time down, only five CUB algorithms are instantiated:
//   radix sort of (int64 key, uint32 value) and (uint32 key, uint32 value)
//   pairs (both stable), an exclusive sum of uint32, an inclusive sum of
//   uint64, and an inclusive max-scan by uint32 key of int64 values.
// Everything else is a grid-stride kernel in this file.
//
// Sort-based primitives index rows with uint32, so they take at most
// 2^32 - 1 rows per call (an error beyond); ReduceByKey and Histogram have no
// such limit. Integer sums wrap modulo 2^64, as two's-complement int64 does.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/util_type.cuh>
#include <cuda/functional>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tracehound/kernels/gpu_engines.h"

namespace th::kernels {
namespace {

using ull = unsigned long long;

constexpr int kThreads = 256;
constexpr unsigned kFullWarp = 0xFFFFFFFFu;
// Rows a sort-based primitive may take: row indices are uint32.
constexpr uint64_t kMaxRows = 0xFFFFFFFFull;
// Keys (ReduceByKey) and bins (Histogram) up to these counts are accumulated
// in shared memory per block (32 KiB) before going to global memory.
constexpr uint64_t kSharedReduceKeys = 4096;
constexpr uint64_t kSharedHistogramBins = 8192;

// ---------------------------------------------------------------- errors ---

// A CUDA runtime failure; caught at the Engine method boundary.
class CudaFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void Check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  (void)cudaGetLastError();  // clear a non-sticky error so later calls can run
  throw CudaFailure(std::string(what) + ": " + cudaGetErrorName(err) + ": " +
                    cudaGetErrorString(err));
}

void CheckLaunch(const char* kernel) { Check(cudaGetLastError(), kernel); }

// ------------------------------------------------------- device memory ---

struct DeviceContext {
  cudaStream_t stream = nullptr;
  bool pools = true;  // stream-ordered allocator (cudaMallocAsync) available
  int sms = 1;
};

template <typename T>
class DevBuf {
 public:
  DevBuf() = default;
  DevBuf(const DeviceContext& ctx, size_t n) : n_(n), ctx_(&ctx) {
    if (n == 0) return;
    void* p = nullptr;
    if (ctx.pools) {
      Check(cudaMallocAsync(&p, n * sizeof(T), ctx.stream), "cudaMallocAsync");
    } else {
      Check(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc");
    }
    p_ = static_cast<T*>(p);
  }
  DevBuf(DevBuf&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)), ctx_(o.ctx_) {}
  DevBuf& operator=(DevBuf&& o) noexcept {
    if (this != &o) {
      Release();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
      ctx_ = o.ctx_;
    }
    return *this;
  }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  ~DevBuf() { Release(); }

  T* get() const { return p_; }
  size_t size() const { return n_; }

 private:
  void Release() {
    if (p_ == nullptr) return;
    if (ctx_->pools) {
      (void)cudaFreeAsync(p_, ctx_->stream);
    } else {
      (void)cudaFree(p_);
    }
    p_ = nullptr;
    n_ = 0;
  }

  T* p_ = nullptr;
  size_t n_ = 0;
  const DeviceContext* ctx_ = nullptr;
};

template <typename T>
void ToDevice(const DeviceContext& ctx, T* dst, const T* src, size_t n) {
  if (n == 0) return;
  Check(cudaMemcpyAsync(dst, src, n * sizeof(T), cudaMemcpyHostToDevice, ctx.stream),
        "cudaMemcpyAsync (host to device)");
}

template <typename T>
DevBuf<T> Upload(const DeviceContext& ctx, const T* src, size_t n) {
  DevBuf<T> d(ctx, n);
  ToDevice(ctx, d.get(), src, n);
  return d;
}

template <typename H, typename D>
void ToHost(const DeviceContext& ctx, H* dst, const D* src, size_t n) {
  static_assert(sizeof(H) == sizeof(D));
  if (n == 0) return;
  Check(cudaMemcpyAsync(dst, src, n * sizeof(D), cudaMemcpyDeviceToHost, ctx.stream),
        "cudaMemcpyAsync (device to host)");
}

void Sync(const DeviceContext& ctx) {
  Check(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize");
}

unsigned Blocks(const DeviceContext& ctx, uint64_t n, unsigned per_sm = 16) {
  const uint64_t want = (n + kThreads - 1) / kThreads;
  const uint64_t cap = static_cast<uint64_t>(ctx.sms) * per_sm;
  return static_cast<unsigned>(std::max<uint64_t>(1, std::min(want, cap)));
}

// Runs a CUB device algorithm twice: once for its temporary storage size,
// once with that storage.
template <typename F>
void RunCub(const DeviceContext& ctx, const char* what, F&& call) {
  size_t bytes = 0;
  Check(call(nullptr, bytes), what);
  DevBuf<unsigned char> temp(ctx, std::max<size_t>(bytes, 1));
  Check(call(temp.get(), bytes), what);
}

// Bits needed to represent max_value (0 for 0).
int BitsFor(uint64_t max_value) {
  int bits = 0;
  while (max_value != 0) {
    ++bits;
    max_value >>= 1;
  }
  return bits;
}

// --------------------------------------------------------------- kernels ---

#define TH_GRID_STRIDE(i, n)                                                               \
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<uint64_t>(gridDim.x) * blockDim.x)

// The lowest row whose id is >= limit, into *first_bad (initially ~0).
__global__ void __launch_bounds__(kThreads)
    FirstBadIdKernel(const uint32_t* ids, uint64_t n, uint64_t limit, ull* first_bad) {
  TH_GRID_STRIDE(i, n) {
    if (ids[i] >= limit) {
      atomicMin(first_bad, static_cast<ull>(i));
      return;
    }
  }
}

__global__ void __launch_bounds__(kThreads) FillKernel(ull* p, uint64_t n, ull value) {
  TH_GRID_STRIDE(i, n) { p[i] = value; }
}

__global__ void __launch_bounds__(kThreads) IotaKernel(uint32_t* p, uint64_t n) {
  TH_GRID_STRIDE(i, n) { p[i] = static_cast<uint32_t>(i); }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    GatherKernel(const T* __restrict__ src, const uint32_t* __restrict__ idx, uint64_t n,
                 T* __restrict__ dst) {
  TH_GRID_STRIDE(i, n) { dst[i] = src[idx[i]]; }
}

// keys[i] = ~keys[i] (reverses the order of int64 exactly), idx[i] = i.
__global__ void __launch_bounds__(kThreads)
    ComplementKeysKernel(int64_t* keys, uint32_t* idx, uint64_t n) {
  TH_GRID_STRIDE(i, n) {
    keys[i] = ~keys[i];
    idx[i] = static_cast<uint32_t>(i);
  }
}

// ---- ReduceByKey

enum ReduceKind : int { kRSum = 0, kRMin = 1, kRMax = 2, kRCount = 3 };

template <int Op>
__device__ __forceinline__ long long Combine(long long a, long long b) {
  if constexpr (Op == kRMin) {
    return a < b ? a : b;
  } else if constexpr (Op == kRMax) {
    return a > b ? a : b;
  } else {
    return static_cast<long long>(static_cast<ull>(a) + static_cast<ull>(b));  // wraps mod 2^64
  }
}

template <int Op>
__device__ __forceinline__ void AtomicCombine(ull* slot, long long v) {
  if constexpr (Op == kRMin) {
    atomicMin(reinterpret_cast<long long*>(slot), v);
  } else if constexpr (Op == kRMax) {
    atomicMax(reinterpret_cast<long long*>(slot), v);
  } else {
    atomicAdd(slot, static_cast<ull>(v));
  }
}

// out[k] (pre-filled with the identity) combined with every row of key k.
// Whole warps step together so a warp whose 32 rows share one key (sorted or
// all-equal keys) combines in registers and issues one atomic. With kShared,
// each block accumulates in shared memory first (num_keys <= kSharedReduceKeys).
template <int Op, bool kShared>
__global__ void __launch_bounds__(kThreads)
    ReduceByKeyKernel(const uint32_t* __restrict__ keys, const int64_t* __restrict__ values,
                      uint64_t n, uint32_t num_keys, ull identity, ull* out) {
  extern __shared__ ull shared_acc[];
  ull* acc = out;
  if constexpr (kShared) {
    for (uint32_t k = threadIdx.x; k < num_keys; k += blockDim.x) shared_acc[k] = identity;
    __syncthreads();
    acc = shared_acc;
  }
  const unsigned lane = threadIdx.x & 31u;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t base = static_cast<uint64_t>(blockIdx.x) * blockDim.x; base < n; base += stride) {
    const uint64_t i = base + threadIdx.x;
    const bool valid = i < n;
    const uint32_t k = valid ? keys[i] : 0u;
    long long v = static_cast<long long>(identity);
    if (valid) v = (Op == kRCount) ? 1 : static_cast<long long>(values[i]);
    const unsigned valid_lanes = __ballot_sync(kFullWarp, valid);
    const unsigned peers = __match_any_sync(kFullWarp, k) & valid_lanes;
    if (Op == kRCount) {
      if (valid && lane == static_cast<unsigned>(__ffs(peers) - 1)) {
        AtomicCombine<Op>(&acc[k], static_cast<long long>(__popc(peers)));
      }
    } else if (peers == kFullWarp) {
      for (int off = 16; off > 0; off >>= 1) v = Combine<Op>(v, __shfl_xor_sync(kFullWarp, v, off));
      if (lane == 0) AtomicCombine<Op>(&acc[k], v);
    } else if (valid) {
      AtomicCombine<Op>(&acc[k], v);
    }
  }
  if constexpr (kShared) {
    __syncthreads();
    for (uint32_t k = threadIdx.x; k < num_keys; k += blockDim.x) {
      const ull v = shared_acc[k];
      if (v != identity) AtomicCombine<Op>(&out[k], static_cast<long long>(v));
    }
  }
}

// ---- Histogram

struct BinParams {
  int64_t lo, hi;
  uint64_t range;  // hi - lo as unsigned (hi > lo)
  uint64_t bins;
};

// floor((v - lo) * bins / (hi - lo)) for lo <= v < hi, exact in 128 bits;
// below lo -> 0, at or above hi -> bins - 1.
__device__ __forceinline__ uint64_t BinOf(int64_t v, const BinParams& p) {
  if (v < p.lo) return 0;
  if (v >= p.hi) return p.bins - 1;
  const uint64_t d = static_cast<uint64_t>(v) - static_cast<uint64_t>(p.lo);  // < range
  const uint64_t prod_hi = __umul64hi(d, p.bins);
  const uint64_t prod_lo = d * p.bins;
  if (prod_hi == 0) return prod_lo / p.range;
  const unsigned __int128 prod = (static_cast<unsigned __int128>(prod_hi) << 64) | prod_lo;
  return static_cast<uint64_t>(prod / p.range);
}

template <bool kShared>
__global__ void __launch_bounds__(kThreads)
    HistogramKernel(const int64_t* __restrict__ values, uint64_t n, BinParams p, ull* out) {
  extern __shared__ unsigned shared_counts[];
  if constexpr (kShared) {
    for (uint64_t b = threadIdx.x; b < p.bins; b += blockDim.x) shared_counts[b] = 0;
    __syncthreads();
  }
  const unsigned lane = threadIdx.x & 31u;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t base = static_cast<uint64_t>(blockIdx.x) * blockDim.x; base < n; base += stride) {
    const uint64_t i = base + threadIdx.x;
    const bool valid = i < n;
    const uint64_t bin = valid ? BinOf(values[i], p) : 0;
    const unsigned valid_lanes = __ballot_sync(kFullWarp, valid);
    const unsigned peers = __match_any_sync(kFullWarp, static_cast<ull>(bin)) & valid_lanes;
    if (valid && lane == static_cast<unsigned>(__ffs(peers) - 1)) {
      if constexpr (kShared) {
        atomicAdd(&shared_counts[bin], static_cast<unsigned>(__popc(peers)));
      } else {
        atomicAdd(&out[bin], static_cast<ull>(__popc(peers)));
      }
    }
  }
  if constexpr (kShared) {
    __syncthreads();
    for (uint64_t b = threadIdx.x; b < p.bins; b += blockDim.x) {
      if (shared_counts[b] != 0) atomicAdd(&out[b], static_cast<ull>(shared_counts[b]));
    }
  }
}

// ---- Join

// out[i] = value of the first sorted row whose key equals probe[i] (sorting was
// stable, so it is the lowest build index with that key), else kNoMatch.
__global__ void __launch_bounds__(kThreads)
    JoinProbeKernel(const int64_t* __restrict__ sorted_keys,
                    const uint32_t* __restrict__ sorted_idx, uint64_t nb,
                    const int64_t* __restrict__ probe, uint64_t np, uint32_t* __restrict__ out) {
  TH_GRID_STRIDE(i, np) {
    const int64_t key = probe[i];
    uint64_t lo = 0, hi = nb;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (sorted_keys[mid] < key) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    out[i] = (lo < nb && sorted_keys[lo] == key) ? sorted_idx[lo] : kNoMatch;
  }
}

// ---- SegmentedPercentiles

// The segment s in [0, S) with offsets[s] <= pos < offsets[s + 1] (offsets is
// non-decreasing, offsets[0] <= pos < offsets[S]).
__device__ __forceinline__ uint32_t SegmentOf(const uint64_t* offsets, uint64_t num_segments,
                                              uint64_t pos) {
  uint64_t lo = 0, hi = num_segments + 1;  // first j with offsets[j] > pos
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (offsets[mid] <= pos) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return static_cast<uint32_t>(lo - 1);
}

__global__ void __launch_bounds__(kThreads)
    SegmentKeysKernel(const uint32_t* __restrict__ perm, uint64_t m,
                      const uint64_t* __restrict__ offsets, uint64_t num_segments,
                      uint32_t* __restrict__ seg) {
  TH_GRID_STRIDE(i, m) { seg[i] = SegmentOf(offsets, num_segments, offsets[0] + perm[i]); }
}

// out[s * P + j] = nearest-rank percentile pct[j] of sorted segment s:
// sorted[ceil(pct / 100 * n) - 1], the rank clamped to [1, n]; 0 when empty.
__global__ void __launch_bounds__(kThreads)
    PercentileKernel(const int64_t* __restrict__ sorted, const uint64_t* __restrict__ offsets,
                     uint64_t num_segments, const double* __restrict__ pct, uint64_t num_pct,
                     int64_t* __restrict__ out) {
  TH_GRID_STRIDE(t, num_segments * num_pct) {
    const uint64_t s = t / num_pct;
    const uint64_t j = t % num_pct;
    const uint64_t n = offsets[s + 1] - offsets[s];
    if (n == 0) {
      out[t] = 0;
      continue;
    }
    // Same IEEE operations, in the same order, as the host: p / 100.0 * n.
    const double r = ceil(__dmul_rn(__ddiv_rn(pct[j], 100.0), static_cast<double>(n)));
    uint64_t rank;
    if (!(r >= 1.0)) {
      rank = 1;
    } else if (r >= static_cast<double>(n)) {
      rank = n;
    } else {
      rank = static_cast<uint64_t>(r);
    }
    out[t] = sorted[offsets[s] - offsets[0] + rank - 1];
  }
}

// ---- Intervals

__global__ void __launch_bounds__(kThreads)
    NonEmptyFlagsKernel(const int64_t* __restrict__ b, const int64_t* __restrict__ e, uint64_t n,
                        uint32_t* __restrict__ flags) {
  TH_GRID_STRIDE(i, n) { flags[i] = e[i] > b[i] ? 1u : 0u; }
}

__global__ void __launch_bounds__(kThreads)
    CompactIntervalsKernel(const uint32_t* __restrict__ g, const int64_t* __restrict__ b,
                           const int64_t* __restrict__ e, const uint32_t* __restrict__ flags,
                           const uint32_t* __restrict__ pos, uint64_t n, uint32_t* __restrict__ og,
                           int64_t* __restrict__ ob, int64_t* __restrict__ ob_keys,
                           int64_t* __restrict__ oe) {
  TH_GRID_STRIDE(i, n) {
    if (flags[i] == 0) continue;
    const uint32_t p = pos[i];
    og[p] = g[i];
    ob[p] = b[i];
    ob_keys[p] = b[i];
    oe[p] = e[i];
  }
}

// Length of [b, e) not covered by the group's earlier intervals (in begin
// order): max(0, e - max(b, running max of earlier ends)), as unsigned.
__global__ void __launch_bounds__(kThreads)
    ContributionKernel(const uint32_t* __restrict__ g, const int64_t* __restrict__ b,
                       const int64_t* __restrict__ e, const int64_t* __restrict__ incl_max,
                       uint64_t m, ull* __restrict__ contrib) {
  TH_GRID_STRIDE(i, m) {
    int64_t start = b[i];
    if (i > 0 && g[i - 1] == g[i] && incl_max[i - 1] > start) start = incl_max[i - 1];
    contrib[i] = e[i] > start ? static_cast<ull>(e[i]) - static_cast<ull>(start) : 0ull;
  }
}

// For each group's first row i: before[g] = prefix[i - 1] (0 at row 0).
__global__ void __launch_bounds__(kThreads)
    GroupStartKernel(const uint32_t* __restrict__ g, const ull* __restrict__ prefix, uint64_t m,
                     ull* __restrict__ before) {
  TH_GRID_STRIDE(i, m) {
    if (i == 0) {
      before[g[0]] = 0;
    } else if (g[i - 1] != g[i]) {
      before[g[i]] = prefix[i - 1];
    }
  }
}

// For each group's last row i: sums[g] = prefix[i] - before[g].
__global__ void __launch_bounds__(kThreads)
    GroupEndKernel(const uint32_t* __restrict__ g, const ull* __restrict__ prefix,
                   const ull* __restrict__ before, uint64_t m, ull* __restrict__ sums) {
  TH_GRID_STRIDE(i, m) {
    if (i + 1 == m || g[i + 1] != g[i]) sums[g[i]] = prefix[i] - before[g[i]];
  }
}

// A gap precedes row i when it starts a new union component of its group.
__global__ void __launch_bounds__(kThreads)
    GapFlagsKernel(const uint32_t* __restrict__ g, const int64_t* __restrict__ b,
                   const int64_t* __restrict__ incl_max, uint64_t m, uint32_t* __restrict__ flags) {
  TH_GRID_STRIDE(i, m) {
    flags[i] = (i > 0 && g[i - 1] == g[i] && b[i] > incl_max[i - 1]) ? 1u : 0u;
  }
}

__global__ void __launch_bounds__(kThreads)
    GapScatterKernel(const uint32_t* __restrict__ g, const int64_t* __restrict__ b,
                     const int64_t* __restrict__ incl_max, const uint32_t* __restrict__ flags,
                     const uint32_t* __restrict__ pos, uint64_t m, uint32_t* __restrict__ og,
                     int64_t* __restrict__ ob, int64_t* __restrict__ oe) {
  TH_GRID_STRIDE(i, m) {
    if (flags[i] == 0) continue;
    const uint32_t p = pos[i];
    og[p] = g[i];
    ob[p] = incl_max[i - 1];
    oe[p] = b[i];
  }
}

// a[g] = a[g] + b[g] - ab[g] (|A| + |B| - |A u B| = |A n B|).
__global__ void __launch_bounds__(kThreads)
    OverlapKernel(ull* __restrict__ a, const ull* __restrict__ b, const ull* __restrict__ ab,
                  uint64_t n) {
  TH_GRID_STRIDE(i, n) { a[i] = a[i] + b[i] - ab[i]; }
}

#undef TH_GRID_STRIDE

// ------------------------------------------------------ host-side steps ---

void Fill(const DeviceContext& ctx, ull* p, uint64_t n, ull value) {
  if (n == 0) return;
  FillKernel<<<Blocks(ctx, n), kThreads, 0, ctx.stream>>>(p, n, value);
  CheckLaunch("FillKernel");
}

void Iota(const DeviceContext& ctx, uint32_t* p, uint64_t n) {
  IotaKernel<<<Blocks(ctx, n), kThreads, 0, ctx.stream>>>(p, n);
  CheckLaunch("IotaKernel");
}

template <typename T>
void Gather(const DeviceContext& ctx, const T* src, const uint32_t* idx, uint64_t n, T* dst) {
  GatherKernel<T><<<Blocks(ctx, n), kThreads, 0, ctx.stream>>>(src, idx, n, dst);
  CheckLaunch("GatherKernel");
}

// Stable ascending radix sort of (int64 key, uint32 value) pairs, n >= 1.
void SortPairs(const DeviceContext& ctx, cub::DoubleBuffer<int64_t>& keys,
               cub::DoubleBuffer<uint32_t>& values, uint32_t n) {
  RunCub(ctx, "cub::DeviceRadixSort::SortPairs", [&](void* temp, size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, values, n, 0, 64, ctx.stream);
  });
}

// Stable ascending radix sort of (uint32 key, uint32 value) pairs on the low
// end_bit key bits (keys < 2^end_bit), n >= 1, end_bit >= 1.
void SortPairs(const DeviceContext& ctx, cub::DoubleBuffer<uint32_t>& keys,
               cub::DoubleBuffer<uint32_t>& values, uint32_t n, int end_bit) {
  RunCub(ctx, "cub::DeviceRadixSort::SortPairs", [&](void* temp, size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, values, n, 0, end_bit, ctx.stream);
  });
}

// pos = exclusive prefix sum of flags (n >= 1); returns the total.
uint32_t ExclusiveSum(const DeviceContext& ctx, const uint32_t* flags, uint32_t* pos, uint32_t n) {
  RunCub(ctx, "cub::DeviceScan::ExclusiveSum", [&](void* temp, size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(temp, bytes, flags, pos, n, ctx.stream);
  });
  uint32_t last_pos = 0, last_flag = 0;
  ToHost(ctx, &last_pos, pos + n - 1, 1);
  ToHost(ctx, &last_flag, flags + n - 1, 1);
  Sync(ctx);
  return last_pos + last_flag;
}

// The lowest row whose id is >= limit, or n when all are in range.
uint64_t FirstBadId(const DeviceContext& ctx, const uint32_t* ids, uint64_t n, uint64_t limit) {
  if (n == 0) return 0;
  DevBuf<ull> first(ctx, 1);
  Fill(ctx, first.get(), 1, ~0ull);
  FirstBadIdKernel<<<Blocks(ctx, n), kThreads, 0, ctx.stream>>>(ids, n, limit, first.get());
  CheckLaunch("FirstBadIdKernel");
  ull host = 0;
  ToHost(ctx, &host, first.get(), 1);
  Sync(ctx);
  return host == ~0ull ? n : host;
}

// Non-empty intervals sorted by (group, begin), with the running max of ends
// within each group (inclusive).
struct SortedIntervals {
  uint32_t m = 0;
  const uint32_t* g = nullptr;  // points into one of the group buffers
  DevBuf<uint32_t> g0, g1;
  DevBuf<int64_t> b, e, incl_max;
};

// Intervals in device memory, groups already checked to be < num_groups.
SortedIntervals SortAndScan(const DeviceContext& ctx, const uint32_t* g, const int64_t* b,
                            const int64_t* e, uint32_t n, uint64_t num_groups) {
  SortedIntervals out;
  if (n == 0) return out;

  // Keep the non-empty intervals (end > begin).
  DevBuf<uint32_t> flags(ctx, n), pos(ctx, n);
  NonEmptyFlagsKernel<<<Blocks(ctx, n), kThreads, 0, ctx.stream>>>(b, e, n, flags.get());
  CheckLaunch("NonEmptyFlagsKernel");
  const uint32_t m = ExclusiveSum(ctx, flags.get(), pos.get(), n);
  if (m == 0) return out;
  DevBuf<uint32_t> cg(ctx, m);
  DevBuf<int64_t> cb(ctx, m), ce(ctx, m), k0(ctx, m), k1(ctx, m);
  CompactIntervalsKernel<<<Blocks(ctx, n), kThreads, 0, ctx.stream>>>(
      g, b, e, flags.get(), pos.get(), n, cg.get(), cb.get(), k0.get(), ce.get());
  CheckLaunch("CompactIntervalsKernel");
  flags = DevBuf<uint32_t>();
  pos = DevBuf<uint32_t>();

  // Sort by begin, then stably by group: order (group, begin).
  DevBuf<uint32_t> p0(ctx, m), p1(ctx, m);
  Iota(ctx, p0.get(), m);
  cub::DoubleBuffer<int64_t> keys(k0.get(), k1.get());
  cub::DoubleBuffer<uint32_t> perm(p0.get(), p1.get());
  SortPairs(ctx, keys, perm, m);
  k0 = DevBuf<int64_t>();
  k1 = DevBuf<int64_t>();
  const int group_bits = std::min(BitsFor(num_groups - 1), 32);  // ids are uint32
  if (group_bits > 0) {
    out.g0 = DevBuf<uint32_t>(ctx, m);
    out.g1 = DevBuf<uint32_t>(ctx, m);
    Gather(ctx, cg.get(), perm.Current(), m, out.g0.get());
    cub::DoubleBuffer<uint32_t> groups(out.g0.get(), out.g1.get());
    SortPairs(ctx, groups, perm, m, group_bits);
    out.g = groups.Current();
  } else {  // one group: every id is 0
    out.g0 = std::move(cg);
    out.g = out.g0.get();
  }
  out.b = DevBuf<int64_t>(ctx, m);
  out.e = DevBuf<int64_t>(ctx, m);
  Gather(ctx, cb.get(), perm.Current(), m, out.b.get());
  Gather(ctx, ce.get(), perm.Current(), m, out.e.get());

  out.incl_max = DevBuf<int64_t>(ctx, m);
  const uint32_t* keys_in = out.g;
  const int64_t* ends = out.e.get();
  int64_t* incl = out.incl_max.get();
  RunCub(ctx, "cub::DeviceScan::InclusiveScanByKey", [&](void* temp, size_t& bytes) {
    return cub::DeviceScan::InclusiveScanByKey(temp, bytes, keys_in, ends, incl,
                                               ::cuda::maximum<>{}, m, ::cuda::std::equal_to<>{},
                                               ctx.stream);
  });
  out.m = m;
  return out;
}

// Union length per group, as uint64 bits, for groups < num_groups.
DevBuf<ull> UnionLengths(const DeviceContext& ctx, const uint32_t* g, const int64_t* b,
                         const int64_t* e, uint32_t n, uint64_t num_groups) {
  DevBuf<ull> sums(ctx, num_groups);
  Fill(ctx, sums.get(), num_groups, 0);
  SortedIntervals s = SortAndScan(ctx, g, b, e, n, num_groups);
  if (s.m == 0) return sums;
  DevBuf<ull> prefix(ctx, s.m);
  ContributionKernel<<<Blocks(ctx, s.m), kThreads, 0, ctx.stream>>>(
      s.g, s.b.get(), s.e.get(), s.incl_max.get(), s.m, prefix.get());
  CheckLaunch("ContributionKernel");
  ull* data = prefix.get();
  const uint32_t m = s.m;
  RunCub(ctx, "cub::DeviceScan::InclusiveSum", [&](void* temp, size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(temp, bytes, data, data, m, ctx.stream);
  });
  DevBuf<ull> before(ctx, num_groups);
  GroupStartKernel<<<Blocks(ctx, m), kThreads, 0, ctx.stream>>>(s.g, data, m, before.get());
  CheckLaunch("GroupStartKernel");
  GroupEndKernel<<<Blocks(ctx, m), kThreads, 0, ctx.stream>>>(s.g, data, before.get(), m,
                                                              sums.get());
  CheckLaunch("GroupEndKernel");
  return sums;
}

std::string RowError(const char* what, uint64_t row, uint64_t id, uint64_t limit) {
  return std::string(what) + " " + std::to_string(id) + " at row " + std::to_string(row) +
         " is not below " + std::to_string(limit);
}

KernelStatus CheckColumns(const IntervalColumns& c, const char* name) {
  if (c.group.size() != c.begin.size() || c.end.size() != c.begin.size()) {
    return KernelStatus(std::string(name) + ": group, begin and end differ in length (" +
                        std::to_string(c.group.size()) + ", " + std::to_string(c.begin.size()) +
                        ", " + std::to_string(c.end.size()) + ")");
  }
  return {};
}

KernelStatus TooManyRows(uint64_t n) {
  return KernelStatus(std::to_string(n) +
                      " rows; the CUDA backend takes at most 4294967295 per call");
}

// ---------------------------------------------------------------- engine ---

class CudaEngine final : public Engine {
 public:
  CudaEngine(int device, const DeviceContext& ctx) : device_(device), ctx_(ctx) {}
  ~CudaEngine() override {
    (void)cudaSetDevice(device_);
    (void)cudaStreamSynchronize(ctx_.stream);
    (void)cudaStreamDestroy(ctx_.stream);
  }

  Backend backend() const override { return Backend::kCuda; }

  KernelStatus SortByKey(std::span<int64_t> keys, std::span<uint32_t> values) override {
    return Run("SortByKey", [&]() -> KernelStatus {
      if (keys.size() != values.size()) {
        return KernelStatus("keys and values differ in length (" + std::to_string(keys.size()) +
                            " vs " + std::to_string(values.size()) + ")");
      }
      const uint64_t n = keys.size();
      if (n == 0) return {};
      if (n > kMaxRows) return TooManyRows(n);
      DevBuf<int64_t> k0 = Upload(ctx_, keys.data(), n), k1(ctx_, n);
      DevBuf<uint32_t> v0 = Upload(ctx_, values.data(), n), v1(ctx_, n);
      cub::DoubleBuffer<int64_t> k(k0.get(), k1.get());
      cub::DoubleBuffer<uint32_t> v(v0.get(), v1.get());
      SortPairs(ctx_, k, v, static_cast<uint32_t>(n));
      ToHost(ctx_, keys.data(), k.Current(), n);
      ToHost(ctx_, values.data(), v.Current(), n);
      return {};
    });
  }

  KernelStatus ReduceByKey(std::span<const uint32_t> keys, std::span<const int64_t> values,
                           ReduceOp op, std::span<int64_t> out) override {
    return Run("ReduceByKey", [&]() -> KernelStatus {
      const uint64_t n = keys.size();
      const bool count = op == ReduceOp::kCount;
      // kCount reads no values, whatever their length (as on the CPU).
      if (!count && values.size() != n) {
        return KernelStatus("keys and values differ in length (" + std::to_string(n) + " vs " +
                            std::to_string(values.size()) + ")");
      }
      ull identity = 0;
      if (op == ReduceOp::kMin) identity = static_cast<ull>(std::numeric_limits<int64_t>::max());
      if (op == ReduceOp::kMax) identity = static_cast<ull>(std::numeric_limits<int64_t>::min());
      const uint64_t num_keys = out.size();
      if (n == 0) {
        std::fill(out.begin(), out.end(), static_cast<int64_t>(identity));
        return {};
      }
      if (num_keys == 0) return KernelStatus(RowError("key", 0, keys[0], 0));

      DevBuf<uint32_t> d_keys = Upload(ctx_, keys.data(), n);
      if (const uint64_t bad = FirstBadId(ctx_, d_keys.get(), n, num_keys); bad < n) {
        return KernelStatus(RowError("key", bad, keys[bad], num_keys));
      }
      DevBuf<int64_t> d_values;
      if (!count) d_values = Upload(ctx_, values.data(), n);
      DevBuf<ull> d_out(ctx_, num_keys);
      Fill(ctx_, d_out.get(), num_keys, identity);
      const bool shared = num_keys <= kSharedReduceKeys;
      const unsigned blocks = Blocks(ctx_, n, shared ? 8 : 16);
      const size_t smem = shared ? num_keys * sizeof(ull) : 0;
      const uint32_t nk = static_cast<uint32_t>(std::min<uint64_t>(num_keys, 0xFFFFFFFFu));
      switch (op) {
        case ReduceOp::kSum:
          Launch<kRSum>(shared, blocks, smem, d_keys.get(), d_values.get(), n, nk, identity,
                        d_out.get());
          break;
        case ReduceOp::kMin:
          Launch<kRMin>(shared, blocks, smem, d_keys.get(), d_values.get(), n, nk, identity,
                        d_out.get());
          break;
        case ReduceOp::kMax:
          Launch<kRMax>(shared, blocks, smem, d_keys.get(), d_values.get(), n, nk, identity,
                        d_out.get());
          break;
        case ReduceOp::kCount:
          Launch<kRCount>(shared, blocks, smem, d_keys.get(), d_values.get(), n, nk, identity,
                          d_out.get());
          break;
        default:
          return KernelStatus("unknown ReduceOp " + std::to_string(static_cast<int>(op)));
      }
      ToHost(ctx_, out.data(), d_out.get(), num_keys);
      return {};
    });
  }

  KernelStatus SegmentedPercentiles(std::span<const int64_t> values,
                                    std::span<const uint64_t> offsets,
                                    std::span<const double> percentiles,
                                    std::span<int64_t> out) override {
    return Run("SegmentedPercentiles", [&]() -> KernelStatus {
      const uint64_t num_segments = offsets.empty() ? 0 : offsets.size() - 1;
      const uint64_t num_pct = percentiles.size();
      if (num_pct != 0 && num_segments > std::numeric_limits<uint64_t>::max() / num_pct) {
        return KernelStatus("too many segments x percentiles");
      }
      if (out.size() != num_segments * num_pct) {
        return KernelStatus("out has " + std::to_string(out.size()) + " slots; " +
                            std::to_string(num_segments) + " segments x " +
                            std::to_string(num_pct) + " percentiles need " +
                            std::to_string(num_segments * num_pct));
      }
      for (double p : percentiles) {
        if (!(p > 0.0 && p <= 100.0)) {
          return KernelStatus("percentile " + std::to_string(p) + " is outside (0, 100]");
        }
      }
      if (!offsets.empty() && offsets.back() > values.size()) {
        return KernelStatus("offsets end at " + std::to_string(offsets.back()) + ", beyond the " +
                            std::to_string(values.size()) + " values");
      }
      if (num_segments == 0 || num_pct == 0) return {};
      if (num_segments > kMaxRows) {
        return KernelStatus(std::to_string(num_segments) +
                            " segments; the CUDA backend takes at most 4294967295");
      }
      // Segments are values[offsets[s], offsets[s + 1]), empty when the end is
      // not past the begin. Where offsets ever decrease, segments may overlap:
      // pack each one's values, in segment order, so the device sees
      // contiguous, non-decreasing offsets.
      std::vector<uint64_t> packed_offsets;
      std::vector<int64_t> packed_values;
      bool monotone = true;
      for (uint64_t s = 0; s < num_segments && monotone; ++s)
        monotone = offsets[s + 1] >= offsets[s];
      if (!monotone) {
        packed_offsets.assign(1, 0);
        for (uint64_t s = 0; s < num_segments; ++s) {
          const uint64_t b = offsets[s], e = offsets[s + 1];
          if (e > b && e > values.size()) {
            return KernelStatus("segment " + std::to_string(s) + " ends at " + std::to_string(e) +
                                ", beyond the " + std::to_string(values.size()) + " values");
          }
          if (e > b)
            packed_values.insert(packed_values.end(), values.begin() + b, values.begin() + e);
          packed_offsets.push_back(packed_values.size());
        }
        offsets = packed_offsets;
        values = packed_values;
      }
      const uint64_t first = offsets[0];
      const uint64_t m = offsets[num_segments] - first;
      if (m == 0) {
        std::fill(out.begin(), out.end(), 0);
        return {};
      }
      if (m > kMaxRows) return TooManyRows(m);

      // Sort the values (carrying their positions), then stably by segment.
      DevBuf<int64_t> k0 = Upload(ctx_, values.data() + first, m), k1(ctx_, m);
      DevBuf<uint32_t> v0(ctx_, m), v1(ctx_, m);
      Iota(ctx_, v0.get(), m);
      cub::DoubleBuffer<int64_t> vals(k0.get(), k1.get());
      cub::DoubleBuffer<uint32_t> perm(v0.get(), v1.get());
      SortPairs(ctx_, vals, perm, static_cast<uint32_t>(m));
      DevBuf<uint64_t> d_offsets = Upload(ctx_, offsets.data(), offsets.size());
      const int64_t* sorted = vals.Current();
      DevBuf<int64_t> by_segment;
      if (num_segments > 1) {
        DevBuf<uint32_t> s0(ctx_, m), s1(ctx_, m);
        SegmentKeysKernel<<<Blocks(ctx_, m), kThreads, 0, ctx_.stream>>>(
            perm.Current(), m, d_offsets.get(), num_segments, s0.get());
        CheckLaunch("SegmentKeysKernel");
        // The value permutation is spent; its buffers now carry sorted positions.
        cub::DoubleBuffer<uint32_t> where(v0.get(), v1.get());
        Iota(ctx_, where.Current(), m);
        cub::DoubleBuffer<uint32_t> segs(s0.get(), s1.get());
        SortPairs(ctx_, segs, where, static_cast<uint32_t>(m), BitsFor(num_segments - 1));
        by_segment = DevBuf<int64_t>(ctx_, m);
        Gather(ctx_, sorted, where.Current(), m, by_segment.get());
        sorted = by_segment.get();
      }
      DevBuf<double> d_pct = Upload(ctx_, percentiles.data(), num_pct);
      DevBuf<int64_t> d_out(ctx_, out.size());
      PercentileKernel<<<Blocks(ctx_, out.size()), kThreads, 0, ctx_.stream>>>(
          sorted, d_offsets.get(), num_segments, d_pct.get(), num_pct, d_out.get());
      CheckLaunch("PercentileKernel");
      ToHost(ctx_, out.data(), d_out.get(), out.size());
      return {};
    });
  }

  KernelStatus IntervalUnion(const IntervalColumns& intervals, std::span<int64_t> out) override {
    return Run("IntervalUnion", [&]() -> KernelStatus {
      if (KernelStatus st = CheckColumns(intervals, "intervals"); !st.ok()) return st;
      const uint64_t n = intervals.size();
      const uint64_t num_groups = out.size();
      if (n == 0) {
        std::fill(out.begin(), out.end(), 0);
        return {};
      }
      if (n > kMaxRows) return TooManyRows(n);
      DevBuf<uint32_t> g = Upload(ctx_, intervals.group.data(), n);
      if (const uint64_t bad = FirstBadId(ctx_, g.get(), n, num_groups); bad < n) {
        return KernelStatus(RowError("group", bad, intervals.group[bad], num_groups));
      }
      DevBuf<int64_t> b = Upload(ctx_, intervals.begin.data(), n);
      DevBuf<int64_t> e = Upload(ctx_, intervals.end.data(), n);
      DevBuf<ull> sums =
          UnionLengths(ctx_, g.get(), b.get(), e.get(), static_cast<uint32_t>(n), num_groups);
      ToHost(ctx_, out.data(), sums.get(), num_groups);
      return {};
    });
  }

  KernelStatus IntervalOverlap(const IntervalColumns& a, const IntervalColumns& b,
                               std::span<int64_t> out) override {
    return Run("IntervalOverlap", [&]() -> KernelStatus {
      if (KernelStatus st = CheckColumns(a, "a"); !st.ok()) return st;
      if (KernelStatus st = CheckColumns(b, "b"); !st.ok()) return st;
      const uint64_t na = a.size(), nb = b.size(), n = na + nb;
      const uint64_t num_groups = out.size();
      if (n == 0) {
        std::fill(out.begin(), out.end(), 0);
        return {};
      }
      if (n > kMaxRows) return TooManyRows(n);
      // A then B in one set of columns: |A|, |B| and |A u B| come from slices.
      DevBuf<uint32_t> g(ctx_, n);
      DevBuf<int64_t> bg(ctx_, n), en(ctx_, n);
      ToDevice(ctx_, g.get(), a.group.data(), na);
      ToDevice(ctx_, g.get() + na, b.group.data(), nb);
      if (const uint64_t bad = FirstBadId(ctx_, g.get(), n, num_groups); bad < n) {
        return bad < na ? KernelStatus("a: " + RowError("group", bad, a.group[bad], num_groups))
                        : KernelStatus("b: " +
                                       RowError("group", bad - na, b.group[bad - na], num_groups));
      }
      if (na == 0 || nb == 0) {  // one side empty: nothing overlaps (ids were still checked)
        std::fill(out.begin(), out.end(), 0);
        return {};
      }
      ToDevice(ctx_, bg.get(), a.begin.data(), na);
      ToDevice(ctx_, bg.get() + na, b.begin.data(), nb);
      ToDevice(ctx_, en.get(), a.end.data(), na);
      ToDevice(ctx_, en.get() + na, b.end.data(), nb);
      DevBuf<ull> ua =
          UnionLengths(ctx_, g.get(), bg.get(), en.get(), static_cast<uint32_t>(na), num_groups);
      DevBuf<ull> ub = UnionLengths(ctx_, g.get() + na, bg.get() + na, en.get() + na,
                                    static_cast<uint32_t>(nb), num_groups);
      DevBuf<ull> uab =
          UnionLengths(ctx_, g.get(), bg.get(), en.get(), static_cast<uint32_t>(n), num_groups);
      OverlapKernel<<<Blocks(ctx_, num_groups), kThreads, 0, ctx_.stream>>>(ua.get(), ub.get(),
                                                                            uab.get(), num_groups);
      CheckLaunch("OverlapKernel");
      ToHost(ctx_, out.data(), ua.get(), num_groups);
      return {};
    });
  }

  KernelStatus Gaps(const IntervalColumns& intervals, uint32_t num_groups, GapList* out) override {
    return Run("Gaps", [&]() -> KernelStatus {
      if (out == nullptr) return KernelStatus("out is null");
      out->group.clear();
      out->begin.clear();
      out->end.clear();
      if (KernelStatus st = CheckColumns(intervals, "intervals"); !st.ok()) return st;
      const uint64_t n = intervals.size();
      if (n == 0) return {};
      if (n > kMaxRows) return TooManyRows(n);
      DevBuf<uint32_t> g = Upload(ctx_, intervals.group.data(), n);
      if (const uint64_t bad = FirstBadId(ctx_, g.get(), n, num_groups); bad < n) {
        return KernelStatus(RowError("group", bad, intervals.group[bad], num_groups));
      }
      DevBuf<int64_t> b = Upload(ctx_, intervals.begin.data(), n);
      DevBuf<int64_t> e = Upload(ctx_, intervals.end.data(), n);
      SortedIntervals s =
          SortAndScan(ctx_, g.get(), b.get(), e.get(), static_cast<uint32_t>(n), num_groups);
      if (s.m < 2) return {};
      DevBuf<uint32_t> flags(ctx_, s.m), pos(ctx_, s.m);
      GapFlagsKernel<<<Blocks(ctx_, s.m), kThreads, 0, ctx_.stream>>>(
          s.g, s.b.get(), s.incl_max.get(), s.m, flags.get());
      CheckLaunch("GapFlagsKernel");
      const uint32_t count = ExclusiveSum(ctx_, flags.get(), pos.get(), s.m);
      if (count == 0) return {};
      DevBuf<uint32_t> gg(ctx_, count);
      DevBuf<int64_t> gb(ctx_, count), ge(ctx_, count);
      GapScatterKernel<<<Blocks(ctx_, s.m), kThreads, 0, ctx_.stream>>>(
          s.g, s.b.get(), s.incl_max.get(), flags.get(), pos.get(), s.m, gg.get(), gb.get(),
          ge.get());
      CheckLaunch("GapScatterKernel");
      out->group.resize(count);
      out->begin.resize(count);
      out->end.resize(count);
      ToHost(ctx_, out->group.data(), gg.get(), count);
      ToHost(ctx_, out->begin.data(), gb.get(), count);
      ToHost(ctx_, out->end.data(), ge.get(), count);
      return {};
    });
  }

  KernelStatus Histogram(std::span<const int64_t> values, int64_t lo, int64_t hi,
                         std::span<uint64_t> out) override {
    return Run("Histogram", [&]() -> KernelStatus {
      const uint64_t bins = out.size();
      if (bins == 0) return KernelStatus("no bins (out is empty)");
      if (hi <= lo) {
        return KernelStatus("empty range: hi " + std::to_string(hi) + " <= lo " +
                            std::to_string(lo));
      }
      const uint64_t n = values.size();
      std::fill(out.begin(), out.end(), 0);
      if (n == 0) return {};
      DevBuf<int64_t> d_values = Upload(ctx_, values.data(), n);
      DevBuf<ull> d_out(ctx_, bins);
      Fill(ctx_, d_out.get(), bins, 0);
      const BinParams p{lo, hi, static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo), bins};
      if (bins <= kSharedHistogramBins) {
        HistogramKernel<true>
            <<<Blocks(ctx_, n, 8), kThreads, bins * sizeof(unsigned), ctx_.stream>>>(
                d_values.get(), n, p, d_out.get());
      } else {
        HistogramKernel<false>
            <<<Blocks(ctx_, n), kThreads, 0, ctx_.stream>>>(d_values.get(), n, p, d_out.get());
      }
      CheckLaunch("HistogramKernel");
      ToHost(ctx_, out.data(), d_out.get(), bins);
      return {};
    });
  }

  KernelStatus TopK(std::span<const int64_t> values, uint32_t k,
                    std::vector<uint32_t>* out) override {
    return Run("TopK", [&]() -> KernelStatus {
      if (out == nullptr) return KernelStatus("out is null");
      out->clear();
      const uint64_t n = values.size();
      if (n > kMaxRows) return TooManyRows(n);
      const uint64_t take = std::min<uint64_t>(k, n);
      if (take == 0) return {};
      // Ascending stable sort of ~value = descending by value, ties by index.
      DevBuf<int64_t> k0 = Upload(ctx_, values.data(), n), k1(ctx_, n);
      DevBuf<uint32_t> v0(ctx_, n), v1(ctx_, n);
      ComplementKeysKernel<<<Blocks(ctx_, n), kThreads, 0, ctx_.stream>>>(k0.get(), v0.get(), n);
      CheckLaunch("ComplementKeysKernel");
      cub::DoubleBuffer<int64_t> keys(k0.get(), k1.get());
      cub::DoubleBuffer<uint32_t> idx(v0.get(), v1.get());
      SortPairs(ctx_, keys, idx, static_cast<uint32_t>(n));
      out->resize(take);
      ToHost(ctx_, out->data(), idx.Current(), take);
      return {};
    });
  }

  KernelStatus Join(std::span<const int64_t> build, std::span<const int64_t> probe,
                    std::span<uint32_t> out) override {
    return Run("Join", [&]() -> KernelStatus {
      if (out.size() != probe.size()) {
        return KernelStatus("out and probe differ in length (" + std::to_string(out.size()) +
                            " vs " + std::to_string(probe.size()) + ")");
      }
      const uint64_t nb = build.size(), np = probe.size();
      if (nb >= kNoMatch) {
        return KernelStatus("build has " + std::to_string(nb) +
                            " rows; at most 4294967294 fit beside kNoMatch");
      }
      if (np == 0) return {};
      if (nb == 0) {
        std::fill(out.begin(), out.end(), kNoMatch);
        return {};
      }
      DevBuf<int64_t> k0 = Upload(ctx_, build.data(), nb), k1(ctx_, nb);
      DevBuf<uint32_t> v0(ctx_, nb), v1(ctx_, nb);
      Iota(ctx_, v0.get(), nb);
      cub::DoubleBuffer<int64_t> keys(k0.get(), k1.get());
      cub::DoubleBuffer<uint32_t> idx(v0.get(), v1.get());
      SortPairs(ctx_, keys, idx, static_cast<uint32_t>(nb));
      DevBuf<int64_t> d_probe = Upload(ctx_, probe.data(), np);
      DevBuf<uint32_t> d_out(ctx_, np);
      JoinProbeKernel<<<Blocks(ctx_, np), kThreads, 0, ctx_.stream>>>(
          keys.Current(), idx.Current(), nb, d_probe.get(), np, d_out.get());
      CheckLaunch("JoinProbeKernel");
      ToHost(ctx_, out.data(), d_out.get(), np);
      return {};
    });
  }

 private:
  template <int Op>
  void Launch(bool shared, unsigned blocks, size_t smem, const uint32_t* keys,
              const int64_t* values, uint64_t n, uint32_t num_keys, ull identity, ull* out) {
    if (shared) {
      ReduceByKeyKernel<Op, true>
          <<<blocks, kThreads, smem, ctx_.stream>>>(keys, values, n, num_keys, identity, out);
    } else {
      ReduceByKeyKernel<Op, false>
          <<<blocks, kThreads, 0, ctx_.stream>>>(keys, values, n, num_keys, identity, out);
    }
    CheckLaunch("ReduceByKeyKernel");
  }

  // Runs one primitive: selects the device, turns CUDA failures and host
  // allocation failures into a KernelStatus, and waits for the stream.
  template <typename Body>
  KernelStatus Run(const char* name, Body&& body) {
    const auto fail = [&](const std::string& why) {
      return KernelStatus(std::string(name) + " (cuda): " + why);
    };
    try {
      Check(cudaSetDevice(device_), "cudaSetDevice");
      KernelStatus st = body();
      Sync(ctx_);
      if (!st.ok()) return fail(st.message());
      return st;
    } catch (const CudaFailure& e) {
      (void)cudaStreamSynchronize(ctx_.stream);
      (void)cudaGetLastError();
      return fail(std::string("CUDA error: ") + e.what());
    } catch (const std::bad_alloc&) {
      (void)cudaStreamSynchronize(ctx_.stream);
      return fail("out of host memory");
    } catch (const std::exception& e) {
      (void)cudaStreamSynchronize(ctx_.stream);
      return fail(e.what());
    }
  }

  int device_;
  DeviceContext ctx_;
};

std::string CudaText(cudaError_t err) { return cudaGetErrorString(err); }

}  // namespace

bool CudaBuilt() { return true; }

std::unique_ptr<Engine> MakeCudaEngine(std::string* why_not) {
  const auto fail = [&](std::string why) -> std::unique_ptr<Engine> {
    (void)cudaGetLastError();
    if (why_not != nullptr) *why_not = std::move(why);
    return nullptr;
  };
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return fail("no CUDA device: " + CudaText(err));
  if (count <= 0) return fail("no CUDA device: " + CudaText(cudaErrorNoDevice));

  const int device = 0;
  if ((err = cudaSetDevice(device)) != cudaSuccess)
    return fail("CUDA device 0 is unusable: " + CudaText(err));
  DeviceContext ctx;
  if ((err = cudaDeviceGetAttribute(&ctx.sms, cudaDevAttrMultiProcessorCount, device)) !=
      cudaSuccess) {
    return fail("CUDA device 0 is unusable: " + CudaText(err));
  }
  int major = 0, minor = 0;
  (void)cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  (void)cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  // A device this build has no code for fails here rather than on first use.
  cudaFuncAttributes attrs{};
  if ((err = cudaFuncGetAttributes(&attrs, IotaKernel)) != cudaSuccess) {
    return fail("CUDA device 0 (sm_" + std::to_string(major) + std::to_string(minor) +
                ") cannot run tracehound's kernels: " + CudaText(err) +
                " (rebuild with CMAKE_CUDA_ARCHITECTURES including " + std::to_string(major) +
                std::to_string(minor) + ")");
  }
  int pools = 0;
  (void)cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device);
  ctx.pools = pools != 0;
  if (ctx.pools) {
    // Keep freed device memory in the pool between calls instead of returning
    // it to the driver at every synchronization.
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
      uint64_t threshold = std::numeric_limits<uint64_t>::max();
      (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
    }
  }
  if ((err = cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking)) != cudaSuccess) {
    return fail("CUDA device 0 is unusable: " + CudaText(err));
  }
  (void)cudaGetLastError();
  return std::make_unique<CudaEngine>(device, ctx);
}

std::vector<std::string> CudaDevices() {
  std::vector<std::string> names;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return names;
  }
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) {
      (void)cudaGetLastError();
      continue;
    }
    const unsigned long long gib =
        (static_cast<unsigned long long>(prop.totalGlobalMem) + (1ull << 29)) >> 30;
    char line[384];
    std::snprintf(line, sizeof line, "%s (sm_%d%d, %llu GiB)", prop.name, prop.major, prop.minor,
                  gib);
    names.emplace_back(line);
  }
  return names;
}

}  // namespace th::kernels
