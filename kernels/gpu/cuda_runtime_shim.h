// The CUDA runtime, Thrust and CUB under the names the shared GPU engine uses
// (namespace gpu; see kernels/README.md). Include first, then the shared
// bodies (kernels/gpu/engine.h). The only file of the CUDA backend that names
// the CUDA runtime API, Thrust or CUB. Thrust is the host API of the
// device-wide algorithms; CUB only where Thrust cannot express the call.
#pragma once

#include <cuda_runtime.h>
#include <thrust/copy.h>
#include <thrust/fill.h>
#include <thrust/find.h>
#include <thrust/gather.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/system/cuda/error.h>
#include <thrust/system/cuda/execution_policy.h>
#include <thrust/system/detail/bad_alloc.h>
#include <thrust/system_error.h>
#include <thrust/transform.h>

#include <cstddef>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cuda/functional>
#include <cuda/std/functional>
#include <limits>
#include <string>

#include "kernels/gpu/shim_types.h"
#include "tracehound/kernels/primitives.h"

#define TH_GPU_RUNTIME_SHIM 1
// The runtime's name for a call, in error messages: "cuda" "Malloc".
#define TH_GPU_CALL_NAME(name) "cuda" name

namespace th::kernels {
namespace {
namespace gpu {

// ------------------------------------------------------------- backend ---

constexpr Backend kBackend = Backend::kCuda;
constexpr char kBackendName[] = "CUDA";  // "CUDA error: ...", "no CUDA device: ..."
constexpr char kBackendTag[] = "cuda";   // "<Primitive> (cuda): ..."
// The build setting that lists the device architectures code is built for.
constexpr char kArchitecturesSetting[] = "CMAKE_CUDA_ARCHITECTURES";

// ----------------------------------------------------- runtime, errors ---

using Error = cudaError_t;
using Stream = cudaStream_t;
constexpr Error kSuccess = cudaSuccess;
constexpr Error kErrorNoDevice = cudaErrorNoDevice;

inline Error GetLastError() { return cudaGetLastError(); }
// "<name>: <description>", for failures inside a primitive.
inline std::string ErrorNameAndText(Error err) {
  return std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
}
// The description alone, for a device that cannot be used.
inline std::string ErrorText(Error err) { return cudaGetErrorString(err); }

// ------------------------------------------------ memory and streams ---

inline Error Malloc(void** p, size_t bytes) { return cudaMalloc(p, bytes); }
inline Error MallocAsync(void** p, size_t bytes, Stream s) { return cudaMallocAsync(p, bytes, s); }
inline Error Free(void* p) { return cudaFree(p); }
inline Error FreeAsync(void* p, Stream s) { return cudaFreeAsync(p, s); }
inline Error CopyToDeviceAsync(void* dst, const void* src, size_t bytes, Stream s) {
  return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s);
}
inline Error CopyToHostAsync(void* dst, const void* src, size_t bytes, Stream s) {
  return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, s);
}
inline Error CopyOnDeviceAsync(void* dst, const void* src, size_t bytes, Stream s) {
  return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s);
}
inline Error StreamCreateNonBlocking(Stream* s) {
  return cudaStreamCreateWithFlags(s, cudaStreamNonBlocking);
}
inline Error StreamSynchronize(Stream s) { return cudaStreamSynchronize(s); }
inline Error StreamDestroy(Stream s) { return cudaStreamDestroy(s); }

// ------------------------------------------------------------- devices ---

inline Error GetDeviceCount(int* count) { return cudaGetDeviceCount(count); }
inline Error SetDevice(int device) { return cudaSetDevice(device); }
inline Error GetMultiprocessorCount(int* count, int device) {
  return cudaDeviceGetAttribute(count, cudaDevAttrMultiProcessorCount, device);
}
inline Error GetMemoryPoolsSupported(int* supported, int device) {
  return cudaDeviceGetAttribute(supported, cudaDevAttrMemoryPoolsSupported, device);
}
// Keeps freed device memory in the default pool between calls instead of
// returning it to the driver at every synchronization (best effort).
inline void KeepFreedPoolMemory(int device) {
  cudaMemPool_t pool;
  if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
    uint64_t threshold = std::numeric_limits<uint64_t>::max();
    (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  }
}

