// th_amplify: grows a real Kineto trace or XSpace into a big one for ingest benchmarks.
//   th_amplify --in ../shared/data/hta/tests/data/trace_diff/test/test.json.gz
//              --out /tmp/big.pt.trace.json --size 1G
//   th_amplify --in ../shared/data/xprof/xprof/convert/test_xplanes/tpu_inference_2.xplane.pb
//              --out /tmp/big.xplane.pb --size 1G
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "benchmarks/trace_amplifier.h"
#include "benchmarks/xspace_amplifier.h"

namespace {

// XSpace (.pb input): binary protobuf, repeated line by line (xspace_amplifier.h).
int AmplifyXSpaceMain(const std::string& input, const std::string& output, int64_t target,
                      int64_t repetitions, int64_t gap_us, bool verify) {
  th::bench::XSpaceAmplifyOptions options;
  options.target_bytes = target;
  options.repetitions = repetitions;
  options.gap_ps = gap_us * 1000000;
  auto t0 = std::chrono::steady_clock::now();
  auto stats = th::bench::AmplifyXSpaceFile(input, output, options, verify);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!stats.ok()) {
    std::fprintf(stderr, "amplify: %s\n", stats.status().message().c_str());
    return 1;
  }
  const auto& s = *stats;
  const double mib = 1024.0 * 1024.0;
  std::printf("source:  %s\n         %lld events, %lld bytes (%lld in events, %.1f bytes/event)\n",
              input.c_str(), static_cast<long long>(s.source_events),
              static_cast<long long>(s.source_bytes), static_cast<long long>(s.source_event_bytes),
              static_cast<double>(s.source_event_bytes) / std::max<int64_t>(1, s.source_events));
  std::printf("output:  %s\n         %lld repetitions, %lld events, %lld bytes (%.1f MiB)\n",
              output.c_str(), static_cast<long long>(s.repetitions),
              static_cast<long long>(s.events_written), static_cast<long long>(s.bytes_written),
              s.bytes_written / mib);
  std::printf("shift:   %lld ps per copy, correlation_id +%lld per copy\n",
              static_cast<long long>(s.period_ps), static_cast<long long>(s.correlation_stride));
  std::printf("time:    %.2f s%s\n", secs,
              verify ? " (re-read with the strict reader: K x events, line by line)" : "");
  return 0;
}

bool IsXSpace(const std::string& path) { return path.size() >= 3 && path.ends_with(".pb"); }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Amplify a Kineto trace (.json / .json.gz) or an XSpace (.xplane.pb) into a big one for "
      "ingest benchmarks"};
  std::string input, output, size = "1G";
  th::bench::AmplifyOptions options;
  int64_t gap_us = options.gap_ns / 1000;
  app.add_option("--in", input, "Source trace (.json, .json.gz or .xplane.pb)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--out", output, "Output trace (.json, or gzip when it ends in .gz)")->required();
  app.add_option("--size", size, "Uncompressed output size to reach, e.g. 1G, 512M")
      ->capture_default_str();
  app.add_option("--repetitions", options.repetitions, "Exact number of copies (overrides --size)");
  app.add_option("--gap-us", gap_us, "Idle µs between copies")->capture_default_str();
  app.add_option("--gzip-level", options.gzip_level, "ISA-L level for .gz output (0-3)")
      ->capture_default_str()
      ->check(CLI::Range(0, 3));
  bool no_verify = false;
  app.add_flag("--no-verify", no_verify, "XSpace: skip re-reading the output");
  CLI11_PARSE(app, argc, argv);

  auto target = th::bench::ParseByteSize(size);
  if (!target.ok()) {
    std::fprintf(stderr, "amplify: %s\n", target.status().message().c_str());
    return 2;
  }
  if (IsXSpace(input))
    return AmplifyXSpaceMain(input, output, *target, options.repetitions, gap_us, !no_verify);
  options.target_bytes = *target;
  options.gap_ns = gap_us * 1000;
  auto stats = th::bench::AmplifyKinetoTrace(input, output, options);
  if (!stats.ok()) {
    std::fprintf(stderr, "amplify: %s\n", stats.status().message().c_str());
    return 1;
  }
  const auto& s = *stats;
  const double mib = 1024.0 * 1024.0;
  std::printf("source:  %s\n         %lld events, %.1f MiB JSON, %.1f bytes/event\n", input.c_str(),
              static_cast<long long>(s.source_events), s.source_bytes / mib,
              s.source_bytes_per_event);
  std::printf(
      "output:  %s\n         %lld repetitions, %lld events written, %lld bytes (%.1f MiB JSON",
      output.c_str(), static_cast<long long>(s.repetitions),
      static_cast<long long>(s.events_written), static_cast<long long>(s.bytes_written),
      s.bytes_written / mib);
  if (s.file_bytes != s.bytes_written) std::printf(", %.1f MiB on disk", s.file_bytes / mib);
  std::printf("), %.1f bytes/event (%+.1f%% vs source)\n", s.output_bytes_per_event,
              100.0 * (s.output_bytes_per_event / s.source_bytes_per_event - 1.0));
  std::printf(
      "shape:   repeated (non-metadata) events %.1f bytes/event in source, %.1f in output "
      "(%+.1f%%)\n",
      s.source_repeated_bytes_per_event, s.output_repeated_bytes_per_event,
      100.0 *
          (s.output_repeated_bytes_per_event / std::max(1e-9, s.source_repeated_bytes_per_event) -
           1.0));
  std::printf("shift:   %lld ns per copy, ids +%lld per copy, ProfilerStep# +%lld per copy\n",
              static_cast<long long>(s.period_ns), static_cast<long long>(s.id_stride),
              static_cast<long long>(s.step_stride));
  std::printf("time:    load %.2f s, write %.2f s (%.0f MiB/s)\n", s.load_seconds, s.write_seconds,
              s.bytes_written / mib / std::max(1e-9, s.write_seconds));
  return 0;
}
