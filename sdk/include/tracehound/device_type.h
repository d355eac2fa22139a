// Names of c10::DeviceType values as profilers record them (allocator
// events' "Device Type"), shared by plugins (oom-risk) and the host's reports,
// so a device is spelled the same everywhere.
#pragma once

#include <cstdint>
#include <string>

namespace th::sdk {

inline std::string DeviceTypeName(int32_t type) {
  switch (type) {
    case 0:
      return "CPU";
    case 1:
      return "CUDA";
    case 6:
      return "HIP";
    case 12:
      return "XPU";
    case 13:
      return "MPS";
    case 19:
      return "MTIA";
    case 20:
      return "PrivateUse1";
    default:
      return "device type " + std::to_string(type);
  }
}

}  // namespace th::sdk
