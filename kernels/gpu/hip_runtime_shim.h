// The HIP runtime and rocPRIM under the names the shared GPU engine uses
// (namespace gpu; see kernels/README.md). Include first, then the shared
// bodies (kernels/gpu/engine.h). The only file of the HIP backend that names
// the HIP runtime API or rocPRIM. Debian ships rocPRIM but neither rocThrust
// nor hipCUB, so the device-wide algorithms are rocPRIM's own.
//
// The device side is wavefront-size agnostic (64 lanes on CDNA such as gfx90a,
// 32 on RDNA): lane masks are 64-bit ballots and warpSize is read, never
// assumed.
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "kernels/gpu/shim_types.h"
#include "tracehound/kernels/primitives.h"

// rocPRIM's headers are not warning-clean under -Wall -Wextra (and the
// project may add -Werror): keep our warnings, silence theirs.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wall"
#pragma clang diagnostic ignored "-Wextra"
#include <rocprim/device/device_radix_sort.hpp>
#include <rocprim/device/device_reduce.hpp>
#include <rocprim/device/device_reduce_by_key.hpp>
#include <rocprim/device/device_scan.hpp>
#include <rocprim/device/device_scan_by_key.hpp>
#include <rocprim/device/device_select.hpp>
#include <rocprim/device/device_transform.hpp>
#include <rocprim/functional.hpp>
#include <rocprim/iterator/constant_iterator.hpp>
#include <rocprim/iterator/counting_iterator.hpp>
#include <rocprim/iterator/transform_iterator.hpp>
#include <rocprim/iterator/zip_iterator.hpp>
#include <rocprim/types.hpp>
#pragma clang diagnostic pop

#define TH_GPU_RUNTIME_SHIM 1
// The runtime's name for a call, in error messages: "hip" "Malloc".
#define TH_GPU_CALL_NAME(name) "hip" name

