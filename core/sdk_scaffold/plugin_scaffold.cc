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
std::string Expand(std::string_view text, std::string_view id) {
  const std::array<std::pair<std::string_view, std::string>, 4> vars = {{
      {"@ID@", std::string(id)},
      {"@SNAKE@", PluginIdToSnakeCase(id)},
      {"@CLASS@", PluginIdToClassName(id)},
      {"@SDK@", TRACEHOUND_SDK_VERSION},
  }};
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

constexpr std::string_view kCMakeLists =
    R"(# @ID@: a tracehound plugin, built out of tree against the installed SDK.
#
#   cmake -S . -B build -G Ninja -DCMAKE_PREFIX_PATH=<tracehound install prefix>
#   cmake --build build
#   ctest --test-dir build --output-on-failure
cmake_minimum_required(VERSION 3.20)
project(@SNAKE@ VERSION 0.1.0 LANGUAGES CXX)

find_package(tracehound_sdk @SDK@ REQUIRED)

# The plugin library, build/@SNAKE@.so. tracehound finds it on a pipeline's
# plugin_paths, on TRACEHOUND_PLUGIN_PATH, or, after `cmake --install build
# --prefix <tracehound install prefix>`, next to tracehound itself.
th_add_plugin(@SNAKE@ @SNAKE@.cc)

# A self-contained test: loads @SNAKE@.so with dlopen(), checks its descriptor
# and runs it on a tiny trace. Needs neither tracehound nor a test framework.
enable_testing()
add_executable(test_@SNAKE@ test_@SNAKE@.cc)
target_link_libraries(test_@SNAKE@ PRIVATE tracehound::sdk ${CMAKE_DL_LIBS})
add_dependencies(test_@SNAKE@ @SNAKE@)
add_test(NAME @SNAKE@ COMMAND test_@SNAKE@ $<TARGET_FILE:@SNAKE@>)
)";

constexpr std::string_view kPlugin =
    R"(// @ID@: events per rank. A working starting point written by
// `tracehound new-plugin`: change Declare() and Run() to what @ID@ should find,
// and README.md and test_@SNAKE@.cc with them.
#include <tracehound/sdk.h>

#include <cstdint>

namespace {

class @CLASS@ final : public th::sdk::Plugin {
 public:
  // Everything tracehound knows about the plugin before running it: the
  // pipeline schema, option checking and `tracehound plugins describe @ID@`
  // come from here.
  static th::sdk::Declaration Declare() {
    return th::sdk::Declaration("@ID@", "0.1.0", th::sdk::kAnalyzer, "Events per rank")
        .Reads({"events"})
        .Option("kernels_only", false, "count only GPU kernels");
  }

  // Called once per pipeline run with every trace (one per rank). Report with
  // ctx.Metric(), ctx.Add(th::sdk::Finding(...)) and ctx.Publish(th::sdk::Table(...));
  // an exception becomes an error of this plugin, never a crash of tracehound.
  void Run(th::sdk::Context& ctx) override {
    const bool kernels_only = ctx.GetBool("kernels_only");
    for (const th::sdk::Trace& trace : ctx.traces()) {
      int64_t events = 0;
      for (uint64_t i = 0; i < trace.size(); ++i) {
        if (!kernels_only || trace.kind(i) == TH_EVENT_KERNEL) ++events;
      }
      th::sdk::Scope scope;
      scope.rank = trace.rank();
      ctx.Metric("events", static_cast<double>(events), "count", th::sdk::kMeasured, scope);
    }
  }
};

}  // namespace

TH_PLUGIN(@CLASS@)
)";

constexpr std::string_view kTest =
    R"(// Tests @ID@ without tracehound: loads the plugin library with dlopen(),
// checks its descriptor (id, API version), and runs it on a tiny in-memory
// trace through a fake host that records what the plugin reports.
//
//   usage: test_@SNAKE@ path/to/@SNAKE@.so      (ctest passes it)
#include <dlfcn.h>
#include <tracehound/plugin_api.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

