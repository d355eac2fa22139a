// Host-side steps of the shared GPU engine: the shim's device-wide algorithms
// and the custom kernel launches that the primitives compose (sorting, scans,
// interval unions), over a runtime shim (cuda_runtime_shim.h or hip_runtime_shim.h,
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
  Check(gpu::Fill(ctx.exec(), p, n, value), gpu::kFillName);
}

void Iota(const DeviceContext& ctx, uint32_t* p, uint64_t n) {
  if (n == 0) return;
  Check(gpu::Sequence(ctx.exec(), p, n), gpu::kSequenceName);
}

template <typename T>
void Gather(const DeviceContext& ctx, const T* src, const uint32_t* idx, uint64_t n, T* dst) {
  if (n == 0) return;
  Check(gpu::Gather(ctx.exec(), src, idx, n, dst), gpu::kGatherName);
}

// Stable ascending sort of (int64 key, uint32 value) pairs in place, n >= 1.
void StableSortByKey(const DeviceContext& ctx, int64_t* keys, uint32_t* values, uint32_t n) {
  Check(gpu::SortByKey(ctx.exec(), keys, values, n), gpu::kSortByKeyName);
}

// Stable ascending radix sort of (uint32 key, uint32 value) pairs on the low
// end_bit key bits (keys < 2^end_bit), n >= 1, end_bit >= 1.
void SortPairs(const DeviceContext& ctx, DoubleBuffer<uint32_t>& keys,
               DoubleBuffer<uint32_t>& values, uint32_t n, int end_bit) {
  RunDeviceAlgorithm(ctx, gpu::kSortPairsName, [&](void* temp, size_t& bytes) {
    return gpu::SortPairs(temp, bytes, keys, values, n, end_bit, ctx.stream);
  });
}

// The lowest row whose id is >= limit, or n when all are in range.
uint64_t FirstBadId(const DeviceContext& ctx, const uint32_t* ids, uint64_t n, uint64_t limit) {
  if (n == 0) return 0;
  uint64_t first = n;
  Check(gpu::FindFirstAtLeast(ctx.exec(), ids, n, limit, &first), gpu::kFindFirstAtLeastName);
  return first;
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
  DevBuf<uint32_t> flags(ctx, n);
  NonEmptyFlagsKernel<<<Blocks(ctx, n), kThreads, 0, ctx.stream>>>(b, e, n, flags.get());
  CheckLaunch("NonEmptyFlagsKernel");
  DevBuf<uint32_t> cg(ctx, n);
  DevBuf<int64_t> cb(ctx, n), ce(ctx, n);
  uint32_t m = 0;
  Check(gpu::SelectFlagged(ctx.exec(), g, b, e, flags.get(), n, cg.get(), cb.get(), ce.get(), &m),
        gpu::kSelectFlaggedName);
  flags = DevBuf<uint32_t>();
  if (m == 0) return out;
  DevBuf<int64_t> keys(ctx, m);
  CopyOnDevice(ctx, keys.get(), cb.get(), m);

  // Sort by begin, then stably by group: order (group, begin).
  DevBuf<uint32_t> p0(ctx, m), p1(ctx, m);
  Iota(ctx, p0.get(), m);
  StableSortByKey(ctx, keys.get(), p0.get(), m);
  keys = DevBuf<int64_t>();
  DoubleBuffer<uint32_t> perm(p0.get(), p1.get());
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
  Check(gpu::InclusiveMaxByKey(ctx.exec(), keys_in, ends, incl, m), gpu::kInclusiveMaxByKeyName);
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
  DevBuf<ull> contrib(ctx, s.m);
  ContributionKernel<<<Blocks(ctx, s.m), kThreads, 0, ctx.stream>>>(
      s.g, s.b.get(), s.e.get(), s.incl_max.get(), s.m, contrib.get());
  CheckLaunch("ContributionKernel");
  // The contributions summed per group (rows are in group order), then
  // scattered to their groups' slots.
  DevBuf<uint32_t> groups(ctx, s.m);
  DevBuf<ull> group_sums(ctx, s.m);
  uint32_t runs = 0;
  Check(gpu::SumByKey(ctx.exec(), s.g, contrib.get(), s.m, groups.get(), group_sums.get(), &runs),
        gpu::kSumByKeyName);
  Check(gpu::Scatter(ctx.exec(), group_sums.get(), groups.get(), runs, sums.get()),
        gpu::kScatterName);
  return sums;
}
}  // namespace
}  // namespace th::kernels