namespace th::kernels {
namespace {
namespace gpu {

// ------------------------------------------------------------- backend ---

constexpr Backend kBackend = Backend::kHip;
constexpr char kBackendName[] = "HIP";  // "HIP error: ...", "no HIP device: ..."
constexpr char kBackendTag[] = "hip";   // "<Primitive> (hip): ..."
// The build setting that lists the device architectures code is built for.
constexpr char kArchitecturesSetting[] = "TRACEHOUND_HIP_ARCHITECTURES";

// ----------------------------------------------------- runtime, errors ---

using Error = hipError_t;
using Stream = hipStream_t;
constexpr Error kSuccess = hipSuccess;
constexpr Error kErrorNoDevice = hipErrorNoDevice;

inline Error GetLastError() { return hipGetLastError(); }
// "<name>: <description>", or just the name where HIP's description repeats it.
inline std::string ErrorNameAndText(Error err) {
  std::string text = hipGetErrorName(err);
  const std::string description = hipGetErrorString(err);
  if (!description.empty() && description != text) text += ": " + description;
  return text;
}
// The same text for a device that cannot be used.
inline std::string ErrorText(Error err) { return ErrorNameAndText(err); }

// ------------------------------------------------ memory and streams ---

inline Error Malloc(void** p, size_t bytes) { return hipMalloc(p, bytes); }
inline Error MallocAsync(void** p, size_t bytes, Stream s) { return hipMallocAsync(p, bytes, s); }
inline Error Free(void* p) { return hipFree(p); }
inline Error FreeAsync(void* p, Stream s) { return hipFreeAsync(p, s); }
inline Error CopyToDeviceAsync(void* dst, const void* src, size_t bytes, Stream s) {
  return hipMemcpyAsync(dst, src, bytes, hipMemcpyHostToDevice, s);
}
inline Error CopyToHostAsync(void* dst, const void* src, size_t bytes, Stream s) {
  return hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToHost, s);
}
inline Error CopyOnDeviceAsync(void* dst, const void* src, size_t bytes, Stream s) {
  return hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToDevice, s);
}
inline Error StreamCreateNonBlocking(Stream* s) {
  return hipStreamCreateWithFlags(s, hipStreamNonBlocking);
}
inline Error StreamSynchronize(Stream s) { return hipStreamSynchronize(s); }
inline Error StreamDestroy(Stream s) { return hipStreamDestroy(s); }

// ------------------------------------------------------------- devices ---

inline Error GetDeviceCount(int* count) { return hipGetDeviceCount(count); }
inline Error SetDevice(int device) { return hipSetDevice(device); }
inline Error GetMultiprocessorCount(int* count, int device) {
  return hipDeviceGetAttribute(count, hipDeviceAttributeMultiprocessorCount, device);
}
inline Error GetMemoryPoolsSupported(int* supported, int device) {
  return hipDeviceGetAttribute(supported, hipDeviceAttributeMemoryPoolsSupported, device);
}
// Keeps freed device memory in the default pool between calls instead of
// returning it to the driver at every synchronization (best effort).
inline void KeepFreedPoolMemory(int device) {
  hipMemPool_t pool;
  if (hipDeviceGetDefaultMemPool(&pool, device) == hipSuccess) {
    uint64_t threshold = std::numeric_limits<uint64_t>::max();
    (void)hipMemPoolSetAttribute(pool, hipMemPoolAttrReleaseThreshold, &threshold);
  }
}

// "gfx90a" from "gfx90a:sramecc+:xnack-" (the name code objects are built for).
inline std::string ArchName(const hipDeviceProp_t& prop) {
  std::string arch = prop.gcnArchName;
  if (const size_t colon = arch.find(':'); colon != std::string::npos) arch.resize(colon);
  return arch;
}

// "gfx90a" for both names; empty when unreadable.
inline Architecture ArchitectureOf(int device) {
  hipDeviceProp_t prop{};
  (void)hipGetDeviceProperties(&prop, device);
  const std::string arch = ArchName(prop);
  return {arch, arch};
}

// Fails when the current device has no code object for kernel (an
// architecture the build left out).
template <typename... Args>
Error CheckKernelImage(void (*kernel)(Args...)) {
  hipFuncAttributes attrs{};
  return hipFuncGetAttributes(&attrs, reinterpret_cast<const void*>(kernel));
}

// The device list's entry for device.
inline Error Summarize(int device, DeviceSummary* out) {
  hipDeviceProp_t prop{};
  const Error err = hipGetDeviceProperties(&prop, device);
  if (err != hipSuccess) return err;
  out->name = prop.name;
  out->architecture = ArchName(prop);
  out->bytes = prop.totalGlobalMem;
  return hipSuccess;
}

// ------------------------------------------------- execution context ---

// Where the engine's device work goes: its stream, and whether device memory
// comes from the stream-ordered pool (MallocAsync) or from Malloc.
struct Exec {
  Stream stream = nullptr;
  bool pools = true;
};

inline Error AllocDevice(void** p, size_t bytes, const Exec& e) {
  return e.pools ? hipMallocAsync(p, bytes, e.stream) : hipMalloc(p, bytes);
}
inline Error FreeDevice(void* p, const Exec& e) {
  return e.pools ? hipFreeAsync(p, e.stream) : hipFree(p);
}

// Runs a rocPRIM call of the two-call form twice: call(nullptr, bytes) sets
// the temporary storage it needs, call(temp, bytes) runs with that storage,
// taken from the engine's device memory.
template <typename F>
Error WithTempStorage(const Exec& e, F&& call) {
  size_t bytes = 0;
  Error err = call(nullptr, bytes);
  if (err != hipSuccess) return err;
  void* temp = nullptr;
  if ((err = AllocDevice(&temp, bytes == 0 ? 1 : bytes, e)) != hipSuccess) return err;
  err = call(temp, bytes);
  const Error freed = FreeDevice(temp, e);
  return err != hipSuccess ? err : freed;
}

// A device value copied to *host once the stream has reached it.
template <typename T>
Error ReadBack(const Exec& e, const T* device_value, T* host) {
  Error err = hipMemcpyAsync(host, device_value, sizeof(T), hipMemcpyDeviceToHost, e.stream);
  if (err == hipSuccess) err = hipStreamSynchronize(e.stream);
  return err;
}

template <typename T>
struct ValueAt {
  const T* src;
  __device__ T operator()(uint32_t i) const { return src[i]; }
};

struct ComplementOp {
  __device__ int64_t operator()(int64_t v) const { return ~v; }
};

// i when ids[i] >= limit, else n (the lowest such i is the minimum).
struct IndexIfAtLeast {
  const uint32_t* ids;
  uint64_t limit, n;
  __device__ uint64_t operator()(uint64_t i) const { return ids[i] >= limit ? i : n; }
};

// rocPRIM has no scatter: a grid-stride kernel.
__global__ void ScatterKernel(const unsigned long long* __restrict__ src,
                              const uint32_t* __restrict__ idx, uint64_t n,
                              unsigned long long* __restrict__ dst) {
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<uint64_t>(gridDim.x) * blockDim.x) {
    dst[idx[i]] = src[i];
  }
}

