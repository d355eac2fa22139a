// XSpace (.xplane.pb) → one Trace in the common event graph.
//
// Every line of every plane is a track (pid = plane id, tid = line id; names
// from the plane and line). Device planes' stream lines ("Stream #N") hold GPU
// activity: kernels, and memcpy/memset by name; TPU "XLA Ops" lines hold device
// ops (as kernels). Host-plane events are host slices. Times: line
// timestamp_ns + offset_ps / 1000, rounded to the nearest ns (picosecond digits
// below that are counted in the trust table). The `correlation_id` stat links
// kernels to their launches.
#pragma once

#include <memory>
#include <string>

#include "core/graph/status.h"
#include "core/graph/trace.h"

namespace th::xspace {

StatusOr<std::unique_ptr<Trace>> ImportXSpaceFile(const std::string& path);

}  // namespace th::xspace
