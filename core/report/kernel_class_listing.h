// The kernel class table as a user reads it (`tracehound kernel-classes`):
// every rule in match order with its set, class, case, pattern and source.
#pragma once

#include <ostream>

#include "core/graph/kernel_class_table.h"

namespace th {

// One line per rule under a header, columns padded to their longest cell.
void WriteKernelClassTable(const KernelClassTable& table, std::ostream& out);

// {"rules": [{set, class, match, ignore_case, source, from_pipeline}],
//  "defaults": {kernel, memcpy, memset}}.
void WriteKernelClassTableJson(const KernelClassTable& table, std::ostream& out);

}  // namespace th
