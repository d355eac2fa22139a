// The shared GPU engine: every primitive of primitives.h over device memory,
// the kernels of device_kernels.h and the device-wide algorithms of a runtime
// shim (cuda_runtime_shim.h or hip_runtime_shim.h, included first). A backend's
// translation unit includes the shim, then this, and defines its entry points
// (gpu_engines.h) with MakeGpuEngine and GpuDevices.
//
// Each method copies its host spans to device 0, computes with the shim's
// device-wide algorithms (Thrust on CUDA, rocPRIM on HIP) and the custom
// kernels, and copies the results back. To keep compile times down, each
// device-wide algorithm is instantiated for one set of types: a stable sort
// of (int64 key, uint32 value) pairs, a low-bits radix sort of (uint32 key,
// uint32 value) pairs, a flagged selection of (uint32, int64, int64) rows,
// an inclusive max-scan by uint32 key of int64 values, a sum by uint32 key of
// uint64 values, a first-match search, fills, sequences, gathers, a scatter
// and transforms.
//
// Sort-based primitives index rows with uint32, so they take at most
// 2^32 - 1 rows per call (an error beyond); ReduceByKey and Histogram have no
// such limit. Integer sums wrap modulo 2^64, as two's-complement int64 does.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kernels/gpu/device_buffers.h"
#include "kernels/gpu/device_kernels.h"
#include "kernels/gpu/device_steps.h"
#include "kernels/gpu/require_runtime_shim.h"
#include "kernels/gpu/shim_types.h"
#include "tracehound/kernels/primitives.h"

namespace th::kernels {
namespace {

// Rows a sort-based primitive may take: row indices are uint32.
constexpr uint64_t kMaxRows = 0xFFFFFFFFull;
// Keys (ReduceByKey) and bins (Histogram) up to these counts are accumulated
// in shared memory per block (32 KiB) before going to global memory.
constexpr uint64_t kSharedReduceKeys = 4096;
constexpr uint64_t kSharedHistogramBins = 8192;

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
  return KernelStatus(std::to_string(n) + " rows; the " + gpu::kBackendName +
                      " backend takes at most 4294967295 per call");
}

// ---------------------------------------------------------------- engine ---

class GpuEngine final : public Engine {
 public:
  GpuEngine(int device, const DeviceContext& ctx) : device_(device), ctx_(ctx) {}
  ~GpuEngine() override {
    (void)gpu::SetDevice(device_);
    (void)gpu::StreamSynchronize(ctx_.stream);
    (void)gpu::StreamDestroy(ctx_.stream);
  }

  Backend backend() const override { return gpu::kBackend; }

