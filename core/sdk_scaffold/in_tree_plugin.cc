#include "core/sdk_scaffold/in_tree_plugin.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/sdk_scaffold/plugin_scaffold.h"

namespace th {

namespace {

namespace fs = std::filesystem;

// `text` with @ID@, @SNAKE@, @CLASS@, @KIND@ and @SUMMARY@ replaced.
std::string Expand(std::string_view text, std::string_view id, InTreePluginKind kind) {
  const bool detector = kind == InTreePluginKind::kDetector;
  return ExpandPlaceholders(text, {
                                      {"@ID@", std::string(id)},
                                      {"@SNAKE@", PluginIdToSnakeCase(id)},
                                      {"@CLASS@", PluginIdToClassName(id)},
                                      {"@KIND@", detector ? "kDetector" : "kAnalyzer"},
                                      {"@SUMMARY@", detector ? "Kernels longer than a threshold"
                                                             : "GPU kernel time per rank"},
                                  });
}

constexpr std::string_view kAnalyzer =
    R"(// @ID@
// GPU kernel time per rank, published as a table. A starting point written by
// `tracehound new-plugin ID --in-tree`: change Declare() and Run() to what the
// plugin should find, and its README.md and test with them.
#include <tracehound/sdk.h>

#include <cstdint>
#include <vector>

namespace {

using th::sdk::Context;
using th::sdk::Declaration;

constexpr const char* kSummary = "@SUMMARY@";

th::sdk::Schema @CLASS@Table() {
  return th::sdk::Schema("@SNAKE@", "GPU kernel time per rank")
      .Int("rank")
      .Int("kernels", "count")
      .Int("kernel_time", "ns");
}

class @CLASS@ final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("@ID@", "0.1.0", th::sdk::@KIND@, kSummary)
        .Reads({"events"})
        .Publishes(@CLASS@Table());
  }

  void Run(Context& ctx) override {
    std::vector<int64_t> rank, kernels, time;
    for (const th::sdk::Trace& t : ctx.traces()) {
      int64_t n = 0, ns = 0;
      for (uint64_t i = 0; i < t.size(); ++i) {
        if (t.kind(i) != TH_EVENT_KERNEL) continue;
        ++n;
        ns += t.dur(i);
      }
      rank.push_back(t.rank());
      kernels.push_back(n);
      time.push_back(ns);
    }
    ctx.Publish(th::sdk::Table("@SNAKE@")
                    .Int("rank", rank)
                    .Int("kernels", kernels, "count")
                    .Int("kernel_time", time, "ns"));
  }
};

}  // namespace

TH_PLUGIN(@CLASS@)
)";

constexpr std::string_view kDetector =
    R"(// @ID@
// GPU kernels that run at least `threshold_us`, one finding per kernel name
// and rank. A starting point written by `tracehound new-plugin ID --in-tree`:
// change Declare() and Run() to what the plugin should find, and its README.md
// and test with them.
#include <tracehound/sdk.h>

#include <cstdint>
#include <map>
#include <string>

namespace {

using th::sdk::Context;
using th::sdk::Declaration;

constexpr const char* kSummary = "@SUMMARY@";

class @CLASS@ final : public th::sdk::Plugin {
 public:
  static Declaration Declare() {
    return Declaration("@ID@", "0.1.0", th::sdk::@KIND@, kSummary)
        .Reads({"events"})
        .Option("threshold_us", int64_t{1000}, "report kernels at least this long, in us")
        .Min(0);
  }

  void Run(Context& ctx) override {
    const int64_t threshold_ns = ctx.GetInt("threshold_us") * 1000;
    for (const th::sdk::Trace& t : ctx.traces()) {
      std::map<std::string, int64_t> time;  // kernel name -> time in long runs
      for (uint64_t i = 0; i < t.size(); ++i) {
        if (t.kind(i) == TH_EVENT_KERNEL && t.dur(i) >= threshold_ns)
          time[std::string(t.name(i))] += t.dur(i);
      }
      for (const auto& [name, ns] : time) {
        th::sdk::Scope scope;
        scope.rank = t.rank();
        ctx.Add(th::sdk::Finding(th::sdk::P2, "long kernel " + name)
                    .What(name + " ran " + std::to_string(ns) + " ns in runs of at least " +
                          std::to_string(threshold_ns) + " ns")
                    .In(scope)
                    .Evidence("time", static_cast<double>(ns), "ns", th::sdk::kMeasured)
                    .TimeLost(static_cast<double>(ns)));
      }
    }
  }
};

}  // namespace

TH_PLUGIN(@CLASS@)
)";

constexpr std::string_view kCMakeLists = "th_add_plugin(th_@SNAKE@ @SNAKE@.cc)\n";

constexpr std::string_view kReadme = R"(# @ID@

**Kind:** @KINDNAME@ · **reads:** `events` · **publishes:** @PUBLISHES@

@SUMMARY@. Written by `tracehound new-plugin @ID@ --in-tree`: say here what it finds, how
(its phases), what each figure means with its unit and kind (measured, read, inferred), and what
a trace cannot show it.

## Tests

`tests/plugins/@ID@/`: the plugin on a trace written by the test, every figure by hand.
)";

constexpr std::string_view kTestCMakeLists =
    R"(th_add_test(@SNAKE@_test SOURCES @SNAKE@_test.cc LIBS th_plugin th_import)
target_compile_definitions(@SNAKE@_test PRIVATE BUILTIN_PLUGIN_DIR="${CMAKE_BINARY_DIR}/plugins")
add_dependencies(@SNAKE@_test th_@SNAKE@)
)";

constexpr std::string_view kTest =
    R"(// @ID@
