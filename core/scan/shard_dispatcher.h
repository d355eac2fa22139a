// Shards of a scheduler array: process i of N scans the runs whose index in
// the sorted run list satisfies index % N == i, so N independent jobs (a Slurm
// job array, a Kubernetes Indexed Job, a shell loop) cover every run exactly
// once without talking to each other; `tracehound merge` joins their databases.
//
// Where i and N come from (`tracehound scan --shard VALUE`):
//   "i/N"   explicit (0 <= i < N)
//   "/N"    N explicit, i from the environment (below)
//   "auto"  both from the environment:
//     Slurm:      SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT (an array such
//                 as --array=1-8 or 0-30:2 is normalised with
//                 SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_STEP)
//     Kubernetes: JOB_COMPLETION_INDEX (Indexed Job) with the count from
//                 "/N" or TRACEHOUND_SHARD_COUNT (Kubernetes does not export
//                 .spec.completions; set it in the pod's env)
// The environment is read only when --shard asks for it, never implicitly.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "core/graph/status.h"
#include "core/scan/run_dispatcher.h"

namespace th::scan {

struct ShardSpec {
  size_t index = 0;
  size_t count = 1;
  std::string
      source;  // where it came from, for messages: "--shard 1/4", "SLURM_ARRAY_TASK_ID=1 ..."
};

// Reads an environment variable; nullopt when unset. The default reads the
// process environment (std::getenv).
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup ProcessEnv();

// Parses the value of --shard. Errors (InvalidInput) name the value or the
// variable that is wrong and say what is expected.
StatusOr<ShardSpec> ParseShardSpec(const std::string& value, const EnvLookup& env = ProcessEnv());

// Runs spec.index, spec.index + N, spec.index + 2N, ... below `run_count`.
class ShardRunDispatcher final : public RunDispatcher {
 public:
  ShardRunDispatcher(size_t run_count, ShardSpec spec) : run_count_(run_count), spec_(spec) {}
  std::optional<size_t> Next() override;
  // How many runs this shard has in all.
  size_t size() const;

 private:
  size_t run_count_;
  ShardSpec spec_;
  std::atomic<size_t> taken_{0};
};

}  // namespace th::scan
