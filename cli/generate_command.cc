#include "cli/generate_command.h"

#include <iostream>
#include <memory>
#include <string>

#include "core/synth/kineto_generator.h"

namespace th::synth {
namespace {

struct GenerateOptions {
  std::string out_dir;
  Scenario scenario;
  bool gzip = false;
  bool no_memory = false;
  bool absolute_timestamps = false;
};

}  // namespace

void AddGenerateCommand(CLI::App& app, int* exit_code) {
  auto opts = std::make_shared<GenerateOptions>();
  Scenario& s = opts->scenario;
  CLI::App* cmd = app.add_subcommand(
      "generate", "Write synthetic PyTorch/Kineto traces (one per rank) for tests and benchmarks");
  cmd->add_option("--out", opts->out_dir, "Output directory (created if missing)")->required();
  cmd->add_option("--ranks", s.ranks, "Ranks to simulate, one trace file each")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--steps", s.steps, "ProfilerStep iterations per rank")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--streams", s.streams, "Compute streams per GPU")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  cmd->add_option("--kernels-per-step", s.kernels_per_step, "Compute kernels per step")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--collectives-per-step", s.collectives_per_step, "NCCL collectives per step")
      ->capture_default_str()
      ->check(CLI::Range(0, 100000));
  cmd->add_option("--seed", s.seed, "Random seed (same seed, same bytes)")->capture_default_str();
  cmd->add_flag("--gzip", opts->gzip, "Write .json.gz");
  cmd->add_flag("--no-memory", opts->no_memory, "Omit [memory] events");
  cmd->add_flag("--absolute-timestamps", opts->absolute_timestamps,
                "Absolute epoch µs timestamps instead of baseTimeNanoseconds + relative ts");
  cmd->add_option("--straggler-rank", s.straggler_rank,
                  "Rank with slower GPU compute (-1 = none); the others wait in collectives")
      ->capture_default_str();
  cmd->callback([opts, exit_code]() {
    Scenario scenario = opts->scenario;
    scenario.memory_events = !opts->no_memory;
    scenario.relative_timestamps = !opts->absolute_timestamps;
    auto paths = WriteKinetoTraces(scenario, opts->out_dir, opts->gzip, nullptr);
    if (!paths.ok()) {
      std::cerr << "generate: " << paths.status().message() << "\n";
      *exit_code = 1;
      return;
    }
    for (const std::string& p : *paths) std::cout << p << "\n";
    *exit_code = 0;
  });
}

}  // namespace th::synth
