#include "core/sdk_scaffold/plugin_scaffold.h"

#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace th {
namespace {

namespace fs = std::filesystem;

// Placeholders in the templates below.
//   @ID@       kebab-case plugin id            long-kernels
//   @SNAKE@    file, target and library name   long_kernels
//   @CLASS@    the plugin class                LongKernels
//   @SDK@      find_package version            0.1
//   @KIND@     analyzer or detector
//   @PIPELINE_OPTIONS@  the plugin's entry in the README's pipeline
std::string Expand(std::string_view text, std::string_view id, std::string_view kind,
                   std::string_view pipeline_options) {
  return ExpandPlaceholders(text, {
                                      {"@ID@", std::string(id)},
                                      {"@SNAKE@", PluginIdToSnakeCase(id)},
                                      {"@CLASS@", PluginIdToClassName(id)},
                                      {"@SDK@", TRACEHOUND_SDK_VERSION},
                                      {"@KIND@", std::string(kind)},
                                      {"@PIPELINE_OPTIONS@", std::string(pipeline_options)},
                                  });
}

constexpr std::string_view kCMakeLists =
    R"tmpl(# @ID@: a tracehound @KIND@, built out of tree against the installed SDK.
#
#   cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=<tracehound install prefix>
#   cmake --build build
#   ctest --test-dir build --output-on-failure
cmake_minimum_required(VERSION 3.20)
project(@SNAKE@ VERSION 0.1.0 LANGUAGES CXX)

# Plugins run inside tracehound's pipeline: build them optimised unless a
# build type is given.
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()

find_package(tracehound_sdk @SDK@ REQUIRED)

# The plugin library, build/@SNAKE@.so. tracehound finds it on a pipeline's
# plugin_paths, on TRACEHOUND_PLUGIN_PATH, or, after `cmake --install build
# --prefix <tracehound install prefix>`, next to tracehound itself.
th_add_plugin(@SNAKE@ @SNAKE@.cc)

# The plugin's test, written with the SDK's test kit <tracehound/testing.h>:
# it loads @SNAKE@.so as tracehound does, runs it on traces built in memory
# and checks what it reports. Needs neither tracehound nor a test framework.
enable_testing()
add_executable(test_@SNAKE@ test_@SNAKE@.cc)
target_link_libraries(test_@SNAKE@ PRIVATE tracehound::sdk ${CMAKE_DL_LIBS})
add_dependencies(test_@SNAKE@ @SNAKE@)
add_test(NAME @SNAKE@ COMMAND test_@SNAKE@ $<TARGET_FILE:@SNAKE@>)
)tmpl";

constexpr std::string_view kAnalyzer =
    R"tmpl(// @ID@: events per rank and GPU time per stream. A working starting point
// written by `tracehound new-plugin --kind analyzer`: change Declare() and Run()
// to what @ID@ should measure, and README.md and test_@SNAKE@.cc with them.
#include <tracehound/sdk.h>

#include <cstdint>
#include <vector>

namespace {

class @CLASS@ final : public th::sdk::Plugin {
 public:
  // Everything tracehound knows about the plugin before running it: the
  // pipeline schema, option checking and `tracehound plugins describe @ID@`
  // come from here. Run() sees only the tables named in Reads(), and may
  // publish only the tables declared with Publishes().
  static th::sdk::Declaration Declare() {
    return th::sdk::Declaration("@ID@", "0.1.0", th::sdk::kAnalyzer,
                                "Events per rank and GPU time per stream")
        .Reads({"events", "tracks"})
        .Publishes(th::sdk::Schema("@SNAKE@_streams", "GPU time per stream")
                       .Int("rank")
                       .Int("device")
                       .Int("stream")
                       .Int("time", "ns", "summed durations of the stream's GPU activities")
                       .Int("busy", "ns", "time the stream was busy (union of its activities)"))
        .Option("kernels_only", false, "count only GPU kernels");
  }