int failures = 0;

void Expect(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  ++failures;
}

template <typename T>
th_table_column Column(const char* name, const std::vector<T>& values, th_value_type type,
                       const char* unit = "") {
  return {name, {values.data(), values.size(), static_cast<uint32_t>(type), 0}, unit};
}

th_table Table(const char* name, const std::vector<th_table_column>& columns) {
  th_table t{};
  t.struct_size = sizeof t;
  t.name = name;
  t.columns = columns.data();
  t.column_count = static_cast<uint32_t>(columns.size());
  t.row_count = columns.empty() ? 0 : columns[0].values.length;
  return t;
}

// Rank 0, one GPU stream (device 0, stream 7): two kernels and a memcpy, as
// the catalog tables events, tracks and gpu_args (tracehound hands a plugin
// only the tables it declares in Reads(); this test hands all three).
struct TinyTrace {
  std::vector<std::string> strings = {"", "gemm", "softmax", "Memcpy HtoD", "kernel", "gpu_memcpy"};
  std::vector<int64_t> ts = {1000, 2000, 3000};
  std::vector<int64_t> dur = {800, 500, 200};
  std::vector<uint32_t> name = {1, 2, 3};
  std::vector<uint32_t> cat = {4, 4, 5};
  std::vector<uint32_t> track = {0, 0, 0};
  std::vector<uint32_t> parent = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
  std::vector<uint16_t> depth = {0, 0, 0};
  std::vector<uint8_t> kind = {TH_EVENT_KERNEL, TH_EVENT_KERNEL, TH_EVENT_MEMCPY};
  std::vector<uint32_t> args_row = {0, 1, 2};
  std::vector<uint32_t> track_kind = {TH_TRACK_GPU_STREAM}, no_string = {0};
  std::vector<int64_t> pid = {0}, tid = {7}, track_stream = {7};
  std::vector<int32_t> track_device = {0};
  std::vector<uint32_t> gpu_event = {0, 1, 2};
  std::vector<int32_t> gpu_device = {0, 0, 0}, zero = {0, 0, 0};
  std::vector<int64_t> gpu_stream = {7, 7, 7};
  std::vector<int64_t> gpu_bytes = {-1, -1, 4096};
  std::vector<float> occupancy = {-1, -1, -1};
  std::vector<th_table_column> event_columns = {
      Column("ts", ts, TH_TYPE_I64, "ns"),
      Column("dur", dur, TH_TYPE_I64, "ns"),
      Column("name", name, TH_TYPE_STRING_ID),
      Column("cat", cat, TH_TYPE_STRING_ID),
      Column("track", track, TH_TYPE_U32),
      Column("parent", parent, TH_TYPE_U32),
      Column("depth", depth, TH_TYPE_U16),
      Column("kind", kind, TH_TYPE_U8),
      Column("args_row", args_row, TH_TYPE_U32)};
  std::vector<th_table_column> track_columns = {
      Column("kind", track_kind, TH_TYPE_U32),
      Column("pid", pid, TH_TYPE_I64),
      Column("tid", tid, TH_TYPE_I64),
      Column("pid_string", no_string, TH_TYPE_STRING_ID),
      Column("tid_string", no_string, TH_TYPE_STRING_ID),
      Column("process_name", no_string, TH_TYPE_STRING_ID),
      Column("thread_name", no_string, TH_TYPE_STRING_ID),
      Column("device", track_device, TH_TYPE_I32),
      Column("stream", track_stream, TH_TYPE_I64)};
  std::vector<th_table_column> gpu_columns = {
      Column("event", gpu_event, TH_TYPE_U32),
      Column("device", gpu_device, TH_TYPE_I32),
      Column("stream", gpu_stream, TH_TYPE_I64),
      Column("bytes", gpu_bytes, TH_TYPE_I64, "bytes"),
      Column("grid_x", zero, TH_TYPE_I32),
      Column("grid_y", zero, TH_TYPE_I32),
      Column("grid_z", zero, TH_TYPE_I32),
      Column("block_x", zero, TH_TYPE_I32),
      Column("block_y", zero, TH_TYPE_I32),
      Column("block_z", zero, TH_TYPE_I32),
      Column("registers", zero, TH_TYPE_I32),
      Column("shared_mem", zero, TH_TYPE_I32, "bytes"),
      Column("occupancy", occupancy, TH_TYPE_F32, "%")};
  std::vector<th_table> tables = {Table("events", event_columns), Table("tracks", track_columns),
                                  Table("gpu_args", gpu_columns)};
  th_trace_view view{};