// Through the real plugin host on a trace written here: two kernels of 2000 us
// and 10 us on rank 0.
#include <gtest/gtest.h>

#include <string>

#include "core/import/trace_loader.h"
#include "core/plugin/plugin_host.h"
#include "core/plugin/plugin_loader.h"
#include "tests/support/test_files.h"

namespace th {
namespace {

TEST(@CLASS@, ReportsWhatTheTraceHolds) {
  auto plugin = LoadPluginLibrary(std::string(BUILTIN_PLUGIN_DIR) + "/th_@SNAKE@.so");
  ASSERT_TRUE(plugin.ok()) << plugin.status().message();
  std::string path = testing::WriteTempFile("@SNAKE@.json", R"json({"traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "big", "pid": 0, "tid": 7, "ts": 10, "dur": 2000},
      {"ph": "X", "cat": "kernel", "name": "small", "pid": 0, "tid": 7, "ts": 3000, "dur": 10}]})json");
  auto set = LoadTraceSet({path}, LoadOptions{});
  ASSERT_TRUE(set.ok()) << set.status().message();
  PluginResults results;
  Status run = RunPlugin(**plugin, *set, {}, &results);
  ASSERT_TRUE(run.ok()) << run.message();
@CHECKS@}

}  // namespace
}  // namespace th
)";

constexpr std::string_view kAnalyzerChecks =
    R"(  const DerivedTable& t = results.tables.at("@SNAKE@");
  ASSERT_EQ(t.rows, 1u);
  EXPECT_EQ(std::get<std::vector<int64_t>>(t.Find("kernels")->values)[0], 2);
  EXPECT_EQ(std::get<std::vector<int64_t>>(t.Find("kernel_time")->values)[0], 2010000);
)";

constexpr std::string_view kDetectorChecks =
    R"(  ASSERT_EQ(results.findings.size(), 1u);  // the 10 us kernel is under 1000 us
  EXPECT_EQ(results.findings[0].title, "long kernel big");
  EXPECT_EQ(results.findings[0].time_lost_ns, 2000000.0);
)";

Status WriteFile(const fs::path& path, const std::string& contents) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary);
  out << contents;
  out.close();
  if (!out) return IoError(path.string() + ": cannot write");
  return Ok();
}

}  // namespace

StatusOr<std::string> InsertIndexRow(const std::string& index, std::string_view id,
                                     InTreePluginKind kind, std::string_view what) {
  const std::string header = "| id | kind | what |\n| --- | --- | --- |\n";
  const size_t table = index.find(header);
  if (table == std::string::npos)
    return InvalidInput("plugins/README.md has no index table ('| id | kind | what |')");
  const std::string row = "| [`" + std::string(id) + "`](" + std::string(id) + "/README.md) | " +
                          (kind == InTreePluginKind::kDetector ? "detector" : "analyzer") + " | " +
                          std::string(what) + " |\n";
  size_t at = table + header.size();
  while (at < index.size() && index.compare(at, 4, "| [`") == 0) {
    const size_t end = index.find('\n', at);
    const size_t name_end = index.find('`', at + 4);
    const std::string_view listed(index.data() + at + 4, name_end - at - 4);
    if (listed == id) return InvalidInput("plugins/README.md already lists " + std::string(id));
    if (listed > id) break;
    at = end == std::string::npos ? index.size() : end + 1;
  }
  return index.substr(0, at) + row + index.substr(at);
}

StatusOr<std::vector<std::string>> WriteInTreePlugin(std::string_view id, InTreePluginKind kind,
                                                     const std::string& source_dir) {
  TH_RETURN_IF_ERROR(CheckPluginId(id));
  const fs::path root(source_dir);
  const fs::path plugin = root / "plugins" / std::string(id);
  const fs::path test = root / "tests" / "plugins" / std::string(id);
  const fs::path index_path = root / "plugins" / "README.md";
  std::ifstream in(index_path, std::ios::binary);
  if (!in)
    return InvalidInput(index_path.string() +
                        ": not found; --in-tree writes into a tracehound source tree");
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::error_code ec;
  for (const fs::path& p : {plugin, test})
    if (fs::exists(p, ec)) return InvalidInput(p.string() + " exists; nothing was written");
  const bool detector = kind == InTreePluginKind::kDetector;
  auto index = InsertIndexRow(buffer.str(), id, kind,
                              detector ? "Kernels longer than a threshold (a starting point)"
                                       : "GPU kernel time per rank (a starting point)");
  if (!index.ok()) return index.status();

  const std::string snake = PluginIdToSnakeCase(id);
  const std::string readme =
      ExpandPlaceholders(kReadme, {{"@KINDNAME@", detector ? "detector" : "analyzer"},
                                   {"@PUBLISHES@", detector ? "nothing (findings)" : "`@SNAKE@`"}});
  const std::string test_source = ExpandPlaceholders(
      kTest, {{"@CHECKS@", std::string(detector ? kDetectorChecks : kAnalyzerChecks)}});
  const std::vector<std::pair<fs::path, std::string>> files = {
      {plugin / (snake + ".cc"), Expand(detector ? kDetector : kAnalyzer, id, kind)},
      {plugin / "CMakeLists.txt", Expand(kCMakeLists, id, kind)},
      {plugin / "README.md", Expand(readme, id, kind)},
      {test / "CMakeLists.txt", Expand(kTestCMakeLists, id, kind)},
      {test / (snake + "_test.cc"), Expand(test_source, id, kind)},
      {index_path, *index},
  };
  std::vector<std::string> written;
  for (const auto& [path, contents] : files) {
    TH_RETURN_IF_ERROR(WriteFile(path, contents));
    written.push_back(path.string());
  }
  return written;
}

}  // namespace th