// "sm_90" and "90"; "sm_00" and "00" when unreadable.
inline Architecture ArchitectureOf(int device) {
  int major = 0, minor = 0;
  (void)cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  (void)cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  const std::string digits = std::to_string(major) + std::to_string(minor);
  return {"sm_" + digits, digits};
}

// Fails when the current device has no code for kernel (an architecture the
// build left out).
template <typename... Args>
Error CheckKernelImage(void (*kernel)(Args...)) {
  cudaFuncAttributes attrs{};
  return cudaFuncGetAttributes(&attrs, kernel);
}

// The device list's entry for device.
inline Error Summarize(int device, DeviceSummary* out) {
  cudaDeviceProp prop{};
  const Error err = cudaGetDeviceProperties(&prop, device);
  if (err != cudaSuccess) return err;
  out->name = prop.name;
  out->architecture = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  out->bytes = prop.totalGlobalMem;
  return cudaSuccess;
}

// ------------------------------------------------- execution context ---

// Where the engine's device work goes: its stream, and whether device memory
// comes from the stream-ordered pool (MallocAsync) or from Malloc.
struct Exec {
  Stream stream = nullptr;
  bool pools = true;
};

inline Error AllocDevice(void** p, size_t bytes, const Exec& e) {
  return e.pools ? cudaMallocAsync(p, bytes, e.stream) : cudaMalloc(p, bytes);
}
inline Error FreeDevice(void* p, const Exec& e) {
  return e.pools ? cudaFreeAsync(p, e.stream) : cudaFree(p);
}

// Thrust's temporary storage from the engine's own device memory: the
// stream-ordered pool, which keeps freed blocks for reuse (KeepFreedPoolMemory),
// so repeated calls allocate nothing from the driver.
class ThrustAllocator {
 public:
  using value_type = char;
  explicit ThrustAllocator(const Exec& e) : exec_(e) {}
  char* allocate(std::ptrdiff_t bytes) {
    void* p = nullptr;
    const Error err = AllocDevice(&p, static_cast<size_t>(bytes), exec_);
    if (err != cudaSuccess) {
      throw thrust::system_error(err, thrust::cuda_category(), "Thrust temporary storage");
    }
    return static_cast<char*>(p);
  }
  void deallocate(char* p, size_t) { (void)FreeDevice(p, exec_); }

 private:
  Exec exec_;
};

// Runs call(policy) with Thrust's policy on the engine's stream, without the
// synchronization Thrust would add; a Thrust failure becomes its CUDA error.
template <typename F>
Error WithThrust(const Exec& e, F&& call) {
  ThrustAllocator alloc(e);
  try {
    call(thrust::cuda::par_nosync(alloc).on(e.stream));
    return cudaSuccess;
  } catch (const thrust::system_error& err) {
    if (err.code().category() == thrust::cuda_category()) {
      return static_cast<Error>(err.code().value());
    }
    return cudaErrorUnknown;
  } catch (const thrust::system::detail::bad_alloc&) {  // device memory, not host
    return cudaErrorMemoryAllocation;
  }
}

// --------------------------------------------- device-wide algorithms ---
// Thrust is the host API. Each call is enqueued on e.stream; one that returns
// a count to the host waits for it. k*Name names the call in errors.

constexpr char kFillName[] = "thrust::fill_n";
inline Error Fill(const Exec& e, unsigned long long* p, uint64_t n, unsigned long long value) {
  return WithThrust(e, [&](auto policy) { thrust::fill_n(policy, p, n, value); });
}

constexpr char kSequenceName[] = "thrust::sequence";
// p[i] = i.
inline Error Sequence(const Exec& e, uint32_t* p, uint64_t n) {
  return WithThrust(e, [&](auto policy) { thrust::sequence(policy, p, p + n); });
}