  // Called once per pipeline run with every trace (one per rank). Report with
  // ctx.Metric(), ctx.Add(th::sdk::Finding(...)) and ctx.Publish(th::sdk::Table(...));
  // an exception becomes an error of this plugin, never a crash of tracehound.
  void Run(th::sdk::Context& ctx) override {
    const bool kernels_only = ctx.GetBool("kernels_only");
    std::vector<int64_t> rank, device, stream, time, busy;
    for (const th::sdk::Trace& trace : ctx.traces()) {
      int64_t events = 0;
      // The GPU activities counted, by track: the keys of the primitives below.
      std::vector<uint32_t> track;
      std::vector<int64_t> begin, end, dur;
      for (uint64_t i = 0; i < trace.size(); ++i) {
        if (kernels_only && trace.kind(i) != TH_EVENT_KERNEL) continue;
        ++events;
        if (!trace.is_gpu_activity(i)) continue;
        track.push_back(trace.track_index(i));
        begin.push_back(trace.ts(i));
        end.push_back(trace.end(i));
        dur.push_back(trace.dur(i));
      }
      th::sdk::Scope scope;
      scope.rank = trace.rank();
      ctx.Metric("events", static_cast<double>(events), "count", th::sdk::kMeasured, scope);

      // Compute primitives run on the pipeline's backend (oneTBB, or a GPU
      // for large inputs).
      const size_t tracks = trace.track_count();
      const std::vector<int64_t> summed =
          ctx.ReduceByKey(track, dur, th::sdk::Context::Reduce::kSum, tracks);
      const std::vector<int64_t> covered = ctx.IntervalUnion(track, begin, end, tracks);
      std::vector<bool> active(tracks, false);
      for (uint32_t t : track) active[t] = true;
      for (uint32_t t = 0; t < tracks; ++t) {
        if (!active[t]) continue;
        rank.push_back(trace.rank());
        device.push_back(trace.track(t).device);
        stream.push_back(trace.track(t).stream);
        time.push_back(summed[t]);
        busy.push_back(covered[t]);
      }
    }
    ctx.Publish(th::sdk::Table("@SNAKE@_streams")
                    .Int("rank", rank)
                    .Int("device", device)
                    .Int("stream", stream)
                    .Int("time", time, "ns")
                    .Int("busy", busy, "ns"));
  }
};

}  // namespace

TH_PLUGIN(@CLASS@)
)tmpl";

constexpr std::string_view kDetector =
    R"tmpl(// @ID@: GPU kernels that run at least a threshold, one finding per kernel
// name and rank. A working starting point written by `tracehound new-plugin
// --kind detector`: change Declare() and Run() to what @ID@ should find, and
// README.md and test_@SNAKE@.cc with them.
#include <tracehound/sdk.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace {

class @CLASS@ final : public th::sdk::Plugin {
 public:
  // Everything tracehound knows about the plugin before running it: the
  // pipeline schema, option checking and `tracehound plugins describe @ID@`
  // come from here. Run() sees only the tables named in Reads().
  static th::sdk::Declaration Declare() {
    return th::sdk::Declaration("@ID@", "0.1.0", th::sdk::kDetector,
                                "GPU kernels that run at least a threshold")
        .Reads({"events"})
        .Option("threshold_us", int64_t{1000}, "report kernels at least this long, in µs")
        .Min(0);
  }

