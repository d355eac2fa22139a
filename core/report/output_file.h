// Writes a report to stdout ("" or "-") or to a file, atomically: the text goes
// to a temporary name beside the target, then is renamed over it, so a failed
// run never leaves a half-written report. A symbolic link to a regular file is
// kept (the file it points to is replaced). Anything that is not a regular
// file or a new path (a character device such as /dev/null, a FIFO, a socket,
// or a link to one) is written in place, never renamed over.
#pragma once

#include <string>
#include <string_view>

#include "core/graph/status.h"

namespace th {

Status WriteOutput(const std::string& path, std::string_view text);

}  // namespace th