  KernelStatus SortByKey(std::span<int64_t> keys, std::span<uint32_t> values) override {
    return Run("SortByKey", [&]() -> KernelStatus {
      if (keys.size() != values.size()) {
        return KernelStatus("keys and values differ in length (" + std::to_string(keys.size()) +
                            " vs " + std::to_string(values.size()) + ")");
      }
      const uint64_t n = keys.size();
      if (n == 0) return {};
      if (n > kMaxRows) return TooManyRows(n);
      DevBuf<int64_t> k = Upload(ctx_, keys.data(), n);
      DevBuf<uint32_t> v = Upload(ctx_, values.data(), n);
      StableSortByKey(ctx_, k.get(), v.get(), static_cast<uint32_t>(n));
      ToHost(ctx_, keys.data(), k.get(), n);
      ToHost(ctx_, values.data(), v.get(), n);
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
        return KernelStatus(std::to_string(num_segments) + " segments; the " + gpu::kBackendName +
                            " backend takes at most 4294967295");
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
      DevBuf<int64_t> vals = Upload(ctx_, values.data() + first, m);
      DevBuf<uint32_t> v0(ctx_, m);
      Iota(ctx_, v0.get(), m);
      StableSortByKey(ctx_, vals.get(), v0.get(), static_cast<uint32_t>(m));
      DevBuf<uint64_t> d_offsets = Upload(ctx_, offsets.data(), offsets.size());
      const int64_t* sorted = vals.get();
      DevBuf<int64_t> by_segment;
      if (num_segments > 1) {
        DevBuf<uint32_t> s0(ctx_, m), s1(ctx_, m), v1(ctx_, m);
        SegmentKeysKernel<<<Blocks(ctx_, m), kThreads, 0, ctx_.stream>>>(
            v0.get(), m, d_offsets.get(), num_segments, s0.get());
        CheckLaunch("SegmentKeysKernel");
        // The value permutation is spent (read above): v0 now carries sorted positions.
        DoubleBuffer<uint32_t> where(v0.get(), v1.get());
        Iota(ctx_, where.Current(), m);
        DoubleBuffer<uint32_t> segs(s0.get(), s1.get());
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
      // |A n B| = |A| + |B| - |A u B|, modulo 2^64 like the CPU engine.
      Check(gpu::AddInto(ctx_.exec(), ua.get(), ub.get(), num_groups), gpu::kTransformName);
      Check(gpu::SubtractFrom(ctx_.exec(), ua.get(), uab.get(), num_groups), gpu::kTransformName);
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
      DevBuf<uint32_t> flags(ctx_, s.m);
      GapFlagsKernel<<<Blocks(ctx_, s.m), kThreads, 0, ctx_.stream>>>(
          s.g, s.b.get(), s.incl_max.get(), s.m, flags.get());
      CheckLaunch("GapFlagsKernel");
      // A flagged row i >= 1 gives the gap (g[i], incl_max[i - 1], b[i]).
      const uint32_t rows = s.m - 1;
      DevBuf<uint32_t> gg(ctx_, rows);
      DevBuf<int64_t> gb(ctx_, rows), ge(ctx_, rows);
      uint32_t count = 0;
      Check(gpu::SelectFlagged(ctx_.exec(), s.g + 1, s.incl_max.get(), s.b.get() + 1,
                               flags.get() + 1, rows, gg.get(), gb.get(), ge.get(), &count),
            gpu::kSelectFlaggedName);
      if (count == 0) return {};
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
      DevBuf<int64_t> keys = Upload(ctx_, values.data(), n);
      DevBuf<uint32_t> idx(ctx_, n);
      Check(gpu::Complement(ctx_.exec(), keys.get(), n), gpu::kTransformName);
      Iota(ctx_, idx.get(), n);
      StableSortByKey(ctx_, keys.get(), idx.get(), static_cast<uint32_t>(n));
      out->resize(take);
      ToHost(ctx_, out->data(), idx.get(), take);
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
      DevBuf<int64_t> keys = Upload(ctx_, build.data(), nb);
      DevBuf<uint32_t> idx(ctx_, nb);
      Iota(ctx_, idx.get(), nb);
      StableSortByKey(ctx_, keys.get(), idx.get(), static_cast<uint32_t>(nb));
      DevBuf<int64_t> d_probe = Upload(ctx_, probe.data(), np);
      DevBuf<uint32_t> d_out(ctx_, np);
      JoinProbeKernel<<<Blocks(ctx_, np), kThreads, 0, ctx_.stream>>>(
          keys.get(), idx.get(), nb, d_probe.get(), np, d_out.get());
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

  // Runs one primitive: selects the device, turns runtime failures and host
  // allocation failures into a KernelStatus, and waits for the stream.
  template <typename Body>
  KernelStatus Run(const char* name, Body&& body) {
    const auto fail = [&](const std::string& why) {
      return KernelStatus(std::string(name) + " (" + gpu::kBackendTag + "): " + why);
    };
    try {
      Check(gpu::SetDevice(device_), TH_GPU_CALL_NAME("SetDevice"));
      KernelStatus st = body();
      Sync(ctx_);
      if (!st.ok()) return fail(st.message());
      return st;
    } catch (const GpuFailure& e) {
      (void)gpu::StreamSynchronize(ctx_.stream);
      (void)gpu::GetLastError();
      return fail(std::string(gpu::kBackendName) + " error: " + e.what());
    } catch (const std::bad_alloc&) {
      (void)gpu::StreamSynchronize(ctx_.stream);
      return fail("out of host memory");
    } catch (const std::exception& e) {
      (void)gpu::StreamSynchronize(ctx_.stream);
      return fail(e.what());
    }
  }

  int device_;
  DeviceContext ctx_;
};

// The engine on device 0, or nullptr with *why_not saying why (no device,
// no code for its architecture, a runtime error).
std::unique_ptr<Engine> MakeGpuEngine(std::string* why_not) {
  const std::string backend = gpu::kBackendName;
  const auto fail = [&](std::string why) -> std::unique_ptr<Engine> {
    (void)gpu::GetLastError();
    if (why_not != nullptr) *why_not = std::move(why);
    return nullptr;
  };
  int count = 0;
  gpu::Error err = gpu::GetDeviceCount(&count);
  if (err != gpu::kSuccess) return fail("no " + backend + " device: " + gpu::ErrorText(err));
  if (count <= 0) return fail("no " + backend + " device: " + gpu::ErrorText(gpu::kErrorNoDevice));

  const int device = 0;
  const std::string unusable = backend + " device 0 is unusable: ";
  if ((err = gpu::SetDevice(device)) != gpu::kSuccess) return fail(unusable + gpu::ErrorText(err));
  DeviceContext ctx;
  if ((err = gpu::GetMultiprocessorCount(&ctx.sms, device)) != gpu::kSuccess) {
    return fail(unusable + gpu::ErrorText(err));
  }
  const Architecture arch = gpu::ArchitectureOf(device);
  // A device this build has no code for fails here rather than on first use.
  if ((err = gpu::CheckKernelImage(PercentileKernel)) != gpu::kSuccess) {
    return fail(backend + " device 0 (" + arch.name +
                ") cannot run tracehound's kernels: " + gpu::ErrorText(err) + " (rebuild with " +
                gpu::kArchitecturesSetting + " including " + arch.build_name + ")");
  }
  int pools = 0;
  (void)gpu::GetMemoryPoolsSupported(&pools, device);
  ctx.pools = pools != 0;
  if (ctx.pools) gpu::KeepFreedPoolMemory(device);
  if ((err = gpu::StreamCreateNonBlocking(&ctx.stream)) != gpu::kSuccess) {
    return fail(unusable + gpu::ErrorText(err));
  }
  (void)gpu::GetLastError();
  return std::make_unique<GpuEngine>(device, ctx);
}

// One line per visible device, e.g. "NVIDIA H100 (sm_90, 80 GiB)"; empty
// without a device.
std::vector<std::string> GpuDevices() {
  std::vector<std::string> names;
  int count = 0;
  if (gpu::GetDeviceCount(&count) != gpu::kSuccess) {
    (void)gpu::GetLastError();
    return names;
  }
  for (int d = 0; d < count; ++d) {
    DeviceSummary summary;
    if (gpu::Summarize(d, &summary) != gpu::kSuccess) {
      (void)gpu::GetLastError();
      continue;
    }
    const unsigned long long gib =
        (static_cast<unsigned long long>(summary.bytes) + (1ull << 29)) >> 30;
    char line[384];
    std::snprintf(line, sizeof line, "%s (%s, %llu GiB)", summary.name.c_str(),
                  summary.architecture.c_str(), gib);
    names.emplace_back(line);
  }
  return names;
}

}  // namespace
}  // namespace th::kernels