  // Called once per pipeline run with every trace (one per rank). Report with
  // ctx.Add(th::sdk::Finding(...)), ctx.Metric() and ctx.Publish(...); an
  // exception becomes an error of this plugin, never a crash of tracehound.
  void Run(th::sdk::Context& ctx) override {
    const int64_t threshold_ns = ctx.GetInt("threshold_us") * 1000;
    for (const th::sdk::Trace& trace : ctx.traces()) {
      // The long kernels, keyed by a dense index of their name.
      std::map<uint32_t, uint32_t> key_of_name;
      std::vector<uint32_t> names, keys;
      std::vector<int64_t> dur, first, last;
      for (uint64_t i = 0; i < trace.size(); ++i) {
        if (trace.kind(i) != TH_EVENT_KERNEL || trace.dur(i) < threshold_ns) continue;
        auto [it, added] =
            key_of_name.emplace(trace.name_id(i), static_cast<uint32_t>(names.size()));
        if (added) {
          names.push_back(trace.name_id(i));
          first.push_back(trace.ts(i));
          last.push_back(trace.end(i));
        }
        keys.push_back(it->second);
        dur.push_back(trace.dur(i));
        first[it->second] = std::min(first[it->second], trace.ts(i));
        last[it->second] = std::max(last[it->second], trace.end(i));
      }
      if (names.empty()) continue;
      // Compute primitives run on the pipeline's backend (oneTBB, or a GPU
      // for large inputs).
      const std::vector<int64_t> total =
          ctx.ReduceByKey(keys, dur, th::sdk::Context::Reduce::kSum, names.size());
      const std::vector<int64_t> count =
          ctx.ReduceByKey(keys, dur, th::sdk::Context::Reduce::kCount, names.size());
      for (uint32_t k = 0; k < names.size(); ++k) {
        const std::string name(trace.String(names[k]));
        const int64_t above = total[k] - count[k] * threshold_ns;
        th::sdk::Scope scope;
        scope.rank = trace.rank();
        ctx.Add(th::sdk::Finding(th::sdk::P2, "long kernel " + name)
                    .What(std::to_string(count[k]) + " run(s) of " + name + " took " +
                          std::to_string(total[k]) + " ns, each at least " +
                          std::to_string(threshold_ns) + " ns")
                    .Suggest("look for a faster implementation or a smaller problem size")
                    .In(scope)
                    .Evidence("time", static_cast<double>(total[k]), "ns", th::sdk::kMeasured)
                    .Evidence("runs", static_cast<double>(count[k]), "count", th::sdk::kMeasured)
                    // What the kernels cost, and what bringing each down to
                    // the threshold would save.
                    .TimeLost(static_cast<double>(total[k]))
                    .Saving(static_cast<double>(above))
                    .Group(name)
                    .At(first[k], last[k]));
      }
    }
  }
};

}  // namespace

TH_PLUGIN(@CLASS@)
)tmpl";

constexpr std::string_view kAnalyzerTest =
    R"tmpl(// Tests @ID@ with the SDK's test kit: loads @SNAKE@.so as tracehound does,
// runs it on a trace built in memory and checks the metric and the table it
// publishes. Change the trace and the checks as the plugin grows.
//
//   usage: test_@SNAKE@ path/to/@SNAKE@.so      (ctest passes it)
#include <tracehound/testing.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace kit = th::sdk::testing;

namespace {

// Rank 0: a CPU thread launches two kernels on stream 7 of device 0 (they
// overlap by 100 ns), then a memcpy runs there.
std::unique_ptr<kit::TestTrace> TinyTrace() {
  kit::TraceBuilder b(0);
  const uint32_t cpu = b.CpuThread(1, 1), stream = b.GpuStream(0, 7);
  b.CpuOp(cpu, "aten::mm", 900, 400);
  b.Launch(b.Runtime(cpu, "cudaLaunchKernel", 1000, 20), b.Kernel(stream, "gemm", 1000, 800));
  b.Launch(b.Runtime(cpu, "cudaLaunchKernel", 1100, 20), b.Kernel(stream, "softmax", 1700, 500));
  b.Memcpy(stream, "Memcpy HtoD (Pageable -> Device)", 3000, 200, 4096);
  return b.Build();
}

std::string Values(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return "{" + s + "}";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s path/to/@SNAKE@.so\n", argv[0]);
    return 2;
  }
  kit::PluginLibrary plugin(argv[1]);
  if (!plugin.ok()) {
    std::fprintf(stderr, "%s\n", plugin.error().c_str());
    return 1;
  }
  const th_plugin_descriptor* d = plugin.descriptor();
  kit::Checks check;
  // What tracehound checks before calling anything else.
  const std::string refused = kit::Host::CheckDescriptor(d);
  if (!check(kit::ExpectThat(refused.empty(), "descriptor: " + refused))) return 1;
  check(kit::ExpectThat(std::string(d->id) == "@ID@", "id is @ID@"));
  check(kit::ExpectThat(d->kind == TH_KIND_ANALYZER, "kind is analyzer"));

  const auto trace = TinyTrace();
  kit::Host host;
  const kit::RunResult all = host.Run(d, {trace.get()});
  check(kit::ExpectOk(all));
  check(kit::ExpectMetric(all, "events", 0, 6));
  if (check(kit::ExpectTable(all, "@SNAKE@_streams", 1))) {
    const kit::PublishedTable& t = *all.Table("@SNAKE@_streams");
    check(kit::ExpectThat(t.Ints("stream") == std::vector<int64_t>{7},
                          "stream is {7}, got " + Values(t.Ints("stream"))));
    check(kit::ExpectThat(t.Ints("time") == std::vector<int64_t>{1500},
                          "time is {1500}, got " + Values(t.Ints("time"))));
    check(kit::ExpectThat(t.Ints("busy") == std::vector<int64_t>{1400},
                          "busy is {1400}, got " + Values(t.Ints("busy"))));
  }