  TinyTrace() {
    view.struct_size = sizeof view;
    view.path = "tiny.json";
    view.rank = 0;
    view.tables = tables.data();
    view.table_count = static_cast<uint32_t>(tables.size());
  }
  TinyTrace(const TinyTrace&) = delete;
  TinyTrace& operator=(const TinyTrace&) = delete;
};

// What the plugin reported, through the host function table.
struct FakeHost {
  struct Metric {
    std::string name, unit;
    double value;
    int64_t rank;
  };
  const TinyTrace* trace = nullptr;
  std::vector<Metric> metrics;
  std::vector<std::string> findings, tables;

  // The value of metric `name` for `rank`, or -1 when it was not published.
  double Value(const std::string& metric, int64_t rank) const {
    for (const Metric& m : metrics)
      if (m.name == metric && m.rank == rank) return m.value;
    return -1;
  }
};

FakeHost* Self(void* ctx) { return static_cast<FakeHost*>(ctx); }

void Log(void*, int level, const char* message) {
  std::fprintf(stderr, "[%s] %s\n", level ? "warning" : "info", message);
}
const char* StringAt(void* ctx, const th_trace_view*, uint32_t id, uint64_t* length) {
  const std::string& s = Self(ctx)->trace->strings.at(id);
  *length = s.size();
  return s.c_str();
}
int64_t NoId(void*, const th_trace_view*, uint64_t) { return INT64_MIN; }
th_status AddFinding(void* ctx, const th_finding* f) {
  Self(ctx)->findings.push_back(f->title ? f->title : "");
  return TH_STATUS_OK;
}
th_status PublishMetric(void* ctx, const th_metric* m) {
  Self(ctx)->metrics.push_back({m->name, m->unit ? m->unit : "", m->value, m->scope.rank});
  return TH_STATUS_OK;
}
th_status PublishTable(void* ctx, const th_table* t) {
  Self(ctx)->tables.push_back(t->name);
  return TH_STATUS_OK;
}
th_status FindTable(void*, const char*, const th_table** out) {
  *out = nullptr;
  return TH_STATUS_OK;
}