// --------------------------------------------- device-wide algorithms ---
// rocPRIM stands in for Thrust (Debian has no rocThrust), under the CUDA
// shim's signatures. Each call is enqueued on e.stream; one that returns a
// count to the host waits for it. k*Name names the call in errors.

constexpr char kFillName[] = "rocprim::transform (fill)";
inline Error Fill(const Exec& e, unsigned long long* p, uint64_t n, unsigned long long value) {
  return rocprim::transform(rocprim::constant_iterator<unsigned long long>(value), p, n,
                            rocprim::identity<unsigned long long>(), e.stream);
}

constexpr char kSequenceName[] = "rocprim::transform (sequence)";
// p[i] = i.
inline Error Sequence(const Exec& e, uint32_t* p, uint64_t n) {
  return rocprim::transform(rocprim::counting_iterator<uint32_t>(0), p, n,
                            rocprim::identity<uint32_t>(), e.stream);
}

constexpr char kGatherName[] = "rocprim::transform (gather)";
// dst[i] = src[idx[i]].
template <typename T>
Error Gather(const Exec& e, const T* src, const uint32_t* idx, uint64_t n, T* dst) {
  return rocprim::transform(idx, dst, n, ValueAt<T>{src}, e.stream);
}

constexpr char kScatterName[] = "ScatterKernel";
// dst[idx[i]] = src[i].
inline Error Scatter(const Exec& e, const unsigned long long* src, const uint32_t* idx, uint64_t n,
                     unsigned long long* dst) {
  if (n == 0) return hipSuccess;
  const uint64_t blocks = std::min<uint64_t>((n + 255) / 256, 65535);
  ScatterKernel<<<static_cast<unsigned>(blocks), 256, 0, e.stream>>>(src, idx, n, dst);
  return hipGetLastError();
}

constexpr char kTransformName[] = "rocprim::transform";
// p[i] = ~p[i] (reverses the order of int64 exactly).
inline Error Complement(const Exec& e, int64_t* p, uint64_t n) {
  return rocprim::transform(p, p, n, ComplementOp{}, e.stream);
}
// a[i] += b[i], modulo 2^64.
inline Error AddInto(const Exec& e, unsigned long long* a, const unsigned long long* b,
                     uint64_t n) {
  return rocprim::transform(a, b, a, n, rocprim::plus<unsigned long long>(), e.stream);
}
// a[i] -= b[i], modulo 2^64.
inline Error SubtractFrom(const Exec& e, unsigned long long* a, const unsigned long long* b,
                          uint64_t n) {
  return rocprim::transform(a, b, a, n, rocprim::minus<unsigned long long>(), e.stream);
}

constexpr char kFindFirstAtLeastName[] = "rocprim::reduce (first id at least)";
// *first = the lowest i with ids[i] >= limit, or n; waits for the stream.
inline Error FindFirstAtLeast(const Exec& e, const uint32_t* ids, uint64_t n, uint64_t limit,
                              uint64_t* first) {
  void* slot = nullptr;
  Error err = AllocDevice(&slot, sizeof(uint64_t), e);
  if (err != hipSuccess) return err;
  uint64_t* d_first = static_cast<uint64_t*>(slot);
  const auto rows = rocprim::make_transform_iterator(rocprim::counting_iterator<uint64_t>(0),
                                                     IndexIfAtLeast{ids, limit, n});
  err = WithTempStorage(e, [&](void* temp, size_t& bytes) {
    return rocprim::reduce(temp, bytes, rows, d_first, n, static_cast<size_t>(n),
                           rocprim::minimum<uint64_t>(), e.stream);
  });
  if (err == hipSuccess) err = ReadBack(e, d_first, first);
  const Error freed = FreeDevice(slot, e);
  return err != hipSuccess ? err : freed;
}