  const kit::RunResult kernels = host.Run(d, {trace.get()}, {{"kernels_only", true}});
  check(kit::ExpectOk(kernels));
  check(kit::ExpectMetric(kernels, "events", 0, 2));
  if (check(kit::ExpectTable(kernels, "@SNAKE@_streams", 1))) {
    const kit::PublishedTable& t = *kernels.Table("@SNAKE@_streams");
    check(kit::ExpectThat(t.Ints("busy") == std::vector<int64_t>{1200},
                          "busy of the kernels is {1200}, got " + Values(t.Ints("busy"))));
  }
  return check.Finish("@ID@");
}
)tmpl";

constexpr std::string_view kDetectorTest =
    R"tmpl(// Tests @ID@ with the SDK's test kit: loads @SNAKE@.so as tracehound does,
// runs it on a trace built in memory and checks the findings it reports.
// Change the trace and the checks as the plugin grows.
//
//   usage: test_@SNAKE@ path/to/@SNAKE@.so      (ctest passes it)
#include <tracehound/testing.h>

#include <cstdio>
#include <string>

namespace kit = th::sdk::testing;

namespace {

// Rank 0, stream 7 of device 0: gemm runs twice (5 µs, 3 µs), relu once (0.3 µs).
std::unique_ptr<kit::TestTrace> TinyTrace() {
  kit::TraceBuilder b(0);
  const uint32_t cpu = b.CpuThread(1, 1), stream = b.GpuStream(0, 7);
  b.Launch(b.Runtime(cpu, "cudaLaunchKernel", 900, 20), b.Kernel(stream, "gemm", 1000, 5000));
  b.Launch(b.Runtime(cpu, "cudaLaunchKernel", 950, 20), b.Kernel(stream, "relu", 6000, 300));
  b.Launch(b.Runtime(cpu, "cudaLaunchKernel", 980, 20), b.Kernel(stream, "gemm", 7000, 3000));
  return b.Build();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s path/to/@SNAKE@.so\n", argv[0]);
    return 2;
  }
  kit::PluginLibrary plugin(argv[1]);
  if (!plugin.ok()) {
    std::fprintf(stderr, "%s\n", plugin.error().c_str());
    return 1;
  }
  const th_plugin_descriptor* d = plugin.descriptor();
  kit::Checks check;
  // What tracehound checks before calling anything else.
  const std::string refused = kit::Host::CheckDescriptor(d);
  if (!check(kit::ExpectThat(refused.empty(), "descriptor: " + refused))) return 1;
  check(kit::ExpectThat(std::string(d->id) == "@ID@", "id is @ID@"));
  check(kit::ExpectThat(d->kind == TH_KIND_DETECTOR, "kind is detector"));

  const auto trace = TinyTrace();
  kit::Host host;
  // The default threshold (1000 µs) is far above these kernels.
  const kit::RunResult quiet = host.Run(d, {trace.get()});
  check(kit::ExpectOk(quiet));
  check(kit::ExpectNoFinding(quiet));

  const kit::RunResult r = host.Run(d, {trace.get()}, {{"threshold_us", 1}});
  check(kit::ExpectOk(r));
  kit::FindingQuery gemm;
  gemm.severity = TH_P2;
  gemm.title_contains = "long kernel gemm";
  gemm.group = "gemm";
  gemm.rank = 0;
  gemm.with_saving = gemm.with_time_lost = gemm.with_range = true;
  check(kit::ExpectFindingCount(r, gemm, 1));
  for (const kit::ReportedFinding* f : kit::FindFindings(r, gemm)) {
    check(kit::ExpectThat(*f->time_lost_ns == 8000, "gemm's time lost is 8000 ns"));
    check(kit::ExpectThat(*f->saving_ns == 6000, "gemm's saving is 8000 - 2 x 1000 ns"));
    check(kit::ExpectThat(*f->range == std::make_pair(int64_t{1000}, int64_t{10000}),
                          "gemm's range is its first start to its last end"));
  }
  kit::FindingQuery relu;
  relu.title_contains = "relu";
  check(kit::ExpectNoFinding(r, relu));
  return check.Finish("@ID@");
}
)tmpl";

