#include "device_identity.h"

namespace th::roofline {
namespace {

struct Identity {
  const char* vendor;  // the generic plane name it applies to
  int32_t major, minor, units;
  int64_t min_gib, max_gib;  // memory as the runtime reports it (some is reserved)
  const char* product;
};

// Only products no other part shares the properties with.
constexpr Identity kIdentities[] = {
    {"AMD GPU", 9, 4, 304, 180, 200, "MI300X"},
};

}  // namespace

std::string IdentifiedDeviceName(std::string_view name, int32_t major, int32_t minor, int32_t units,
                                 int64_t memory_bytes) {
  const int64_t gib = memory_bytes >> 30;
  for (const Identity& id : kIdentities) {
    if (name != id.vendor || major != id.major || minor != id.minor || units != id.units ||
        gib < id.min_gib || gib > id.max_gib)
      continue;
    return std::string(name) + " [" + id.product + ": gfx " + std::to_string(major) + "." +
           std::to_string(minor) + ", " + std::to_string(units) + " CUs, " + std::to_string(gib) +
           " GiB]";
  }
  return std::string(name);
}

}  // namespace th::roofline
