// Shared by the libFuzzer targets: one scratch folder per process (on tmpfs
// when there is one) for the readers that take a path, and a single-threaded
// oneTBB so a run is reproducible.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace th::fuzz {

// Writes `bytes` to <scratch>/<name> and returns the path.
std::string WriteScratch(const std::string& name, std::string_view bytes);

// Limits oneTBB to one thread for the life of the process.
void SingleThreaded();

// Aborts (a finding) with `what` when `ok` is false.
void Require(bool ok, const std::string& what);

}  // namespace th::fuzz
