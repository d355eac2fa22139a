// The CUDA runtime and CUB under the names the shared GPU engine uses
// (namespace gpu; see kernels/README.md). Include first, then the shared
// bodies (kernels/gpu/engine.h). The only file of the CUDA backend that names
// the CUDA runtime API or CUB.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/util_type.cuh>
#include <cuda/functional>
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

// --------------------------------------------- device-wide algorithms ---
// Each takes (temp, bytes, ...): with temp null it only sets bytes, the
// temporary storage the call needs. k*Name names the call in errors.

// Scans may write their output over their input.
constexpr bool kInPlaceScans = true;

constexpr char kSortPairsName[] = "cub::DeviceRadixSort::SortPairs";
// Stable ascending radix sort of (key, uint32 value) pairs on key bits
// [0, end_bit); the sorted pairs become the buffers' current ones.
template <typename Key>
Error SortPairs(void* temp, size_t& bytes, DoubleBuffer<Key>& keys, DoubleBuffer<uint32_t>& values,
                uint32_t n, int end_bit, Stream s) {
  cub::DoubleBuffer<Key> k(keys.Current(), keys.Alternate());
  cub::DoubleBuffer<uint32_t> v(values.Current(), values.Alternate());
  const Error err = cub::DeviceRadixSort::SortPairs(temp, bytes, k, v, n, 0, end_bit, s);
  keys.SetCurrent(k.Current());
  values.SetCurrent(v.Current());
  return err;
}

constexpr char kExclusiveSumName[] = "cub::DeviceScan::ExclusiveSum";
inline Error ExclusiveSum(void* temp, size_t& bytes, const uint32_t* in, uint32_t* out, uint32_t n,
                          Stream s) {
  return cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, n, s);
}

constexpr char kInclusiveSumName[] = "cub::DeviceScan::InclusiveSum";
inline Error InclusiveSum(void* temp, size_t& bytes, unsigned long long* in,
                          unsigned long long* out, uint32_t n, Stream s) {
  return cub::DeviceScan::InclusiveSum(temp, bytes, in, out, n, s);
}

constexpr char kInclusiveMaxByKeyName[] = "cub::DeviceScan::InclusiveScanByKey";
// out[i] = max of values over the run of equal keys up to i.
inline Error InclusiveMaxByKey(void* temp, size_t& bytes, const uint32_t* keys,
                               const int64_t* values, int64_t* out, uint32_t n, Stream s) {
  return cub::DeviceScan::InclusiveScanByKey(temp, bytes, keys, values, out, ::cuda::maximum<>{}, n,
                                             ::cuda::std::equal_to<>{}, s);
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