constexpr char kGatherName[] = "thrust::gather";
// dst[i] = src[idx[i]].
template <typename T>
Error Gather(const Exec& e, const T* src, const uint32_t* idx, uint64_t n, T* dst) {
  return WithThrust(e, [&](auto policy) { thrust::gather(policy, idx, idx + n, src, dst); });
}

constexpr char kScatterName[] = "thrust::scatter";
// dst[idx[i]] = src[i].
inline Error Scatter(const Exec& e, const unsigned long long* src, const uint32_t* idx, uint64_t n,
                     unsigned long long* dst) {
  return WithThrust(e, [&](auto policy) { thrust::scatter(policy, src, src + n, idx, dst); });
}

constexpr char kTransformName[] = "thrust::transform";
// p[i] = ~p[i] (reverses the order of int64 exactly).
inline Error Complement(const Exec& e, int64_t* p, uint64_t n) {
  return WithThrust(e, [&](auto policy) {
    thrust::transform(policy, p, p + n, p, ::cuda::std::bit_not<int64_t>{});
  });
}
// a[i] += b[i], modulo 2^64.
inline Error AddInto(const Exec& e, unsigned long long* a, const unsigned long long* b,
                     uint64_t n) {
  return WithThrust(e, [&](auto policy) {
    thrust::transform(policy, a, a + n, b, a, ::cuda::std::plus<unsigned long long>{});
  });
}
// a[i] -= b[i], modulo 2^64.
inline Error SubtractFrom(const Exec& e, unsigned long long* a, const unsigned long long* b,
                          uint64_t n) {
  return WithThrust(e, [&](auto policy) {
    thrust::transform(policy, a, a + n, b, a, ::cuda::std::minus<unsigned long long>{});
  });
}

struct AtLeast {
  uint64_t limit;
  __host__ __device__ bool operator()(uint32_t id) const { return id >= limit; }
};

constexpr char kFindFirstAtLeastName[] = "thrust::find_if";
// *first = the lowest i with ids[i] >= limit, or n; waits for the stream.
inline Error FindFirstAtLeast(const Exec& e, const uint32_t* ids, uint64_t n, uint64_t limit,
                              uint64_t* first) {
  return WithThrust(e, [&](auto policy) {
    *first = static_cast<uint64_t>(thrust::find_if(policy, ids, ids + n, AtLeast{limit}) - ids);
  });
}

constexpr char kSortByKeyName[] = "thrust::stable_sort_by_key";
// Stable ascending sort of (int64 key, uint32 value) pairs, in place.
inline Error SortByKey(const Exec& e, int64_t* keys, uint32_t* values, uint32_t n) {
  return WithThrust(
      e, [&](auto policy) { thrust::stable_sort_by_key(policy, keys, keys + n, values); });
}

struct NonZero {
  __host__ __device__ bool operator()(uint32_t flag) const { return flag != 0; }
};

constexpr char kSelectFlaggedName[] = "thrust::copy_if";
// The rows i < n with flags[i] != 0 of the columns (g, x, y), in order, into
// (og, ox, oy); *count = how many. Waits for the stream.
inline Error SelectFlagged(const Exec& e, const uint32_t* g, const int64_t* x, const int64_t* y,
                           const uint32_t* flags, uint32_t n, uint32_t* og, int64_t* ox,
                           int64_t* oy, uint32_t* count) {
  return WithThrust(e, [&](auto policy) {
    const auto in = thrust::make_zip_iterator(g, x, y);
    const auto out = thrust::make_zip_iterator(og, ox, oy);
    *count =
        static_cast<uint32_t>(thrust::copy_if(policy, in, in + n, flags, out, NonZero{}) - out);
  });
}

