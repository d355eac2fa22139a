// Device code of the shared GPU engine: the custom grid-stride kernels the
// primitives launch where no library algorithm is the primitive (fills,
// sequences, gathers, scans, sorts and reductions are the shim's device-wide
// algorithms), over a runtime shim (cuda_runtime_shim.h or hip_runtime_shim.h,
// included first) for what differs between devices: warp peers, shuffles,
// signed 64-bit atomics and 128-bit division.
#pragma once

#include <cstdint>

#include "kernels/gpu/require_runtime_shim.h"
#include "tracehound/kernels/primitives.h"

namespace th::kernels {
namespace {

using ull = unsigned long long;

constexpr int kThreads = 256;

#define TH_GRID_STRIDE(i, n)                                                               \
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<uint64_t>(gridDim.x) * blockDim.x)

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
    gpu::AtomicMinInt64(reinterpret_cast<long long*>(slot), v);
  } else if constexpr (Op == kRMax) {
    gpu::AtomicMaxInt64(reinterpret_cast<long long*>(slot), v);
  } else {
    atomicAdd(slot, static_cast<ull>(v));
  }
}

// v combined over every lane of the warp (all lanes take part).
template <int Op>
__device__ __forceinline__ long long WarpCombine(long long v) {
  for (int off = gpu::WarpLanes() / 2; off > 0; off >>= 1) {
    v = Combine<Op>(v, gpu::ShuffleXor(v, off));
  }
  return v;
}

// Custom: keys arrive unsorted, so this is a dense scatter-reduce by warp
// peers and atomics (a library reduce_by_key needs sorted runs, i.e. a sort).
// out[k] (pre-filled with the identity) combined with every row of key k.
// Whole blocks step together so a warp whose valid rows share one key (sorted
// or all-equal keys) combines in registers and issues one atomic, and a count
// issues one atomic per group of peers (gpu::MatchPeers). With kShared, each
// block accumulates in shared memory first (num_keys <= kSharedReduceKeys).
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
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t base = static_cast<uint64_t>(blockIdx.x) * blockDim.x; base < n; base += stride) {
    const uint64_t i = base + threadIdx.x;
    const bool valid = i < n;
    const uint32_t k = valid ? keys[i] : 0u;
    long long v = static_cast<long long>(identity);
    if (valid) v = (Op == kRCount) ? 1 : static_cast<long long>(values[i]);
    const WarpPeers peers = gpu::MatchPeers(k, valid);
    if (Op == kRCount) {
      if (peers.leader) AtomicCombine<Op>(&acc[k], static_cast<long long>(peers.count));
    } else if (peers.whole_warp) {
      v = WarpCombine<Op>(v);
      if (peers.leader) AtomicCombine<Op>(&acc[k], v);
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
  return gpu::Divide128By64(prod_hi, prod_lo, p.range);  // prod_hi < range as d < range
}

// Custom: exact 128-bit binning of int64 values with warp-peer atomics (the
// libraries' histograms bin by floating-point or fixed levels).
template <bool kShared>
__global__ void __launch_bounds__(kThreads)
    HistogramKernel(const int64_t* __restrict__ values, uint64_t n, BinParams p, ull* out) {
  extern __shared__ unsigned shared_counts[];
  if constexpr (kShared) {
    for (uint64_t b = threadIdx.x; b < p.bins; b += blockDim.x) shared_counts[b] = 0;
    __syncthreads();
  }
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  for (uint64_t base = static_cast<uint64_t>(blockIdx.x) * blockDim.x; base < n; base += stride) {
    const uint64_t i = base + threadIdx.x;
    const bool valid = i < n;
    const uint64_t bin = valid ? BinOf(values[i], p) : 0;
    // One atomic per group of warp peers that share a bin.
    const WarpPeers peers = gpu::MatchPeers(bin, valid);
    if (peers.leader) {
      if constexpr (kShared) {
        atomicAdd(&shared_counts[bin], peers.count);
      } else {
        atomicAdd(&out[bin], static_cast<ull>(peers.count));
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

// Custom: binary search and match check fused in one pass over the probes.
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

// Custom: seg[i] = the segment of the value at sorted position perm[i], a
// search over the offsets fused with the permutation.
__global__ void __launch_bounds__(kThreads)
    SegmentKeysKernel(const uint32_t* __restrict__ perm, uint64_t m,
                      const uint64_t* __restrict__ offsets, uint64_t num_segments,
                      uint32_t* __restrict__ seg) {
  TH_GRID_STRIDE(i, m) { seg[i] = SegmentOf(offsets, num_segments, offsets[0] + perm[i]); }
}

// Custom: nearest-rank selection with the host's exact IEEE rounding.
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
// Custom: flags and sweeps that compare a row with its predecessor in its
// group (the compactions they drive are the shim's SelectFlagged).

__global__ void __launch_bounds__(kThreads)
    NonEmptyFlagsKernel(const int64_t* __restrict__ b, const int64_t* __restrict__ e, uint64_t n,
                        uint32_t* __restrict__ flags) {
  TH_GRID_STRIDE(i, n) { flags[i] = e[i] > b[i] ? 1u : 0u; }
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

// A gap precedes row i when it starts a new union component of its group.
__global__ void __launch_bounds__(kThreads)
    GapFlagsKernel(const uint32_t* __restrict__ g, const int64_t* __restrict__ b,
                   const int64_t* __restrict__ incl_max, uint64_t m, uint32_t* __restrict__ flags) {
  TH_GRID_STRIDE(i, m) {
    flags[i] = (i > 0 && g[i - 1] == g[i] && b[i] > incl_max[i - 1]) ? 1u : 0u;
  }
}

#undef TH_GRID_STRIDE

}  // namespace
}  // namespace th::kernels
