// th_amplify: grows a real Kineto trace into a big one for ingest benchmarks.
//   th_amplify --in ../shared/data/hta/tests/data/trace_diff/test/test.json.gz
//              --out /tmp/big.pt.trace.json --size 1G
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>

#include "benchmarks/trace_amplifier.h"

int main(int argc, char** argv) {
  CLI::App app{"Amplify a Kineto trace (.json / .json.gz) into a big one for ingest benchmarks"};
  std::string input, output, size = "1G";
  th::bench::AmplifyOptions options;
  int64_t gap_us = options.gap_ns / 1000;
  app.add_option("--in", input, "Source trace (.json or .json.gz)")
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
  CLI11_PARSE(app, argc, argv);

  auto target = th::bench::ParseByteSize(size);
  if (!target.ok()) {
    std::fprintf(stderr, "amplify: %s\n", target.status().message().c_str());
    return 2;
  }
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
