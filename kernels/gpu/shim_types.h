// The types of the runtime shims' interface (cuda_runtime_shim.h,
// hip_runtime_shim.h): what the shared GPU engine hands to a shim or gets back.
#pragma once

#include <cstdint>
#include <string>

namespace th::kernels {

// Two device buffers that a radix sort ping-pongs between: one holds the
// current contents, the other is scratch. The shims translate it to their
// library's own double buffer.
template <typename T>
class DoubleBuffer {
 public:
  DoubleBuffer(T* current, T* alternate) : buffers_{current, alternate} {}

  T* Current() const { return buffers_[selector_]; }
  T* Alternate() const { return buffers_[selector_ ^ 1]; }
  // Makes p, which is one of the two buffers, the current one.
  void SetCurrent(const T* p) { selector_ = p == buffers_[1] ? 1 : 0; }

 private:
  T* buffers_[2];
  int selector_ = 0;
};

// How a lane's row joins the other valid rows of its warp (wavefront) that
// hold the same key (gpu::MatchPeers). Every valid row is counted by exactly
// one leader: leader says this lane adds count rows, its own and its peers'.
// whole_warp (the same in every lane) says the warp's valid rows all share one
// key, so a register reduction over the warp (invalid lanes holding the
// identity) gives their total for the one leader to add.
struct WarpPeers {
  bool leader = false;
  unsigned count = 0;
  bool whole_warp = false;
};

// A device's architecture: name as the device list shows it ("sm_90",
// "gfx90a") and build_name as the shim's kArchitecturesSetting spells it
// ("90", "gfx90a").
struct Architecture {
  std::string name, build_name;
};

// One device in the device list.
struct DeviceSummary {
  std::string name, architecture;
  uint64_t bytes = 0;  // global memory
};

}  // namespace th::kernels
