// Host-side steps of the shared GPU engine: kernel launches and device-wide
// algorithm calls that the primitives compose (sorting, scans, interval
// unions), over a runtime shim (cuda_runtime_shim.h or hip_runtime_shim.h,
// included first).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include "kernels/gpu/device_buffers.h"
#include "kernels/gpu/device_kernels.h"
#include "kernels/gpu/require_runtime_shim.h"
#include "kernels/gpu/shim_types.h"

namespace th::kernels {
namespace {

unsigned Blocks(const DeviceContext& ctx, uint64_t n, unsigned per_sm = 16) {
  const uint64_t want = (n + kThreads - 1) / kThreads;
  const uint64_t cap = static_cast<uint64_t>(ctx.sms) * per_sm;
  return static_cast<unsigned>(std::max<uint64_t>(1, std::min(want, cap)));
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
void SortPairs(const DeviceContext& ctx, DoubleBuffer<int64_t>& keys,
               DoubleBuffer<uint32_t>& values, uint32_t n) {
  RunDeviceAlgorithm(ctx, gpu::kSortPairsName, [&](void* temp, size_t& bytes) {
    return gpu::SortPairs(temp, bytes, keys, values, n, 64, ctx.stream);
  });
}

// Stable ascending radix sort of (uint32 key, uint32 value) pairs on the low
// end_bit key bits (keys < 2^end_bit), n >= 1, end_bit >= 1.
void SortPairs(const DeviceContext& ctx, DoubleBuffer<uint32_t>& keys,
               DoubleBuffer<uint32_t>& values, uint32_t n, int end_bit) {
  RunDeviceAlgorithm(ctx, gpu::kSortPairsName, [&](void* temp, size_t& bytes) {
    return gpu::SortPairs(temp, bytes, keys, values, n, end_bit, ctx.stream);
  });
}

// pos = exclusive prefix sum of flags (n >= 1); returns the total.
uint32_t ExclusiveSum(const DeviceContext& ctx, const uint32_t* flags, uint32_t* pos, uint32_t n) {
  RunDeviceAlgorithm(ctx, gpu::kExclusiveSumName, [&](void* temp, size_t& bytes) {
    return gpu::ExclusiveSum(temp, bytes, flags, pos, n, ctx.stream);
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
  DoubleBuffer<int64_t> keys(k0.get(), k1.get());
  DoubleBuffer<uint32_t> perm(p0.get(), p1.get());
  SortPairs(ctx, keys, perm, m);
  k0 = DevBuf<int64_t>();
  k1 = DevBuf<int64_t>();
  const int group_bits = std::min(BitsFor(num_groups - 1), 32);  // ids are uint32
  if (group_bits > 0) {
    out.g0 = DevBuf<uint32_t>(ctx, m);
    out.g1 = DevBuf<uint32_t>(ctx, m);
    Gather(ctx, cg.get(), perm.Current(), m, out.g0.get());
    DoubleBuffer<uint32_t> groups(out.g0.get(), out.g1.get());
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
  RunDeviceAlgorithm(ctx, gpu::kInclusiveMaxByKeyName, [&](void* temp, size_t& bytes) {
    return gpu::InclusiveMaxByKey(temp, bytes, keys_in, ends, incl, m, ctx.stream);
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
  const uint32_t m = s.m;
  // The running sum of the contributions, in place where the shim allows.
  DevBuf<ull> scanned;
  ull* contrib = prefix.get();
  ull* data = contrib;
  if constexpr (!gpu::kInPlaceScans) {
    scanned = DevBuf<ull>(ctx, m);
    data = scanned.get();
  }
  RunDeviceAlgorithm(ctx, gpu::kInclusiveSumName, [&](void* temp, size_t& bytes) {
    return gpu::InclusiveSum(temp, bytes, contrib, data, m, ctx.stream);
  });
  if constexpr (!gpu::kInPlaceScans) prefix = DevBuf<ull>();
  DevBuf<ull> before(ctx, num_groups);
  GroupStartKernel<<<Blocks(ctx, m), kThreads, 0, ctx.stream>>>(s.g, data, m, before.get());
  CheckLaunch("GroupStartKernel");
  GroupEndKernel<<<Blocks(ctx, m), kThreads, 0, ctx.stream>>>(s.g, data, before.get(), m,
                                                              sums.get());
  CheckLaunch("GroupEndKernel");
  return sums;
}
}  // namespace
}  // namespace th::kernels
