#include "core/scan/shard_dispatcher.h"

#include <charconv>
#include <cstdlib>

namespace th::scan {

namespace {

// A non-negative decimal integer, the whole string; nullopt otherwise.
std::optional<size_t> ParseCount(std::string_view s) {
  size_t value = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

// The value of variable `name` as a number; `*error` set when it is set but
// not a number.
std::optional<size_t> EnvNumber(const EnvLookup& env, const std::string& name, Status* error) {
  std::optional<std::string> v = env(name);
  if (!v) return std::nullopt;
  std::optional<size_t> n = ParseCount(*v);
  if (!n && error->ok())
    *error = InvalidInput(name + "='" + *v + "' is not a non-negative integer");
  return n;
}

Status CheckRange(const ShardSpec& spec) {
  if (spec.count == 0) return InvalidInput(spec.source + ": the shard count must be at least 1");
  if (spec.index >= spec.count)
    return InvalidInput(spec.source + ": shard index " + std::to_string(spec.index) +
                        " is not below the shard count " + std::to_string(spec.count) +
                        " (indices run from 0 to count-1)");
  return Ok();
}

// i (and N when the environment has it) from Slurm or Kubernetes variables.
StatusOr<ShardSpec> FromEnvironment(std::optional<size_t> count, const std::string& flag,
                                    const EnvLookup& env) {
  Status error;
  ShardSpec spec;
  if (env("SLURM_ARRAY_TASK_ID")) {
    std::optional<size_t> id = EnvNumber(env, "SLURM_ARRAY_TASK_ID", &error);
    std::optional<size_t> n = EnvNumber(env, "SLURM_ARRAY_TASK_COUNT", &error);
    std::optional<size_t> min = EnvNumber(env, "SLURM_ARRAY_TASK_MIN", &error);
    std::optional<size_t> step = EnvNumber(env, "SLURM_ARRAY_TASK_STEP", &error);
    if (!error.ok()) return error;
    size_t first = min.value_or(0), stride = step.value_or(1);
    if (stride == 0) return InvalidInput("SLURM_ARRAY_TASK_STEP='0' is not a valid array step");
    if (*id < first || (*id - first) % stride != 0)
      return InvalidInput("SLURM_ARRAY_TASK_ID=" + std::to_string(*id) +
                          " is not in the array (SLURM_ARRAY_TASK_MIN=" + std::to_string(first) +
                          ", SLURM_ARRAY_TASK_STEP=" + std::to_string(stride) + ")");
    spec.index = (*id - first) / stride;
    spec.source = "SLURM_ARRAY_TASK_ID=" + std::to_string(*id);
    if (min && *min != 0) spec.source += " SLURM_ARRAY_TASK_MIN=" + std::to_string(*min);
    if (step && *step != 1) spec.source += " SLURM_ARRAY_TASK_STEP=" + std::to_string(*step);
    if (count) {
      spec.count = *count;
      spec.source += " with --shard " + flag;
    } else if (n) {
      spec.count = *n;
      spec.source += " SLURM_ARRAY_TASK_COUNT=" + std::to_string(*n);
    } else {
      return InvalidInput("--shard " + flag +
                          ": SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; give "
                          "the count as --shard /N");
    }
    return spec;
  }
  if (env("JOB_COMPLETION_INDEX")) {
    std::optional<size_t> id = EnvNumber(env, "JOB_COMPLETION_INDEX", &error);
    std::optional<size_t> n = EnvNumber(env, "TRACEHOUND_SHARD_COUNT", &error);
    if (!error.ok()) return error;
    spec.index = *id;
    spec.source = "JOB_COMPLETION_INDEX=" + std::to_string(*id);
    if (count) {
      spec.count = *count;
      spec.source += " with --shard " + flag;
    } else if (n) {
      spec.count = *n;
      spec.source += " TRACEHOUND_SHARD_COUNT=" + std::to_string(*n);
    } else {
      return InvalidInput(
          "--shard " + flag +
          ": JOB_COMPLETION_INDEX is set but not the shard count; give it as --shard /N or in "
          "TRACEHOUND_SHARD_COUNT (the Indexed Job's completions)");
    }
    return spec;
  }
  return InvalidInput("--shard " + flag +
                      ": takes the shard index from the environment, but neither "
                      "SLURM_ARRAY_TASK_ID (Slurm job array) nor JOB_COMPLETION_INDEX (Kubernetes "
                      "Indexed Job) is set; give it explicitly as --shard i/N");
}

}  // namespace

EnvLookup ProcessEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
}

StatusOr<ShardSpec> ParseShardSpec(const std::string& value, const EnvLookup& env) {
  auto bad = [&] {
    return InvalidInput("--shard '" + value +
                        "' is not i/N (e.g. 0/4), /N (index from the environment) or auto");
  };
  StatusOr<ShardSpec> spec = ShardSpec{};
  if (value == "auto") {
    spec = FromEnvironment(std::nullopt, value, env);
  } else {
    size_t slash = value.find('/');
    if (slash == std::string::npos) return bad();
    std::optional<size_t> count = ParseCount(std::string_view(value).substr(slash + 1));
    if (!count) return bad();
    if (slash == 0) {
      spec = FromEnvironment(count, value, env);
    } else {
      std::optional<size_t> index = ParseCount(std::string_view(value).substr(0, slash));
      if (!index) return bad();
      spec = ShardSpec{*index, *count, "--shard " + value};
    }
  }
  if (!spec.ok()) return spec;
  TH_RETURN_IF_ERROR(CheckRange(*spec));
  return spec;
}

std::optional<size_t> ShardRunDispatcher::Next() {
  size_t k = taken_.fetch_add(1, std::memory_order_relaxed);
  if (k >= size()) return std::nullopt;
  return spec_.index + k * spec_.count;
}

size_t ShardRunDispatcher::size() const {
  if (spec_.index >= run_count_) return 0;
  return (run_count_ - spec_.index + spec_.count - 1) / spec_.count;
}

}  // namespace th::scan