constexpr std::string_view kAnalyzerReadme = R"tmpl(# @ID@

**Kind:** analyzer · **reads:** `events`, `tracks` · **publishes:** `@SNAKE@_streams`

Events per rank and GPU time per stream. (Written by `tracehound new-plugin` as a working starting
point: say here, in a sentence or two, what @ID@ measures and why it matters.)

## Definition

- Metric `events` per rank: the number of events in that rank's trace, or only its GPU kernels when
  `kernels_only` is on (count, *measured*).
- Table `@SNAKE@_streams`: one row per GPU stream with activity (kernels, memcpy, memset; only
  kernels with `kernels_only`): `rank`, `device`, `stream`, `time` (ns, the activities' summed
  durations) and `busy` (ns, the union of their intervals: the time the stream was busy), both
  *measured*. `time` above `busy` means activities overlapped on the stream.

## Options

| option | type | default | meaning |
| --- | --- | --- | --- |
| `kernels_only` | bool | `false` | count only GPU kernels |
)tmpl";

constexpr std::string_view kDetectorReadme = R"tmpl(# @ID@

**Kind:** detector · **reads:** `events` · **publishes:** findings

GPU kernels that run at least a threshold. (Written by `tracehound new-plugin` as a working starting
point: say here, in a sentence or two, what @ID@ finds and why it matters.)

## Definition

- One P2 finding per kernel name and rank whose runs last at least `threshold_us` each, titled
  `long kernel NAME`, scoped to the rank, grouped by the kernel name. Evidence: `time` (ns, their
  summed durations) and `runs` (count), both *measured*. Time lost: that summed time. Saving
  (*inferred*): what bringing each run down to the threshold would save. Its time range runs from
  the first run's start to the last run's end.

## Options

| option | type | default | meaning |
| --- | --- | --- | --- |
| `threshold_us` | int | `1000` | report kernels at least this long, in µs (min 0) |
)tmpl";

constexpr std::string_view kReadmeUsage = R"tmpl(
## Example

Build and test against an installed tracehound (the SDK is its `sdk` install component:
`cmake --install <tracehound build> --component sdk --prefix <prefix>`):

```sh
cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=<prefix>
cmake --build build
ctest --test-dir build --output-on-failure
```

Name it in a pipeline, `pipeline.yaml` (`plugin_paths` is relative to the pipeline file):

```yaml
version: 1
plugin_paths: [build]
plugins:
  @ID@: @PIPELINE_OPTIONS@
outputs:
  - {type: json, path: findings.json}
```

```sh
tracehound plugins --plugin-path build describe @ID@
tracehound run pipeline.yaml traces/
```

## Testing

`test_@SNAKE@.cc` uses the SDK's test kit, `<tracehound/testing.h>` (header-only, no test
framework): `kit::TraceBuilder` builds a trace in memory (tracks, kernels, memcpys, CPU ops,
launches, ProfilerSteps, collectives, memory events) as the catalog tables tracehound hands a
plugin; `kit::PluginLibrary` loads `@SNAKE@.so` as tracehound does; `kit::Host::Run` runs it with
options, hands it only the tables it declares in `Reads()`, runs its compute primitives on the CPU
and collects its findings, metrics, tables and checks; `kit::ExpectFinding`, `ExpectMetric`,
`ExpectTable` and `kit::Checks` check them and say what was reported when a check fails.

On a real trace, `tracehound test-plugin build/@SNAKE@.so --trace TRACE --golden
@SNAKE@.golden.json` runs it through tracehound itself and compares what it reports with a golden
file (`--update` writes it).
)tmpl";

// The files of `kind`, in order: CMakeLists.txt, plugin, test, README.
struct Templates {
  std::string_view plugin, test, readme, kind_name, pipeline_options;
};

Templates TemplatesOf(ScaffoldKind kind) {
  if (kind == ScaffoldKind::kDetector)
    return {kDetector, kDetectorTest, kDetectorReadme, "detector", "{threshold_us: 500}"};
  return {kAnalyzer, kAnalyzerTest, kAnalyzerReadme, "analyzer", "{kernels_only: true}"};
}

}  // namespace