constexpr char kSortByKeyName[] = "rocprim::radix_sort_pairs";
// Stable ascending sort of (int64 key, uint32 value) pairs, in place.
inline Error SortByKey(const Exec& e, int64_t* keys, uint32_t* values, uint32_t n) {
  void* alt = nullptr;
  const size_t key_bytes = static_cast<size_t>(n) * sizeof(int64_t);
  const size_t value_bytes = static_cast<size_t>(n) * sizeof(uint32_t);
  Error err = AllocDevice(&alt, key_bytes + value_bytes, e);
  if (err != hipSuccess) return err;
  int64_t* alt_keys = static_cast<int64_t*>(alt);
  uint32_t* alt_values = reinterpret_cast<uint32_t*>(alt_keys + n);
  rocprim::double_buffer<int64_t> k(keys, alt_keys);
  rocprim::double_buffer<uint32_t> v(values, alt_values);
  err = WithTempStorage(e, [&](void* temp, size_t& bytes) {
    return rocprim::radix_sort_pairs(temp, bytes, k, v, n, 0u, 64u, e.stream);
  });
  if (err == hipSuccess && k.current() != keys) {
    err = hipMemcpyAsync(keys, k.current(), key_bytes, hipMemcpyDeviceToDevice, e.stream);
  }
  if (err == hipSuccess && v.current() != values) {
    err = hipMemcpyAsync(values, v.current(), value_bytes, hipMemcpyDeviceToDevice, e.stream);
  }
  const Error freed = FreeDevice(alt, e);
  return err != hipSuccess ? err : freed;
}

constexpr char kSelectFlaggedName[] = "rocprim::select";
// The rows i < n with flags[i] != 0 of the columns (g, x, y), in order, into
// (og, ox, oy); *count = how many. Waits for the stream.
inline Error SelectFlagged(const Exec& e, const uint32_t* g, const int64_t* x, const int64_t* y,
                           const uint32_t* flags, uint32_t n, uint32_t* og, int64_t* ox,
                           int64_t* oy, uint32_t* count) {
  void* slot = nullptr;
  Error err = AllocDevice(&slot, sizeof(uint32_t), e);
  if (err != hipSuccess) return err;
  uint32_t* d_count = static_cast<uint32_t*>(slot);
  const auto in = rocprim::make_zip_iterator(rocprim::make_tuple(g, x, y));
  const auto out = rocprim::make_zip_iterator(rocprim::make_tuple(og, ox, oy));
  err = WithTempStorage(e, [&](void* temp, size_t& bytes) {
    return rocprim::select(temp, bytes, in, flags, out, d_count, static_cast<size_t>(n), e.stream);
  });
  if (err == hipSuccess) err = ReadBack(e, d_count, count);
  const Error freed = FreeDevice(slot, e);
  return err != hipSuccess ? err : freed;
}

constexpr char kInclusiveMaxByKeyName[] = "rocprim::inclusive_scan_by_key";
// out[i] = max of values over the run of equal keys up to i.
inline Error InclusiveMaxByKey(const Exec& e, const uint32_t* keys, const int64_t* values,
                               int64_t* out, uint32_t n) {
  return WithTempStorage(e, [&](void* temp, size_t& bytes) {
    return rocprim::inclusive_scan_by_key(temp, bytes, keys, values, out, static_cast<size_t>(n),
                                          rocprim::maximum<int64_t>(),
                                          rocprim::equal_to<uint32_t>(), e.stream);
  });
}

constexpr char kSumByKeyName[] = "rocprim::reduce_by_key";
// One (key, sum of values) per run of equal keys, into unique_keys and sums;
// *runs = the number of runs. Waits for the stream.
inline Error SumByKey(const Exec& e, const uint32_t* keys, const unsigned long long* values,
                      uint32_t n, uint32_t* unique_keys, unsigned long long* sums, uint32_t* runs) {
  void* slot = nullptr;
  Error err = AllocDevice(&slot, sizeof(uint32_t), e);
  if (err != hipSuccess) return err;
  uint32_t* d_runs = static_cast<uint32_t*>(slot);
  err = WithTempStorage(e, [&](void* temp, size_t& bytes) {
    return rocprim::reduce_by_key(temp, bytes, keys, values, n, unique_keys, sums, d_runs,
                                  rocprim::plus<unsigned long long>(),
                                  rocprim::equal_to<uint32_t>(), e.stream);
  });
  if (err == hipSuccess) err = ReadBack(e, d_runs, runs);
  const Error freed = FreeDevice(slot, e);
  return err != hipSuccess ? err : freed;
}

