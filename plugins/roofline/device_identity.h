// XSpace GPU planes name AMD devices only by vendor ("AMD GPU"); their
// properties (gfx version as compute major.minor, compute units, memory)
// still tell the product when exactly one product has them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace th::roofline {

// `name`, with " [PRODUCT: gfx M.m, N CUs, G GiB]" appended when the name
// alone names no product and the properties identify exactly one in the
// shipped identity list (today: MI300X = gfx 9.4, 304 CUs, 192 GB class
// memory). Otherwise `name` unchanged (gfx 9.5 with 256 CUs and 288 GB is
// either an MI350X or an MI355X: not guessed; the option `device` says).
std::string IdentifiedDeviceName(std::string_view name, int32_t compute_major,
                                 int32_t compute_minor, int32_t units, int64_t memory_bytes);

}  // namespace th::roofline