// Runs the plugin on `trace` with its declared defaults, then `overrides`.
bool Run(const th_plugin_descriptor* d, const TinyTrace& trace,
         const std::vector<th_option_value>& overrides, FakeHost* out) {
  std::vector<th_option_value> options;
  for (uint32_t i = 0; i < d->option_count; ++i) {
    th_option_value value = d->options[i].default_value;
    value.name = d->options[i].name;
    for (const th_option_value& o : overrides)
      if (std::strcmp(o.name, value.name) == 0) value = o;
    options.push_back(value);
  }
  out->trace = &trace;
  th_host_api host{};
  host.struct_size = sizeof host;
  host.api_major = TH_PLUGIN_API_MAJOR;
  host.api_minor = TH_PLUGIN_API_MINOR;
  host.ctx = out;
  host.log = Log;
  host.string_at = StringAt;
  host.correlation = NoId;
  host.external_id = NoId;
  host.add_finding = AddFinding;
  host.publish_metric = PublishMetric;
  host.publish_table = PublishTable;
  host.find_table = FindTable;
  const th_trace_view* traces[] = {&trace.view};
  th_run_input input{};
  input.struct_size = sizeof input;
  input.trace_count = 1;
  input.traces = traces;
  input.options = options.data();
  input.option_count = static_cast<uint32_t>(options.size());
  char error[512] = "";
  if (d->run(&host, &input, error, sizeof error) != TH_STATUS_OK) {
    std::fprintf(stderr, "run failed: %s\n", error);
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s path/to/@SNAKE@.so\n", argv[0]);
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
    return 1;
  }
  auto entry = reinterpret_cast<th_plugin_entry_fn>(dlsym(library, TH_PLUGIN_ENTRY_SYMBOL));
  if (!entry) {
    std::fprintf(stderr, "%s exports no %s\n", argv[1], TH_PLUGIN_ENTRY_SYMBOL);
    return 1;
  }
  const th_plugin_descriptor* d = entry();
  if (!d) {
    std::fprintf(stderr, "%s returned no descriptor\n", TH_PLUGIN_ENTRY_SYMBOL);
    return 1;
  }

  // What tracehound checks before calling anything else.
  Expect(d->struct_size >= sizeof(th_plugin_descriptor), "descriptor struct_size");
  Expect(d->api_major == TH_PLUGIN_API_MAJOR && d->api_minor <= TH_PLUGIN_API_MINOR,
         "plugin API " + std::to_string(d->api_major) + "." + std::to_string(d->api_minor) +
             " matches the SDK's");
  Expect(d->id && std::string(d->id) == "@ID@", "id is @ID@");
  Expect(d->kind == TH_KIND_ANALYZER, "kind is analyzer");
  Expect(d->run != nullptr, "descriptor has a run function");

  // What the plugin reports. Change these checks as the plugin grows.
  if (d->run) {
    TinyTrace trace;
    FakeHost all;
    Expect(Run(d, trace, {}, &all), "runs with its default options");
    Expect(all.Value("events", 0) == 3, "events on rank 0 with the defaults is 3, got " +
                                            std::to_string(all.Value("events", 0)));

    th_option_value kernels_only{};
    kernels_only.name = "kernels_only";
    kernels_only.type = TH_TYPE_BOOL;
    kernels_only.i64 = 1;
    FakeHost kernels;
    Expect(Run(d, trace, {kernels_only}, &kernels), "runs with kernels_only");
    Expect(kernels.Value("events", 0) == 2, "events on rank 0 with kernels_only is 2, got " +
                                                std::to_string(kernels.Value("events", 0)));
  }

  dlclose(library);
  if (failures) {
    std::fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  std::printf("@ID@: all checks passed\n");
  return 0;
}
)";

constexpr std::string_view kReadme = R"(# @ID@

**Kind:** analyzer · **reads:** `events` · **publishes:** metrics only

Events per rank. (Written by `tracehound new-plugin` as a working starting point: say here, in a
sentence or two, what @ID@ finds and why it matters.)

## Definition

- Metric `events` per rank: the number of events in that rank's trace, or only its GPU kernels when
  `kernels_only` is on (count, *measured*).

## Options

| option | type | default | meaning |
| --- | --- | --- | --- |
| `kernels_only` | bool | `false` | count only GPU kernels |

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
  @ID@: {kernels_only: true}
outputs:
  - {type: json, path: findings.json}
```

```sh
tracehound plugins --plugin-path build describe @ID@
tracehound run pipeline.yaml traces/
```

The counts appear in `findings.json` under `metrics` → `@ID@`, one per rank.
)";

}  // namespace

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

std::vector<ScaffoldFile> PluginScaffoldFiles(std::string_view id) {
  const std::string snake = PluginIdToSnakeCase(id);
  return {
      {"CMakeLists.txt", Expand(kCMakeLists, id)},
      {snake + ".cc", Expand(kPlugin, id)},
      {"test_" + snake + ".cc", Expand(kTest, id)},
      {"README.md", Expand(kReadme, id)},
  };
}

StatusOr<std::vector<std::string>> WritePluginScaffold(std::string_view id,
                                                       const std::string& parent_dir) {
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
  for (const ScaffoldFile& file : PluginScaffoldFiles(id)) {
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