// The low-bits radix sort the CUDA shim keeps on CUB: rocPRIM's own.
// (temp, bytes, ...): with temp null it only sets bytes, the temporary storage
// the call needs.
constexpr char kSortPairsName[] = "rocprim::radix_sort_pairs";
// Stable ascending radix sort of (uint32 key, uint32 value) pairs on key bits
// [0, end_bit); the sorted pairs become the buffers' current ones.
inline Error SortPairs(void* temp, size_t& bytes, DoubleBuffer<uint32_t>& keys,
                       DoubleBuffer<uint32_t>& values, uint32_t n, int end_bit, Stream s) {
  rocprim::double_buffer<uint32_t> k(keys.Current(), keys.Alternate());
  rocprim::double_buffer<uint32_t> v(values.Current(), values.Alternate());
  const Error err =
      rocprim::radix_sort_pairs(temp, bytes, k, v, n, 0u, static_cast<unsigned>(end_bit), s);
  keys.SetCurrent(k.current());
  values.SetCurrent(v.current());
  return err;
}

// ------------------------------------------------------- device side ---

__device__ __forceinline__ int WarpLanes() { return warpSize; }

__device__ __forceinline__ long long ShuffleXor(long long v, int lane_mask) {
  return __shfl_xor(v, lane_mask);
}

// Peers without __match_any (HIP has none): when the valid lanes share one
// key, whole_warp and the first valid lane leads them all; otherwise each
// valid lane leads itself alone.
template <typename Key>
__device__ __forceinline__ WarpPeers MatchPeers(Key key, bool valid) {
  WarpPeers out;
  const unsigned long long valid_lanes = __ballot(valid);
  if (valid_lanes == 0) return out;  // wave-uniform
  const int lane = static_cast<int>(__lane_id());
  const int first = __ffsll(valid_lanes) - 1;
  bool uniform;
  if constexpr (sizeof(Key) == 8) {
    const unsigned long long first_key = __shfl(static_cast<unsigned long long>(key), first);
    uniform = __ballot(valid && key == first_key) == valid_lanes;
  } else {
    const unsigned first_key = __shfl(static_cast<unsigned>(key), first);
    uniform = __ballot(valid && key == first_key) == valid_lanes;
  }
  out.leader = uniform ? lane == first : valid;
  out.count = uniform ? static_cast<unsigned>(__popcll(valid_lanes)) : 1u;
  out.whole_warp = uniform;
  return out;
}

// HIP 5.2 has no signed 64-bit atomicMin/atomicMax overloads: the clang
// builtin takes the pointee's signedness (a CAS loop where it is missing).
template <bool kMin>
__device__ __forceinline__ void AtomicExtremeInt64(long long* slot, long long v) {
#if __has_builtin(__hip_atomic_fetch_min) && __has_builtin(__hip_atomic_fetch_max)
  if constexpr (kMin) {
    (void)__hip_atomic_fetch_min(slot, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  } else {
    (void)__hip_atomic_fetch_max(slot, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  }
#else
  unsigned long long* bits = reinterpret_cast<unsigned long long*>(slot);
  unsigned long long old = *bits;
  while (kMin ? v < static_cast<long long>(old) : v > static_cast<long long>(old)) {
    const unsigned long long seen = atomicCAS(bits, old, static_cast<unsigned long long>(v));
    if (seen == old) break;
    old = seen;
  }
#endif
}
__device__ __forceinline__ void AtomicMinInt64(long long* slot, long long v) {
  AtomicExtremeInt64<true>(slot, v);
}
__device__ __forceinline__ void AtomicMaxInt64(long long* slot, long long v) {
  AtomicExtremeInt64<false>(slot, v);
}

// floor((hi * 2^64 + lo) / d) for hi < d (so the quotient fits 64 bits), by
// shift-and-subtract: the AMDGPU backend of LLVM 15 has no 128-bit division.
__device__ __forceinline__ uint64_t Divide128By64(uint64_t hi, uint64_t lo, uint64_t d) {
  uint64_t rem = hi, q = 0;
  for (int bit = 63; bit >= 0; --bit) {
    const bool carry = (rem >> 63) != 0;  // 2 * rem + next bit >= 2^64 > d
    rem = (rem << 1) | ((lo >> bit) & 1u);
    q <<= 1;
    if (carry || rem >= d) {
      rem -= d;  // exact modulo 2^64: the true remainder is below d
      q |= 1u;
    }
  }
  return q;
}

}  // namespace gpu
}  // namespace
}  // namespace th::kernels
