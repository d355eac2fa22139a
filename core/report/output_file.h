// Writes a report to stdout ("" or "-") or to a file, atomically: the text goes
// to a temporary name beside the target, then is renamed over it, so a failed
// run never leaves a half-written report.
#pragma once

#include <string>
#include <string_view>

#include "core/graph/status.h"

namespace th {

Status WriteOutput(const std::string& path, std::string_view text);

}  // namespace th