constexpr char kInclusiveMaxByKeyName[] = "thrust::inclusive_scan_by_key";
// out[i] = max of values over the run of equal keys up to i.
inline Error InclusiveMaxByKey(const Exec& e, const uint32_t* keys, const int64_t* values,
                               int64_t* out, uint32_t n) {
  return WithThrust(e, [&](auto policy) {
    thrust::inclusive_scan_by_key(policy, keys, keys + n, values, out,
                                  ::cuda::std::equal_to<uint32_t>{}, ::cuda::maximum<int64_t>{});
  });
}

constexpr char kSumByKeyName[] = "thrust::reduce_by_key";
// One (key, sum of values) per run of equal keys, into unique_keys and sums;
// *runs = the number of runs. Waits for the stream.
inline Error SumByKey(const Exec& e, const uint32_t* keys, const unsigned long long* values,
                      uint32_t n, uint32_t* unique_keys, unsigned long long* sums, uint32_t* runs) {
  return WithThrust(e, [&](auto policy) {
    const auto ends = thrust::reduce_by_key(policy, keys, keys + n, values, unique_keys, sums);
    *runs = static_cast<uint32_t>(ends.first - unique_keys);
  });
}

// CUB, not Thrust: Thrust's sorts take every key bit, and this one sorts only
// the low end_bit bits (fewer radix passes for few groups or segments).
// (temp, bytes, ...): with temp null it only sets bytes, the temporary storage
// the call needs.
constexpr char kSortPairsName[] = "cub::DeviceRadixSort::SortPairs";
// Stable ascending radix sort of (uint32 key, uint32 value) pairs on key bits
// [0, end_bit); the sorted pairs become the buffers' current ones.
inline Error SortPairs(void* temp, size_t& bytes, DoubleBuffer<uint32_t>& keys,
                       DoubleBuffer<uint32_t>& values, uint32_t n, int end_bit, Stream s) {
  cub::DoubleBuffer<uint32_t> k(keys.Current(), keys.Alternate());
  cub::DoubleBuffer<uint32_t> v(values.Current(), values.Alternate());
  const Error err = cub::DeviceRadixSort::SortPairs(temp, bytes, k, v, n, 0, end_bit, s);
  keys.SetCurrent(k.Current());
  values.SetCurrent(v.Current());
  return err;
}

// ------------------------------------------------------- device side ---

constexpr unsigned kFullWarp = 0xFFFFFFFFu;

__device__ __forceinline__ int WarpLanes() { return 32; }

__device__ __forceinline__ long long ShuffleXor(long long v, int lane_mask) {
  return __shfl_xor_sync(kFullWarp, v, lane_mask);
}

// Peers by __match_any: one leader per key in the warp. whole_warp only when
// all 32 lanes are valid and share the key; the leader is then lane 0.
template <typename Key>
__device__ __forceinline__ WarpPeers MatchPeers(Key key, bool valid) {
  const unsigned lane = threadIdx.x & 31u;
  const unsigned valid_lanes = __ballot_sync(kFullWarp, valid);
  unsigned peers;
  if constexpr (sizeof(Key) == 8) {
    peers = __match_any_sync(kFullWarp, static_cast<unsigned long long>(key)) & valid_lanes;
  } else {
    peers = __match_any_sync(kFullWarp, static_cast<unsigned>(key)) & valid_lanes;
  }
  WarpPeers out;
  out.leader = valid && lane == static_cast<unsigned>(__ffs(peers) - 1);
  out.count = static_cast<unsigned>(__popc(peers));
  out.whole_warp = peers == kFullWarp;
  return out;
}

__device__ __forceinline__ void AtomicMinInt64(long long* slot, long long v) { atomicMin(slot, v); }
__device__ __forceinline__ void AtomicMaxInt64(long long* slot, long long v) { atomicMax(slot, v); }

// floor((hi * 2^64 + lo) / d) for hi < d (the quotient fits 64 bits).
__device__ __forceinline__ uint64_t Divide128By64(uint64_t hi, uint64_t lo, uint64_t d) {
  const unsigned __int128 n = (static_cast<unsigned __int128>(hi) << 64) | lo;
  return static_cast<uint64_t>(n / d);
}

}  // namespace gpu
}  // namespace
}  // namespace th::kernels
