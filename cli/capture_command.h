// `tracehound capture HOST:PORT... (--steps N | --snapshot) --out DIR`: asks
// every named worker (a job running tracehound.capture.serve) at once for a
// capture, the next N steps or its ring buffer's last steps, and writes their
// traces and manifests into DIR as one run (rank<R>.trace.json and
// rank<R>.tracehound-manifest.json). All workers answer or nothing is
// written. An endpoint that is no tracehound.capture server is named, and
// one that speaks HTTP/2 only (gRPC: JAX's profiler server,
// jax.profiler.start_server) is said to be one.
#pragma once

#include <CLI/CLI.hpp>

namespace th::cli {

void AddCaptureCommand(CLI::App& app, int* exit_code);

}  // namespace th::cli
