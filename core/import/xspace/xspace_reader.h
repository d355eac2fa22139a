// Reads a binary tensorflow.profiler.XSpace (`*.xplane.pb`) without libprotobuf.
#pragma once

#include <string>
#include <string_view>

#include "core/graph/status.h"
#include "core/import/xspace/xspace_model.h"

namespace th::xspace {

// Decodes `bytes` strictly (see wire_reader.h). Errors read
// "<name>: <what> at byte offset N (in <path>)", e.g. path
// `planes[2].lines[0].events[7]`, matching ../shared/tools/oracle.py.
th::StatusOr<XSpaceData> ReadXSpace(std::string_view bytes, const std::string& name);

// The same without the fast paths for events and stats (every field through
// the strict field-by-field decoder): slower, same result. For tests.
th::StatusOr<XSpaceData> ReadXSpaceStrictOnly(std::string_view bytes, const std::string& name);

// Maps the file read-only and decodes it; the name in errors is `path`.
th::StatusOr<XSpaceData> ReadXSpaceFile(const std::string& path);

}  // namespace th::xspace