std::string ExpandPlaceholders(std::string_view text,
                               const std::vector<std::pair<std::string_view, std::string>>& vars) {
  std::string out;
  out.reserve(text.size() + 256);
  size_t i = 0;
  while (i < text.size()) {
    bool replaced = false;
    if (text[i] == '@') {
      for (const auto& [key, value] : vars) {
        if (text.substr(i, key.size()) == key) {
          out += value;
          i += key.size();
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

bool IsKebabCasePluginId(std::string_view id) {
  if (id.empty() || !(id[0] >= 'a' && id[0] <= 'z')) return false;
  for (size_t i = 0; i < id.size(); ++i) {
    char c = id[i];
    bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (alnum) continue;
    // A hyphen joins two non-empty words.
    if (c != '-' || i + 1 == id.size() || id[i + 1] == '-') return false;
  }
  return true;
}

std::string PluginIdToSnakeCase(std::string_view id) {
  std::string out(id);
  for (char& c : out)
    if (c == '-') c = '_';
  return out;
}

std::string PluginIdToClassName(std::string_view id) {
  std::string out;
  bool upper = true;
  for (char c : id) {
    if (c == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

Status CheckPluginId(std::string_view id) {
  if (!IsKebabCasePluginId(id)) {
    return InvalidInput("plugin id '" + std::string(id) +
                        "' is not kebab-case: lowercase letters and digits in words joined by "
                        "single hyphens, starting with a letter (e.g. long-kernels)");
  }
  // Target names CMake keeps for itself: the skeleton's library target is
  // the id in snake_case.
  static constexpr std::array<std::string_view, 10> kReserved = {
      "all",  "clean",          "help",       "install",       "package",
      "test", "package_source", "edit_cache", "rebuild_cache", "list_install_components"};
  std::string snake = PluginIdToSnakeCase(id);
  for (std::string_view r : kReserved) {
    if (snake == r) {
      return InvalidInput("plugin id '" + std::string(id) + "' would name the CMake target '" +
                          snake + "', which CMake reserves; choose another id");
    }
  }
  return Ok();
}

std::optional<ScaffoldKind> ParseScaffoldKind(std::string_view name) {
  if (name == "analyzer") return ScaffoldKind::kAnalyzer;
  if (name == "detector") return ScaffoldKind::kDetector;
  return std::nullopt;
}

std::vector<ScaffoldFile> PluginScaffoldFiles(std::string_view id, ScaffoldKind kind) {
  const std::string snake = PluginIdToSnakeCase(id);
  const Templates t = TemplatesOf(kind);
  auto expand = [&](std::string_view text) {
    return Expand(text, id, t.kind_name, t.pipeline_options);
  };
  return {
      {"CMakeLists.txt", expand(kCMakeLists)},
      {snake + ".cc", expand(t.plugin)},
      {"test_" + snake + ".cc", expand(t.test)},
      {"README.md", expand(t.readme) + expand(kReadmeUsage)},
  };
}

StatusOr<std::vector<std::string>> WritePluginScaffold(std::string_view id,
                                                       const std::string& parent_dir,
                                                       ScaffoldKind kind) {
  TH_RETURN_IF_ERROR(CheckPluginId(id));
  // "my-probe/...", not "./my-probe/...", for the current directory.
  const fs::path dir = parent_dir.empty() || parent_dir == "."
                           ? fs::path(std::string(id))
                           : fs::path(parent_dir) / std::string(id);
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st))
      return InvalidInput(dir.string() + ": exists and is not a directory");
    if (!fs::is_empty(dir, ec) || ec)
      return InvalidInput(dir.string() + ": exists and is not empty; choose another --dir or id");
  }
  fs::create_directories(dir, ec);
  if (ec) return IoError(dir.string() + ": cannot create directory: " + ec.message());

  std::vector<std::string> written;
  for (const ScaffoldFile& file : PluginScaffoldFiles(id, kind)) {
    const fs::path path = dir / file.path;
    std::ofstream out(path, std::ios::binary);
    out.write(file.contents.data(), static_cast<std::streamsize>(file.contents.size()));
    out.close();
    if (!out) return IoError(path.string() + ": cannot write");
    written.push_back(path.string());
  }
  return written;
}

}  // namespace th
