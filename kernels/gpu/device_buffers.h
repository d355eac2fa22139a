// Host side of the shared GPU engine: runtime failures as exceptions, the
// device context, device buffers, copies and device-wide algorithm calls,
// over a runtime shim (cuda_runtime_shim.h or hip_runtime_shim.h, included
// first).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/gpu/require_runtime_shim.h"

namespace th::kernels {
namespace {

// ---------------------------------------------------------------- errors ---

// A GPU runtime failure; caught at the Engine method boundary.
class GpuFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void Check(gpu::Error err, const char* what) {
  if (err == gpu::kSuccess) return;
  (void)gpu::GetLastError();  // clear a non-sticky error so later calls can run
  throw GpuFailure(std::string(what) + ": " + gpu::ErrorNameAndText(err));
}

void CheckLaunch(const char* kernel) { Check(gpu::GetLastError(), kernel); }

// ------------------------------------------------------- device memory ---

struct DeviceContext {
  gpu::Stream stream = nullptr;
  bool pools = true;  // stream-ordered allocator (MallocAsync) available
  int sms = 1;

  // What the shim's device-wide algorithms run on.
  gpu::Exec exec() const { return {stream, pools}; }
};

template <typename T>
class DevBuf {
 public:
  DevBuf() = default;
  DevBuf(const DeviceContext& ctx, size_t n) : n_(n), ctx_(&ctx) {
    if (n == 0) return;
    void* p = nullptr;
    if (ctx.pools) {
      Check(gpu::MallocAsync(&p, n * sizeof(T), ctx.stream), TH_GPU_CALL_NAME("MallocAsync"));
    } else {
      Check(gpu::Malloc(&p, n * sizeof(T)), TH_GPU_CALL_NAME("Malloc"));
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
      (void)gpu::FreeAsync(p_, ctx_->stream);
    } else {
      (void)gpu::Free(p_);
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
  Check(gpu::CopyToDeviceAsync(dst, src, n * sizeof(T), ctx.stream),
        TH_GPU_CALL_NAME("MemcpyAsync") " (host to device)");
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
  Check(gpu::CopyToHostAsync(dst, src, n * sizeof(D), ctx.stream),
        TH_GPU_CALL_NAME("MemcpyAsync") " (device to host)");
}

template <typename T>
void CopyOnDevice(const DeviceContext& ctx, T* dst, const T* src, size_t n) {
  if (n == 0) return;
  Check(gpu::CopyOnDeviceAsync(dst, src, n * sizeof(T), ctx.stream),
        TH_GPU_CALL_NAME("MemcpyAsync") " (device to device)");
}

void Sync(const DeviceContext& ctx) {
  Check(gpu::StreamSynchronize(ctx.stream), TH_GPU_CALL_NAME("StreamSynchronize"));
}

// Runs a device-wide algorithm of the shim in the two-call form twice: once
// for its temporary storage size, once with that storage.
template <typename F>
void RunDeviceAlgorithm(const DeviceContext& ctx, const char* what, F&& call) {
  size_t bytes = 0;
  Check(call(nullptr, bytes), what);
  DevBuf<unsigned char> temp(ctx, std::max<size_t>(bytes, 1));
  Check(call(temp.get(), bytes), what);
}

}  // namespace
}  // namespace th::kernels
