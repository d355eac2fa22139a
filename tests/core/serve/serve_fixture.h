// Test helper: a small generated Kineto trace for the serve tests: nested
// Python frames over a CPU op that launches a kernel (correlation 7), and
// 3,000 short kernels on a second stream (dense enough to merge into buckets).
#pragma once

#include <string>

namespace th::serve::testing {

// Writes the trace to a temporary file and returns its path.
std::string WriteServeFixture(const std::string& name);

}  // namespace th::serve::testing
